"""The file as bytes, before any CSV: its size, its encoding (UTF-8, a BOM, the magic bytes of a binary
file) and its line endings.

The first layer of the reader (``tokenize`` comes next): nothing here knows about
fields, headers or labels.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

from ..problems import ProblemLog
from ..untrusted import UntrustedFileError, open_regular
from ._csv_spans import count_byte, count_crlf

_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"PK\x03\x04": "a zip archive (an .xlsx spreadsheet is one too)",
    b"%PDF": "a PDF document",
    b"\xd0\xcf\x11\xe0": "a legacy Office document (.xls)",
    b"\x1f\x8b": "a gzip archive",
    b"BM": None,  # too short to be sure; decided by the NUL check below
}

def read_limited(path: str | Path, max_bytes: int, log: ProblemLog) -> bytes | None:
    """Read a file, refusing (before reading it) one over ``max_bytes``, and one that is not a regular file
    (opened by the one opening rule, ``untrusted.py``: a FIFO swapped in after a check would block)."""
    path = Path(path)
    try:
        fh = open_regular(path, max_bytes=1 << 62, what="file")  # (the byte limit is said below, as before)
    except UntrustedFileError as exc:
        if exc.code != "not_regular_file":
            raise OSError(exc.message) from None
        log.error("not_text", f"{path.name!r} is not a regular file (a named pipe, socket or device); upload the "
                  "CSV file itself")
        return None
    with fh:
        return read_opened(fh, max_bytes, log)


def read_opened(fh: BinaryIO, max_bytes: int, log: ProblemLog) -> bytes | None:
    """``read_limited`` of a file it opened (or ``uploads``, which looks at its first bytes first), from its
    start: refused before reading when over ``max_bytes``."""
    size = os.fstat(fh.fileno()).st_size
    if size > max_bytes:
        log.error("file_too_large", f"the file is {size:,} bytes; this competition accepts at most {max_bytes:,} bytes")
        return None
    fh.seek(0)
    # (read(n) reserves n bytes first: with n = the limit, 10 GB for a solution, that is slow and may fail)
    data = fh.read(min(size, max_bytes) + 1)
    if len(data) > size:  # grew since stat: read on, up to the limit
        data += fh.read(max_bytes + 1 - len(data))
    if len(data) > max_bytes:  # grew while we read it
        log.error("file_too_large", f"the file is larger than {max_bytes:,} bytes")
        return None
    return data


def checked_utf8(data: bytes, log: ProblemLog) -> bytes | None:
    """The bytes without their BOM when they are a UTF-8 text file (a BOM is accepted with a warning), else
    None with the problem logged. A text file of ASCII needs no decoding to be valid."""
    if not data:
        log.error("empty_file", "the file is empty; it needs a header line and one row per test item")
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        log.error("wrong_encoding", "the file is UTF-16 encoded; save it as UTF-8 (in Excel: 'CSV UTF-8')")
        return None
    for magic, what in _MAGIC.items():
        if what and data.startswith(magic):
            log.error("not_text", f"the file is {what}, not a CSV text file")
            return None
    if b"\x00" in data[:65536]:
        log.error("not_text", "the file contains NUL bytes: it is binary (or UTF-16 without a BOM), not a UTF-8 CSV text file")
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        log.warning("utf8_bom", "the file starts with a UTF-8 byte-order mark (BOM); it is ignored", line=1)
        data = data[3:]
    if data.isascii():
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start]
        log.error("wrong_encoding",
                  f"byte 0x{byte:02X} is not valid UTF-8; the file seems to be in another encoding "
                  "(Latin-1 / Windows-1252?); save it as UTF-8", line=line, column=col)
        return None
    return data


def report_line_endings(data: bytes, log: ProblemLog, *, crlf_records: int | None = None,
                        n_records: int | None = None) -> None:
    """Warn about mixed line endings (CRLF alone is accepted silently). ``crlf_records`` of ``n_records`` line ends: what the
    tokenizer found (every CR then ended a record), so the bytes need no second look."""
    if b"\r" not in data:
        return  # LF line ends only: nothing to report
    if crlf_records is not None:
        n_crlf, n_cr, n_lf = crlf_records, 0, n_records - crlf_records
    else:
        # counted, never located: an index per CR of 19 MB of lone CRs was 300 MB and 2.8 s
        n_crlf = count_crlf(data)
        n_cr = count_byte(data, 13) - n_crlf
        n_lf = count_byte(data, 10) - n_crlf  # (numpy counts bytes faster than bytes.count)
    styles = sum(x > 0 for x in (n_crlf, n_cr, n_lf))
    if styles > 1:
        log.warning("mixed_line_endings", f"the file mixes line endings ({n_crlf} CRLF, {n_lf} LF, {n_cr} CR); accepted")
    # CRLF alone is accepted without a word: it is what Python's own csv.writer writes by default, so a warning
    # would ask every such participant to change something that is right (DESIGN.md, Conventions)
