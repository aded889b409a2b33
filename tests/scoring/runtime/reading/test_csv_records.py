"""The vectorised path for lone CRs, doubled quotes and quoted fields over several lines (``csv_records``,
read by ``tokenize._read_lines``) against the csv module's record-by-record path (``tokenize._read_irregular``)
with every other shortcut off (``strict_reading``): on hypothesis-drawn files mixing those shapes with blank
lines, ragged rows, every kind of line end and out-of-place quotes, the same ids, labels, lines, ids left
unread and problems (code, severity, line, column, message, and the caps on how many are listed), under a
row limit and a cell limit too; and a well-formed file never read by the csv module."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime import problems
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.reading import _csv_records as csv_records
from agrieval.scoring.runtime.reading import _tokenize as tokenize
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.runtime.reading.strict_reading import strict_reading


def _definition(max_rows: int, max_cell_chars: int) -> CompetitionDefinition:
    d = CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                              list_syntax="python-list", primary_metric="sample_f1", id_pattern=".+")
    return dataclasses.replace(d, limits=dataclasses.replace(d.limits, max_rows=max_rows,
                                                             max_cell_chars=max_cell_chars))


def _summary(sub) -> dict:
    return {"ids": list(sub.ids), "lines": sub.lines.tolist(), "unread": sub.unread_ids,
            "labels": sub.labels.to_lists() if sub.labels is not None else None,
            "problems": [(p.code, p.severity, p.line, p.column, p.message) for p in sub.problems]}


def _read_both(monkeypatch, raw: bytes, d: CompetitionDefinition) -> tuple[dict, dict, list, list]:
    """(the reader's summary, the csv module's, what ``csv_records.records`` returned, whether the csv
    module's path was taken) of ``raw``."""
    taken, irregular = [], []
    records, read_irregular = csv_records.records, tokenize._read_irregular
    with monkeypatch.context() as m:
        m.setattr(csv_records, "records", lambda *a: taken.append(records(*a)) or taken[-1])
        m.setattr(tokenize, "_read_irregular", lambda *a: irregular.append(1) or read_irregular(*a))
        new = _summary(read_submission(raw, d, filename="s.csv"))
    with monkeypatch.context() as m:  # the csv module's path, record by record, and the strict cell rules
        strict_reading(m)
        m.setattr(tokenize, "_lines", lambda *a, **k: None)
        old = _summary(read_submission(raw, d, filename="s.csv"))
    return new, old, taken, irregular


# the row limit: a few rows either side of the file's records (a small limit alone would refuse most files
# by the line count, before they are tokenised)
_LIMIT_SLACK = st.integers(-3, 3)
_END = st.sampled_from(["\n", "\r\n", "\r"])
_TEXT = st.lists(st.sampled_from(["Q", "1", "-", "é", "x", " ", ",", '"', "\n", "\r", "\r\n"]), max_size=6).map("".join)
_ID = st.one_of(st.sampled_from(["Q-1", "Q-2", "x"]), _TEXT.map(lambda t: f"Q{t}1"))  # (no blank around it)
_LABELS = st.lists(st.integers(1, 9_999_999), max_size=3).map(lambda v: "[" + ", ".join(map(str, v)) + "]")


@st.composite
def _field(draw, text) -> str:
    """A field as a writer would quote it (quotes doubled, line ends kept inside the quotes), or bare
    where it can be."""
    value = draw(text)
    bare = not any(c in value for c in ',"\r\n')
    if bare and draw(st.booleans()):
        return value
    return '"' + value.replace('"', '""') + '"'


@st.composite
def _files(draw, clean: bool) -> tuple[bytes, int]:
    """A submission mixing line ends, blank lines, ragged rows, doubled quotes and quoted fields over
    several lines; unless ``clean``, some pieces the strict reader refuses or that only it reads (a quote
    in an unquoted field, text or blanks after a closing quote, a quote never closed). And its records."""
    lines = ['"qid","species"' if draw(st.booleans()) else "qid,species"]
    pieces = ["row", "row", "row", "row", "blank", "ragged"] + ([] if clean or draw(st.booleans()) else ["odd"])
    for _ in range(draw(st.integers(1, 30))):
        shape = draw(st.sampled_from(pieces))
        if shape == "blank":
            lines.append("")
        elif shape == "row":
            lines.append(draw(_field(_ID)) + "," + draw(_field(_LABELS)))
        elif shape == "ragged":
            lines.append(",".join(draw(st.lists(_field(st.sampled_from(["Q-1", "", "x", "[1]", 'a"b', "\r\n"])),
                                                min_size=1, max_size=5).map(lambda f: f + f if len(f) == 2 else f))))
        else:
            lines.append(draw(st.sampled_from(['x"y",[1]', '"x" ,[1]', '"x"y,[1]', '"x,[1]', '"x""', ' "x",[1]'])))
    text = "".join(line + draw(_END) for line in lines[:-1]) + lines[-1] + draw(st.sampled_from(["", "\n", "\r"]))
    return text.encode("utf-8"), len(lines) - 1


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_files(clean=False), _LIMIT_SLACK, st.sampled_from([4, 12, 100_000]), st.booleans())
def test_any_file_reads_as_the_csv_module_path_reads_it(monkeypatch, file, slack, max_cell_chars, few_tracked):
    raw, max_rows = file[0], max(1, file[1] + slack)
    with monkeypatch.context() as m:
        if few_tracked:  # the log's caps on distinct messages reached by a small file
            m.setattr(problems, "_DISTINCT_TRACKED", 3)
        new, old, _, _ = _read_both(m, raw, _definition(max_rows, max_cell_chars))
    assert new == old


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_files(clean=True), _LIMIT_SLACK)
def test_a_well_formed_file_is_never_read_by_the_csv_module(monkeypatch, file, slack):
    raw, max_rows = file[0], max(1, file[1] + slack)
    new, old, taken, irregular = _read_both(monkeypatch, raw, _definition(max_rows, 100_000))
    assert new == old
    assert not irregular
    pre_checked = any(p[0] == "too_many_rows" and "far more than" in p[4] for p in new["problems"])
    assert all(found is not None for found in taken)  # (it never declines a well-formed file)
    if b"\r" in raw.replace(b"\r\n", b"") and not pre_checked:
        assert taken  # lone CRs: the only numpy path that takes them


