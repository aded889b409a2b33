"""Property: every file the numpy tokenizers accept reads as Python's ``csv`` module reads it.

``csv_spans.field_spans`` (a regular file: every record the header's width, each on its line) and
``csv_spans.line_fields`` (lines of any width, blank lines too) either decline a file, and the ``csv`` module
reads it, or give each record's fields exactly as ``csv.reader`` gives them (a blank line: its empty record).
Hypothesis draws files of three kinds: rows written by ``csv.writer`` (every quoting, LF or CRLF, the last line
end or not), rows with carriage returns anywhere (only a CR just before a LF may be taken), and records from a
hostile alphabet (quotes, blanks, delimiters, every line end).
"""

from __future__ import annotations

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.reading import _csv_spans as csv_spans

PIECES = ['"', '""', " ", "\t", ",", ";", "\n", "\r", "\r\n", "a", "Q-1", "[1]", '"[1, 2]"', '"Q-2" ', '"x",',
          '"z"\n', "é"]


@st.composite
def _written(draw) -> tuple[str, int]:
    """Rows of 2 or 3 fields written by csv.writer: quoted as needed or all, LF or CRLF, a last line end or not."""
    width = draw(st.sampled_from([2, 3]))
    field = st.text(alphabet='ab1-,[] "\r', max_size=6)
    rows = draw(st.lists(st.tuples(*[field] * width), min_size=1, max_size=8))
    buf = io.StringIO()
    csv.writer(buf, quoting=draw(st.sampled_from([csv.QUOTE_ALL, csv.QUOTE_MINIMAL])),
               lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows([("h",) * width, *rows])
    text = buf.getvalue()
    return (text if draw(st.booleans()) else text.rstrip("\r\n")), width


@st.composite
def _carriage_returns(draw) -> tuple[str, int]:
    """Records of 2 fields ended by LF, CRLF, a lone CR or CR CR LF, with CRs inside fields too."""
    field = st.text(alphabet='a1,"\r', max_size=5)
    records = [("h1", "h2"), *draw(st.lists(st.tuples(field, field), min_size=1, max_size=6))]
    lines = []
    for record in records:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow(record)
        lines.append(buf.getvalue() + draw(st.sampled_from(["\n", "\r\n", "\r", "\r\r\n"])))
    text = "".join(lines)
    return (text if draw(st.booleans()) else text.rstrip("\r\n")), 2


@st.composite
def _hostile(draw) -> tuple[str, int]:
    return "h1,h2\n" + "".join(draw(st.lists(st.sampled_from(PIECES), max_size=30))), 2


def _fields(raw: bytes, starts, ends) -> list[str]:
    return [raw[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]


@settings(max_examples=1000, deadline=None)
@given(st.one_of(_written(), _carriage_returns(), _hostile()))
def test_what_the_numpy_tokenizers_accept_reads_as_the_csv_module_reads_it(file):
    text, width = file
    raw = text.encode("utf-8")
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error:
        records = None  # (then neither may take the file)
    spans = csv_spans.field_spans(raw, ",", width)
    if spans is not None:
        assert [_fields(raw, s, e) for s, e in zip(spans.starts, spans.ends)] == records
    lines = csv_spans.line_fields(raw, ",")
    if lines is not None:
        fields = _fields(raw, lines.starts, lines.ends)
        got, at = [], 0
        for count, blank in zip(lines.counts.tolist(), lines.blank.tolist()):
            got.append([] if blank else fields[at:at + count])
            at += count
        assert got == records
