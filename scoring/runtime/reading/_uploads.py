"""Turn what a participant uploaded (a CSV, a zip holding one CSV, a folder) into bytes to read.

Grading servers hand over uploads in three shapes: a plain file, a zip archive
(Codabench unzips it into ``res/``, EvalAI and ``agrieval grade`` may get the
zip itself) and a folder. Whatever the shape, exactly one CSV must come out,
and nothing in the upload may make the grader read outside it or past the
competition's limits:

* a zip member's declared size is checked against ``limits.max_unzipped_bytes``
  before it is inflated, and inflation stops at the limit whatever the header
  says (a forged header cannot smuggle a bomb through);
* member names with ``..`` parts, absolute paths, drive letters and symlink
  members are refused, never extracted: the member is read into memory only;
* a folder is listed without following symlinks; a symlink in it is refused.

Nothing here writes to disk.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ..definition import Limits
from ..problems import Problem, ProblemLog
from ..untrusted import UntrustedFileError, open_regular
from ._bytes_checks import read_opened

# Imported inside functions, so that importing this module loads only what it needs: zipfile (heavy or optional).

_NO_CAP = 1 << 62  # open_regular's size cap left to the caller: the competition's limit is checked with a message

if TYPE_CHECKING:
    import zipfile

ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"  # end-of-central-directory first: a zip with no member
# Files a platform or an archiver adds next to the participant's file; never the submission.
_NOISE_NAMES = {"metadata", ".DS_Store", "Thumbs.db", "desktop.ini"}
_NOISE_DIRS = {"__MACOSX"}
_READ_CHUNK = 1 << 20


@dataclass
class Upload:
    """The bytes of the one submission file, or the problems that prevent getting them."""

    data: bytes | None
    filename: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.data is not None


def unpack(submission: str | Path | bytes, limits: Limits, *, filename: str | None = None) -> Upload:
    """What every command and hook does first: the bytes of the one CSV in an upload (path or bytes).

    ``filename`` is how the file is named in messages (the upload's own name by
    default); a zip member is shown as ``archive!member``.
    """
    if isinstance(submission, bytes):
        if submission[:4] in (ZIP_MAGIC, EMPTY_ZIP_MAGIC) and len(submission) <= limits.max_bytes:
            return from_zip(io.BytesIO(submission), limits, display_name=filename or "submission.zip")
        return Upload(submission, filename or "submission.csv")
    upload = open_upload(submission, limits)
    if upload.ok and "!" not in upload.filename and filename:
        upload.filename = filename
    return upload


def open_upload(path: str | Path, limits: Limits) -> Upload:
    """Bytes of the submission at ``path``: a file, a zip holding one file, or a folder holding one file.

    A missing path is a host-side problem (the server passed a wrong path) and
    raises ``FileNotFoundError``; everything else the participant controls ends
    as problems on the returned ``Upload``.
    """
    path = Path(path)
    try:  # (one lstat: is_symlink, is_dir and exists were three)
        mode = os.lstat(path).st_mode
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):  # (pathlib's "no such path")
            raise
        raise FileNotFoundError(f"submission path {str(path)!r} does not exist") from None
    if stat.S_ISLNK(mode):
        log = ProblemLog(file=path.name)
        log.error("zip_unsafe_member", f"{path.name!r} is a symbolic link; upload the CSV file itself")
        return Upload(None, path.name, log.finish())
    if stat.S_ISDIR(mode):
        return _from_folder(path, limits)
    return _from_file(path, limits)


def _from_file(path: Path, limits: Limits) -> Upload:
    log = ProblemLog(file=path.name)
    try:  # the one opening rule (untrusted.py): a FIFO or a device would block or never end; the size is the
        # opened file's, checked below against the competition's limit
        fh = open_regular(path, max_bytes=_NO_CAP, what="upload")
    except UntrustedFileError as exc:
        if exc.code != "not_regular_file":
            raise
        log.error("not_text", f"{path.name!r} is not a regular file (a named pipe, socket or device); upload the "
                  "CSV file itself")
        return Upload(None, path.name, log.finish())
    with fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(4)
        if head not in (ZIP_MAGIC, EMPTY_ZIP_MAGIC):
            # Plain file: the reader checks the byte limit itself, before reading (the file opened once)
            return Upload(read_opened(fh, limits.max_bytes, log), path.name, log.finish())
    # The zip's own size is bounded by max_bytes too: a huge central directory is work as well.
    if size > limits.max_bytes:
        log.error("file_too_large", f"the archive is {size:,} bytes; this competition accepts at most "
                  f"{limits.max_bytes:,} bytes")
        return Upload(None, path.name, log.finish())
    return from_zip(path, limits, display_name=path.name)


def from_zip(path: str | Path, limits: Limits, *, display_name: str | None = None) -> Upload:
    """The single file inside the zip at ``path``, read in memory within ``limits``."""
    import zipfile  # (here: a plain CSV, the usual upload, does not pay for importing it)

    name = display_name or Path(path).name
    log = ProblemLog(file=name)
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            members = [i for i in infos if not i.is_dir() and not _is_noise(i.filename)]
            for info in infos:
                why = unsafe_member_reason(info)
                if why:
                    log.error("zip_unsafe_member", f"the archive member {info.filename[:80]!r} {why}; "
                              "the archive must hold one CSV file at its top level")
            if log.has_errors:
                return Upload(None, name, log.finish())
            if not members:
                noise = [i.filename for i in infos if not i.is_dir()]
                if noise:  # e.g. a CSV named `metadata` or `._submission.csv`: a name kept for other tools' files
                    log.error("zip_empty", f"the archive holds only {', '.join(repr(n[:60]) for n in noise[:3])}, "
                              "names that archivers and grading platforms use for their own files; name your CSV "
                              "file e.g. submission.csv")
                else:
                    log.error("zip_empty", "the archive holds no file; put your CSV file in it")
                return Upload(None, name, log.finish())
            if len(members) > 1:
                shown = ", ".join(repr(m.filename[:60]) for m in members[:5])
                more = f" and {len(members) - 5} more" if len(members) > 5 else ""
                log.error("zip_several_files", f"the archive holds {len(members)} files ({shown}{more}); "
                          "it must hold exactly one CSV file")
                return Upload(None, name, log.finish())
            member = members[0]
            if member.flag_bits & 0x1:
                log.error("zip_invalid", f"the archive member {member.filename[:60]!r} is encrypted (password-"
                          "protected); upload the CSV file itself, or a zip without a password")
                return Upload(None, name, log.finish())
            inner = f"{name}!{member.filename}"
            log.file = inner
            if member.file_size > limits.max_unzipped_bytes:
                log.error("zip_too_large", f"the archive member {member.filename[:60]!r} expands to "
                          f"{member.file_size:,} bytes; at most {limits.max_unzipped_bytes:,} are accepted")
                return Upload(None, inner, log.finish())
            data = _inflate_capped(zf, member, limits.max_unzipped_bytes, log)
            return Upload(data, inner, log.finish())
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, ValueError,
            RuntimeError, OSError) as exc:
        # RuntimeError: encrypted member; NotImplementedError: unsupported compression.
        log = ProblemLog(file=name)
        log.error("zip_invalid", f"the archive cannot be read ({type(exc).__name__}: {str(exc)[:120]}); "
                  "upload the CSV file, or a plain zip holding it")
        return Upload(None, name, log.finish())


def _inflate_capped(zf: zipfile.ZipFile, member: zipfile.ZipInfo, cap: int, log: ProblemLog) -> bytes | None:
    """Inflate ``member`` but never past ``cap`` bytes, whatever its header declares."""
    chunks: list[bytes] = []
    total = 0
    with zf.open(member) as fh:
        while True:
            chunk = fh.read(min(_READ_CHUNK, cap + 1 - total))
            if not chunk:
                break
            total += len(chunk)
            if total > cap:
                log.error("zip_too_large", f"the archive member {member.filename[:60]!r} expands past "
                          f"{cap:,} bytes (its header claims {member.file_size:,}); a zip bomb is refused")
                return None
            chunks.append(chunk)
    return b"".join(chunks)


def unsafe_member_reason(info: zipfile.ZipInfo) -> str | None:
    """Why a member must not be used, or None. Checked on the raw name, before any path joining."""
    raw = info.filename
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "is a symbolic link"
    norm = raw.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        return "has an absolute path"
    if ".." in PurePosixPath(norm).parts:
        return "climbs out of the archive with '..'"
    if "\x00" in raw:
        return "has a NUL byte in its name"
    return None


def _is_noise(member_name: str) -> bool:
    parts = PurePosixPath(member_name.replace("\\", "/")).parts
    return bool(parts) and (parts[0] in _NOISE_DIRS or parts[-1] in _NOISE_NAMES or parts[-1].startswith("._"))


_FOLDER_NAME = "submission"


def _from_folder(folder: Path, limits: Limits) -> Upload:
    """The single file in ``folder`` (Codabench's ``res/``), listed without following symlinks.

    A problem with the folder as a whole is named "submission": the folder's name is the platform's
    (``res``), not one the participant chose."""
    log = ProblemLog(file=_FOLDER_NAME)
    files: list[Path] = []
    links: list[Path] = []
    stack = [folder]
    while stack:
        here = stack.pop()
        for entry in sorted(here.iterdir()):
            rel = entry.relative_to(folder)
            if entry.is_symlink():
                links.append(rel)
            elif entry.is_dir():
                if entry.name not in _NOISE_DIRS:
                    stack.append(entry)
            elif entry.is_file() and not _is_noise(str(rel)):
                files.append(rel)
            if len(files) + len(links) > 1000:  # a folder of a million files is work too
                break
    for rel in links[:5]:
        log.error("zip_unsafe_member", f"the uploaded file {str(rel)[:80]!r} is a symbolic link; "
                  "upload the CSV file itself")
    if links:
        return Upload(None, _FOLDER_NAME, log.finish())
    if not files:
        log.error("zip_empty", "the upload holds no file; upload your CSV file (or a zip holding it)")
        return Upload(None, _FOLDER_NAME, log.finish())
    if len(files) > 1:
        shown = ", ".join(repr(str(f)[:60]) for f in sorted(files)[:5])
        more = f" and {len(files) - 5} more" if len(files) > 5 else ""
        log.error("zip_several_files", f"the upload holds {len(files)} files ({shown}{more}); "
                  "it must hold exactly one CSV file")
        return Upload(None, _FOLDER_NAME, log.finish())
    return _from_file(folder / files[0], limits)
