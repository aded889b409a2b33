"""The compiled readers of ``agrieval-native`` against their numpy twins and the per-cell parser.

``native.field_spans`` must give exactly what the numpy ``csv_spans.field_spans`` gives, and decline
exactly where it declines; ``native.int_lists`` must give what ``digit_lists.int_lists`` gives wherever
that accepts, and whatever it accepts must be what the per-cell parser (``parse_cell``) reads, cell by
cell, without a problem. (The numpy twin also declines a number within 8 bytes of the buffer's start,
which it reads as a word; the compiled one reads it: the per-cell parser is then the judge.)

Whole files through all three paths: ``test_fast_slow_agree.py`` and ``test_fast_path_adversarial.py``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from scoring.runtime.problems import ProblemLog
from scoring.runtime.reading import csv_spans, digit_lists, native
from scoring.runtime.reading.label_cells import parse_cell

pytestmark = pytest.mark.skipif(
    not native.available() and os.environ.get("AGRIEVAL_REQUIRE_NATIVE") != "1",
    reason="agrieval-native is not installed (pip install ./native; make test installs it)")


def test_installed_where_the_project_installs_it():
    """``make test`` installs it (and sets AGRIEVAL_REQUIRE_NATIVE): a build that failed must not pass as a skip."""
    assert native.available(), "agrieval-native is not importable: see `pip install ./native`"


def numpy_twin(fn, *args):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(native, "COMPILED", None)
        return fn(*args)


# ---- field_spans ---------------------------------------------------------------------------------------

_BYTES = ["a", "1", ",", ";", "\t", '"', "\r", "\n", "\r\n", " ", "[", "]", "é"]


@st.composite
def csv_like(draw) -> tuple[bytes, str, int]:
    """Mostly regular files (quoted or bare fields, CRLF or LF, with or without a last line end), with a
    stray byte now and then: quotes, CRs, delimiters, line ends in the wrong place."""
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    n_fields = draw(st.integers(2, 4))
    line_end = draw(st.sampled_from(["\n", "\r\n"]))
    rows = []
    for _ in range(draw(st.integers(1, 6))):
        fields = []
        for _ in range(n_fields):
            text = draw(st.text(alphabet=["a", "1", " ", "[", "]", delimiter, "é"], max_size=5))
            if delimiter in text or draw(st.booleans()):
                text = f'"{text}"'
            fields.append(text)
        rows.append(delimiter.join(fields))
    text = line_end.join(rows) + (line_end if draw(st.booleans()) else "")
    if draw(st.integers(0, 2)) == 0:  # a stray byte somewhere
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(_BYTES)) + text[at:]
    return text.encode(), delimiter, n_fields


@settings(max_examples=1500, deadline=None)
@given(csv_like())
def test_field_spans_are_those_of_the_numpy_tokenizer(case):
    raw, delimiter, n_fields = case
    got = csv_spans.field_spans(raw, delimiter, n_fields)
    want = numpy_twin(csv_spans.field_spans, raw, delimiter, n_fields)
    event("declined" if want is None else "read")
    assert (got is None) == (want is None)
    if want is not None:
        assert got.starts.tolist() == want.starts.tolist()
        assert got.ends.tolist() == want.ends.tolist()
        assert got.crlf_records == want.crlf_records


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40), st.sampled_from([",", ";"]), st.integers(2, 3))
def test_field_spans_on_any_bytes_decline_or_agree(raw, delimiter, n_fields):
    got = csv_spans.field_spans(raw, delimiter, n_fields)
    want = numpy_twin(csv_spans.field_spans, raw, delimiter, n_fields)
    assert (got is None) == (want is None)
    if want is not None:
        assert (got.starts.tolist(), got.ends.tolist()) == (want.starts.tolist(), want.ends.tolist())


def test_field_spans_with_a_wrong_line_count_decline_never_overrun():
    """The caller sizes the output from its count of line ends: a count too small declines."""
    raw = b"a,b\n1,2\n3,4\n"
    assert native.field_spans(raw, ",", 2, n_lines=1) is native.DECLINED
    assert native.field_spans(raw, ",", 2, n_lines=3)[0].tolist() == [[0, 2], [4, 6], [8, 10]]


# ---- int_lists -----------------------------------------------------------------------------------------

_plain = st.integers(0, 10**18 - 1).map(str)
_odd = st.one_of(st.integers(10**18, 10**20).map(str), st.from_regex(r"0[0-9]{1,3}", fullmatch=True),
                 st.sampled_from(["", " 1", "1 ", "-3", "+4", "1.0", "1e5", "x", "12a4", "\t5"]))


@st.composite
def list_cells(draw) -> str:
    if draw(st.integers(0, 9)) < 7:
        sep = draw(st.sampled_from([", ", ","]))
        width = draw(st.sampled_from([None, 7]))  # 7: PlantCLEF's species ids, the fixed-width reading
        item = st.integers(10**6, 10**7 - 1).map(str) if width else _plain
        return "[{}]".format(sep.join(draw(st.lists(item, max_size=6))))
    items = draw(st.lists(st.one_of(_plain, _odd), max_size=6))
    sep = draw(st.sampled_from([", ", ",", ",  ", " ,"]))
    wrap = draw(st.sampled_from(["[{}]", "[ {}]", "[{} ]", "{}", "[{}", "[[{}]]"]))
    return wrap.format(sep.join(items))


def _packed(cells: list[str], header: bytes) -> tuple[bytes, np.ndarray, np.ndarray]:
    raw, starts, ends = header, [], []
    for c in cells:
        raw += b'"'
        starts.append(len(raw))
        raw += c.encode()
        ends.append(len(raw))
        raw += b'"\n'
    return raw, np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)


@settings(max_examples=1500, deadline=None)
@given(st.lists(list_cells(), min_size=1, max_size=8), st.sampled_from([b"", b"q,s\n", b"quadrat_id,species\n"]))
def test_int_lists_read_what_numpy_and_the_per_cell_parser_read(cells, header):
    raw, starts, ends = _packed(cells, header)
    got = digit_lists.int_lists(raw, starts, ends)
    want = numpy_twin(digit_lists.int_lists, raw, starts, ends)
    event("declined" if got is None else "read")
    if want is not None:
        assert got is not None, "the compiled reader declined what numpy read"
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
    if got is not None:
        sizes, values = got
        log = ProblemLog()
        per_cell = [parse_cell(c, "python-list", log, 2, 2) for c in cells]
        assert not log.has_errors
        assert sizes.tolist() == [len(v) for v in per_cell]
        assert values.tolist() == [x for v in per_cell for x in v]


@pytest.mark.parametrize(("cell", "read"), [
    ("[]", []), ("[0]", [0]), ("[ 1]", [1]), ("[1, 2,3]", [1, 2, 3]), ("[999999999999999999]", [10**18 - 1]),
    ("[1000000000000000000]", None), ("[01]", None), ("[1,]", None), ("[1, ]", None), ("[ ]", None),
    ("[1,  2]", None), ("[1 ]", None), ("[-1]", None), ("[1;2]", None), ("1]", None), ("[1", None),
    ("[1.0]", None), ("[9999999999999999999999]", None),
])
def test_int_lists_edges(cell, read):
    raw, starts, ends = _packed([cell], b"q,s\n")
    got = native.int_lists(raw, starts, ends)
    assert (got is native.DECLINED) if read is None else (got[1].tolist() == read and got[0].tolist() == [len(read)])


def test_int_lists_out_of_range_spans_decline():
    raw = b'q,s\n1,"[1]"\n'
    assert native.int_lists(raw, np.array([7]), np.array([len(raw) + 5])) is native.DECLINED
    assert native.int_lists(raw, np.array([-1]), np.array([3])) is native.DECLINED


def test_the_switch_turns_it_off(tmp_path):
    """AGRIEVAL_NATIVE=0: the numpy readers alone, in a fresh process."""
    import subprocess
    import sys

    code = "from scoring.runtime.reading import native; print(native.available())"
    env = {**os.environ, "AGRIEVAL_NATIVE": "0"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"


# ---- cells compared as bytes (cell_keys, CheckedIds) -----------------------------------------------------

def _column(cells: list[str], filler: bytes = b"") -> tuple[bytes, np.ndarray, np.ndarray]:
    """Cells laid out one per line after ``filler``: (raw, starts, ends)."""
    raw, starts, ends = filler, [], []
    for c in cells:
        starts.append(len(raw))
        raw += c.encode()
        ends.append(len(raw))
        raw += b"\n"
    return raw, np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)


_ids = st.text(alphabet=["a", "b", "1", "-", "é", " "], max_size=19)  # up to 19 bytes: past two 8-byte words


@settings(max_examples=800, deadline=None)
@given(st.lists(_ids, min_size=1, max_size=30), st.binary(max_size=9))
def test_cell_codes_are_those_of_the_numpy_twin(cells, filler):
    from scoring.runtime.reading import cell_keys

    column = _column(cells, filler.replace(b"\n", b""))
    got = cell_keys.cell_codes(*column)
    want = numpy_twin(cell_keys.cell_codes, *column)
    assert want is not None  # (a 64-bit hash collision in 30 short cells: not expected)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@settings(max_examples=800, deadline=None)
@given(st.lists(_ids, min_size=1, max_size=20), st.sampled_from(["[a-z][a-z0-9-]*", "[a1][ab1é-]*", "[0-9][ab]*"]))
def test_ids_plainly_valid_as_the_numpy_twin_finds(cells, pattern):
    from scoring.runtime.reading.submission import CheckedIds

    column = _column(cells)
    assert CheckedIds(column, pattern).plainly_valid() == numpy_twin(CheckedIds(column, pattern).plainly_valid)


@settings(max_examples=800, deadline=None)
@given(st.lists(_ids, min_size=1, max_size=20, unique=True), st.data())
def test_same_column_and_order_in_as_the_numpy_twins_find(cells, data):
    from scoring.runtime.reading.submission import CheckedIds

    theirs = data.draw(st.one_of(st.permutations(cells), st.lists(st.sampled_from(cells), min_size=len(cells),
                                                                  max_size=len(cells)),
                                 st.lists(_ids, min_size=len(cells), max_size=len(cells))))
    mine, other = _column(cells), _column(theirs, b"q,species\n")
    assert CheckedIds(mine, None).same_column(other) == numpy_twin(CheckedIds(mine, None).same_column, other)
    got = CheckedIds(mine, None).order_in(other)
    want = numpy_twin(CheckedIds(mine, None).order_in, other)
    event("reordered" if want is not None else "not the same ids")
    assert (got is None) == (want is None)
    if want is not None:
        assert got.tolist() == want.tolist()


def test_cells_out_of_their_buffer_decline():
    raw = b"abc\n"
    assert native.distinct_cells(raw, np.array([0, 2]), np.array([3, 9])) is None
    assert native.cells_equal((raw, np.array([0]), np.array([3])), (raw, np.array([-1]), np.array([3]))) is None