@pytest.mark.parametrize("raw, lines, ids", [
    (b'qid,species\rQ-1,[1]\r\rQ-2,[2]\r', [2, 4], ["Q-1", "Q-2"]),  # lone CRs, a blank line
    (b'qid,species\n"Q\r\n1","[1]"\n"Q-2",[2]', [2, 4], ["Q\r\n1", "Q-2"]),  # a field over two lines
    (b'qid,species\n"Q ""1""",[1]\n', [2], ['Q "1"']),  # doubled quotes: one quote each in the cell
    (b'qid,species\r\n"Q-""\r""",[1]\rQ-2,"[2]"\r\n', [2, 4], ['Q-"\r"', "Q-2"]),
], ids=["lone-cr", "multi-line", "doubled", "all-at-once"])
def test_each_shape_gives_the_cells_and_lines_the_csv_module_gives(monkeypatch, raw, lines, ids):
    new, old, taken, irregular = _read_both(monkeypatch, raw, _definition(10, 100))
    assert new == old and new["lines"] == lines and new["ids"] == ids and not irregular
    assert taken[-1] is not None


@pytest.mark.parametrize("raw", [
    b'qid,species\nx"y",[1]\n',  # a quote inside an unquoted field: text for the csv module
    b'qid,species\n"x"y,[1]\n',  # text after a closing quote
    b'qid,species\n"x,[1]\n',  # never closed
    b'qid,species\r"x" ,[1]\r',  # blanks after a quote in a lone-CR file
])
def test_quotes_out_of_place_are_left_to_the_csv_module(raw):
    assert csv_records.records(raw, ",") is None


def test_a_row_too_many_after_a_multi_line_field_is_named_on_its_first_line(monkeypatch):
    raw = b'qid,species\n"Q\n1",[1]\nQ-2,"[2]"\n"Q\n3",[3]\n'
    new, old, _, irregular = _read_both(monkeypatch, raw, _definition(2, 100))
    assert new == old and not irregular
    assert [(p[0], p[2]) for p in new["problems"] if p[1] == "error"] == [("too_many_rows", 5)]


def test_records_hold_int32_positions_for_a_file_of_lone_crs():
    found = csv_records.records(b"qid,species\r" + b"\r" * 1000, ",")
    assert found.starts.dtype == np.int32 and found.blank[1:].all() and found.lines[-1] == 1001


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["q", "\r", '"', ",", "é"]), max_size=12).map("".join))
def test_the_header_is_read_from_the_lines_a_string_buffer_gives(text):
    """A lone-CR file is one LF-less first line: its header is read from it a line at a time
    (``tokenize._cr_lines``), not from a buffer of the whole file, and the same lines come out."""
    import io

    assert list(tokenize._cr_lines(text)) == list(io.StringIO(text, newline=""))
