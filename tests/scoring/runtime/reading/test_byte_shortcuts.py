"""Property: each byte-level shortcut of the reader declines or gives what its plain-Python rule gives.

Every shortcut in ``scoring/runtime/reading/_csv_spans.py``, ``digit_lists.py``, ``cell_keys.py`` and
``id_cells.py`` must either decline (return None or False, so the caller takes the slow path) or give exactly
what the rule it stands in for gives (``parse_cell``, ``int``, ``check_ids``, a dict over the decoded strings,
``str.strip``, one pass over the bytes). Whole files: ``test_same_as_strict_rules.py``; the tokenizers against
the csv module: ``test_table_as_csv_module.py``. These properties feed them cells built to sit on the edges: spaces,
leading zeros, 18/19-digit numbers, numbers within 8 bytes of either end of the
buffer, quoted delimiters, missing final line ends.
"""

import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.problems import ProblemLog
from agrieval.scoring.runtime.reading import _cell_keys as cell_keys
from agrieval.scoring.runtime.reading import _csv_spans as csv_spans
from agrieval.scoring.runtime.reading import _digit_lists as digit_lists
from agrieval.scoring.runtime.reading._label_cells import parse_cell

plain = st.integers(0, 10**18 - 1).map(str)
odd = st.one_of(st.integers(10**18, 10**20).map(str), st.from_regex(r"0[0-9]{1,3}", fullmatch=True),
                st.sampled_from(["", " 1", "1 ", "-3", "+4", "1.0", "1e5", "x", "12a4"]))
digit_runs = st.one_of(plain, plain, plain, plain, plain, plain, odd)  # mostly well formed: both paths get used


@st.composite
def list_cells(draw) -> str:
    if draw(st.integers(0, 9)) < 8:  # a clean cell (a whole column of them reaches the fast path)
        return "[{}]".format(draw(st.sampled_from([", ", ","])).join(draw(st.lists(plain, max_size=6))))
    items = draw(st.lists(digit_runs, max_size=6))
    sep = draw(st.sampled_from([", ", ",", ",  ", " ,"]))
    wrap = draw(st.sampled_from(["[{}]", "[ {}]", "[{} ]", "{}", "[{}"]))
    return wrap.format(sep.join(items))


def _packed(cells: list[bytes], gap: int = 1, sep: bytes = b";") -> tuple[bytes, np.ndarray, np.ndarray]:
    """Fields laid out one after the other, ``gap`` separator bytes before each: (raw, starts, ends)."""
    raw, starts, ends = b"", [], []
    for c in cells:
        raw += sep * gap
        starts.append(len(raw))
        raw += c
        ends.append(len(raw))
    return raw, np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)


def _spans_of(raw: bytes, cells: list[str], prefix: bytes) -> tuple[np.ndarray, np.ndarray]:
    starts, ends, at = [], [], len(prefix)
    for c in cells:
        at += 1  # the opening quote
        starts.append(at)
        at += len(c.encode())
        ends.append(at)
        at += 2  # closing quote and line end
    return np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)


@settings(max_examples=400, deadline=None)
@given(st.lists(list_cells(), min_size=1, max_size=5), st.sampled_from([b"", b"x", b"header_line\n"]))
def test_int_lists_agrees_with_the_per_cell_parser(cells, prefix):
    raw = prefix + b"".join(b'"' + c.encode() + b'"\n' for c in cells)
    starts, ends = _spans_of(raw, cells, prefix)
    fast = digit_lists.int_lists(raw, starts, ends)
    log = ProblemLog()
    slow = [parse_cell(c, "python-list", log, 1, 1) for c in cells]
    if fast is None:
        return  # declined: the slow path decides
    assert not log.has_errors, f"fast path accepted {cells} that the slow path rejects"
    sizes, flat = fast
    assert sizes.tolist() == [len(v) for v in slow]
    assert flat.tolist() == [x for v in slow for x in v]


@st.composite
def fixed_width_cells(draw) -> list[str]:
    """Lists of numbers of one width (as PlantCLEF's 7-digit species ids), now and then an item of another
    width or another separator: cells whose lengths can add up as if every item had the width."""
    width = draw(st.integers(1, 18))
    sep = draw(st.sampled_from([", ", ","]))
    number = st.integers(10 ** (width - 1) if width > 1 else 0, 10**width - 1).map(str)
    other = st.one_of(digit_runs, st.integers(0, 10**18 - 1).map(str))
    cells = []
    for _ in range(draw(st.integers(1, 6))):
        items = draw(st.lists(st.one_of(number, number, number, other), max_size=5))
        between = [draw(st.sampled_from([sep, sep, sep, ", ", ",", ",  ", " ,"])) for _ in items[1:]]
        cells.append("[" + "".join(i + b for i, b in zip(items, between + [""])) + "]")
    return cells


@settings(max_examples=500, deadline=None)
@given(fixed_width_cells(), st.sampled_from([b"", b"header_line\n"]))
def test_fixed_width_lists_read_as_the_per_cell_parser(cells, prefix):
    """The fixed-width shortcut (item places from the cell's length) gives what the per-cell parser gives,
    and takes every column of one width and one separator."""
    raw = prefix + b"".join(b'"' + c.encode() + b'"\n' for c in cells)
    starts, ends = _spans_of(raw, cells, prefix)
    fast = digit_lists.int_lists(raw, starts, ends)
    log = ProblemLog()
    slow = [parse_cell(c, "python-list", log, 1, 1) for c in cells]
    bodies = [c[1:-1] for c in cells if c != "[]"]
    one_layout = any(bodies) and any(
        all(re.fullmatch(rf"[0-9]{{{w}}}(?:{sep}[0-9]{{{w}}})*", b) for b in bodies)
        for w in range(1, 19) for sep in (", ", ","))
    # (a number within 8 bytes of the buffer's start is declined anyway: only toy buffers have one)
    if one_layout and prefix and not any(re.search(r"(?:^|[ ,])0[0-9]", b) for b in bodies):
        assert fast is not None, f"declined the plain column {cells}"
    if fast is None:
        return
    assert not log.has_errors, f"fast path accepted {cells} that the slow path rejects"
    sizes, flat = fast
    assert sizes.tolist() == [len(v) for v in slow]
    assert flat.tolist() == [x for v in slow for x in v]


def test_fixed_width_lists_need_no_comma_positions():
    """Real 2025 cells (7-digit ids, ", "): read without locating a comma (item places from the lengths)."""
    cells = ["[1362443, 1360187, 1392059]", "[]", "[1395807]", "[1392608, 1395807]"]
    raw = b"h\n" + b"".join(b'"' + c.encode() + b'"\n' for c in cells)
    starts, ends = _spans_of(raw, cells, b"h\n")
    assert digit_lists._fixed_width_lists(raw, np.frombuffer(raw, np.uint8), starts, ends) is not None
    sizes, flat = digit_lists.int_lists(raw, starts, ends)
    assert sizes.tolist() == [3, 0, 1, 2]
    assert flat.tolist() == [1362443, 1360187, 1392059, 1395807, 1392608, 1395807]


def test_int_lists_takes_ordinary_cells():
    cells = ["[1395807, 1397463]", "[]", "[7,123456789012345678]"]
    raw = b'h\n' + b"".join(b'"' + c.encode() + b'"\n' for c in cells)
    starts, ends = _spans_of(raw, cells, b"h\n")
    assert [raw[s:e].decode() for s, e in zip(starts, ends)] == cells
    sizes, flat = digit_lists.int_lists(raw, starts, ends)
    assert sizes.tolist() == [2, 0, 2] and flat.tolist() == [1395807, 1397463, 7, 123456789012345678]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 10**18 - 1), min_size=1, max_size=20), st.integers(0, 9), st.integers(0, 9))
def test_parse_digit_runs_is_int(numbers, lead, trail):
    texts = [str(n) for n in numbers]
    raw = b"." * lead + b",".join(t.encode() for t in texts) + b"." * trail
    starts = lead + np.cumsum([0] + [len(t) + 1 for t in texts[:-1]])
    ends = starts + np.array([len(t) for t in texts])
    got = digit_lists.parse_digit_runs(raw, starts, ends)
    if got is None:  # declined only for a number in the first 8 bytes of the buffer (or a short buffer)
        assert ends.min() < 8 + 16 or len(raw) < 8
        return
    assert got.tolist() == numbers


def test_parse_digit_runs_declines_what_is_not_a_plain_integer():
    for body in [b"01", b"1 2", b"12x", b"1234567890123456789", b"-5", b""]:
        raw = b"........" + body + b"]"
        assert digit_lists.parse_digit_runs(raw, np.array([8]), np.array([8 + len(body)])) is None, body


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=30), max_size=10), st.integers(0, 3))
def test_gathered_cells_are_each_cell_then_a_line_end(cells, gap):
    assume(cells and gap + sum(map(len, cells)))  # (a buffer of no byte has nothing to gather from)
    got = csv_spans._gathered(*_packed(cells, gap, b"|")).tobytes()
    assert got == b"".join(x + b"\n" for x in cells)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=30), max_size=40), st.integers(0, 3), st.integers(1, 40))
def test_gathered_cells_in_blocks_of_any_size(cells, gap, block):
    """The gather runs a block of bytes at a time: any block size (one field longer than it included)
    gives the same buffer."""
    assume(cells and gap + sum(map(len, cells)))
    saved = csv_spans._GATHER_BLOCK
    csv_spans._GATHER_BLOCK = block
    try:
        got = csv_spans._gathered(*_packed(cells, gap, b"|")).tobytes()
    finally:
        csv_spans._GATHER_BLOCK = saved
    assert got == b"".join(x + b"\n" for x in cells)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=30), min_size=1, max_size=40), st.integers(0, 3), st.integers(1, 8),
       st.booleans())
def test_cell_words_are_each_cells_bytes_zero_padded_in_blocks_of_any_size(cells, gap, block, wrap):
    """Every chunk of every cell in one gather, a block of cells at a time (any block size), cells ending in
    the data's last 8 bytes included (``wrap``: a separator after the last cell, or none)."""
    raw, starts, ends = _packed(cells, gap, b"|")
    raw += b"|" if wrap else b""
    n_chunks = (max(map(len, cells)) + 7) // 8
    saved = cell_keys._WORD_BLOCK
    cell_keys._WORD_BLOCK = block
    try:
        got = cell_keys.cell_words(raw, starts, ends)
    finally:
        cell_keys._WORD_BLOCK = saved
    padded = [c + bytes(8 * n_chunks - len(c)) for c in cells]
    expected = np.array([[int.from_bytes(c[8 * k:8 * k + 8], "little") for c in padded] for k in range(n_chunks)],
                        dtype=np.uint64).reshape(n_chunks, len(cells))
    assert got.shape == expected.shape and np.array_equal(got, expected)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab-", max_size=4), max_size=6), st.data())
def test_checked_ids_match_a_column_only_when_every_id_is_equal(ids, data):
    """Reusing the solution's checked ids: never for a column that differs, line breaks included.

    (The solution's ids come from the tokenizer, which never gives a cell holding a line break; the
    submission's column here may hold them.)"""
    from agrieval.scoring.runtime.reading._id_cells import CheckedIds

    cells = data.draw(st.one_of(st.just(list(ids)), st.lists(st.text(alphabet="ab\n-", max_size=4), max_size=6)))
    checked = CheckedIds(_packed([i.encode() for i in ids], 2, b";"), None)
    assert checked.ids == ids
    same = checked.same_column(_packed([c.encode() for c in cells], 1, b","))
    assert same == (cells == ids)


ALLOWED = ["Public", "Private", "Ignored", "Ignored-by-the-host"]  # (the last one longer than 8 bytes)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALLOWED + ["public", "Publi", "Publicx", "", "P", "Ignored-by-the-hosT",
                                           "Ignored-by-the-hos"]), min_size=1, max_size=12),
       st.sampled_from([ALLOWED, ALLOWED[:3], ["Public", "", "Public"]]), st.sampled_from(["", "header\n"]))
def test_match_cells_is_exact_equality(values, allowed, prefix):
    """Each cell's index among the allowed values (the first of equal ones), -1 for none: values of up to 8
    bytes (one word per cell) and longer ones, cells near either end of the buffer."""
    raw = (prefix + "\n".join(values)).encode()
    lengths = np.array([len(v) for v in values])
    starts = len(prefix) + np.cumsum(np.concatenate([[0], lengths[:-1] + 1]))
    got = cell_keys.match_cells(raw, starts, starts + lengths, [v.encode() for v in allowed])
    assert got.tolist() == [allowed.index(v) if v in allowed else -1 for v in values]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=8),
                min_size=1, max_size=200), st.integers(0, 3))
def test_decode_spans_gives_each_field(fields, gap):
    """The gather-and-split decoding (64 fields or more) against one slice per field, UTF-8 included."""
    raw, starts, ends = _packed([f.encode() for f in fields], gap)
    assert csv_spans.decode_spans(raw, starts, ends) == fields
    order = np.argsort(-starts, kind="stable")  # fields in any order, not only file order
    assert csv_spans.decode_spans(raw, starts[order], ends[order]) == [fields[i] for i in order]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab-1", max_size=12), min_size=1, max_size=12, unique=True), st.data())
def test_checked_ids_find_their_order_in_a_shuffled_column_or_decline(ids, data):
    from agrieval.scoring.runtime.reading._id_cells import CheckedIds

    def column(cells):
        return _packed([c.encode() for c in cells])

    checked = CheckedIds(column(ids), None)
    assert checked.ids == ids
    cells = data.draw(st.one_of(st.permutations(ids), st.lists(st.sampled_from(ids + ["b", "zz"]),
                                                               min_size=len(ids), max_size=len(ids))))
    order = checked.order_in(column(cells))
    if order is not None:
        assert [cells[j] for j in order] == ids
    else:
        assert sorted(cells) != sorted(ids)  # every reordering is found (distinct ids, distinct 64-bit hashes)
    raw, starts, ends = column(ids + ids)
    hashes = cell_keys.words_hash(cell_keys.cell_words(raw, starts, ends), ends - starts)
    assert hashes[:len(ids)].tolist() == hashes[len(ids):].tolist()
    assert len(set(hashes[:len(ids)].tolist())) == len(ids)  # distinct ids, distinct hashes (64 bits)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab-1", min_size=1, max_size=20), min_size=1, max_size=12, unique=True),
       st.booleans(), st.randoms(use_true_random=False))
def test_compacted_ids_keep_their_words_and_still_match(ids, hashed, random):
    """A solution keeps its ids in bytes of their own (``CheckedIds.compact``), its words read from them (no
    second copy): the words are those of the kept cells, and an upload's ids still match row for row or in
    another order."""
    from agrieval.scoring.runtime.reading._id_cells import CheckedIds

    raw, starts, ends = _packed([i.encode() + b"," + b"x" * 40 for i in ids])  # (a file much larger than its ids)
    checked = CheckedIds((raw, starts, ends - 41), None)
    if hashed:
        checked._by_hash  # noqa: B018 (made before compacting, as plainly_valid does)
    kept = checked.compact()
    assert kept.cells[0] is not raw and kept.ids == ids
    words, length = kept._words
    assert np.array_equal(words, cell_keys.cell_words(*kept.cells)) and length.tolist() == [len(i) for i in ids]
    assert kept.same_column(_packed([i.encode() for i in ids]))
    shuffled = list(ids)
    random.shuffle(shuffled)
    order = kept.order_in(_packed([i.encode() for i in shuffled]))
    assert order is not None and [shuffled[j] for j in order] == ids


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200).map(lambda b: bytes(b'",\n;a\r'[x % 6] for x in b)), st.integers(1, 64),
       st.sampled_from([",", ";"]))
def test_structural_bytes_found_block_by_block_are_those_of_one_pass(raw, block, delimiter):
    a = np.frombuffer(raw, dtype=np.uint8)
    expected = np.flatnonzero((a == ord('"')) | (a == ord("\n")) | (a == ord(delimiter)))
    saved = csv_spans._SCAN_BLOCK
    csv_spans._SCAN_BLOCK = block
    try:
        got, n_cr = csv_spans._structural(a, ord(delimiter), count_cr=True)
    finally:
        csv_spans._SCAN_BLOCK = saved
    assert got.tolist() == expected.tolist() and n_cr == raw.count(b"\r")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["x", '"a,b"', '""', "", '"x', 'y"', "\r", '"a""b"', '""""""']), min_size=2,
                max_size=40)
       .map(lambda cells: "".join(c + ("\n" if k % 3 == 2 else ",") for k, c in enumerate(cells)).encode()),
       st.booleans(), st.integers(1, 16))
def test_field_spans_block_by_block_are_those_of_one_block(raw, cut_end, block):
    """``field_spans`` classifies the structural bytes a block at a time: quotes (a field's count carried
    across blocks, however many), CRs and records cut by a block's end give what reading the file as one
    block gives (spans or a decline)."""
    raw = raw[:-1] if cut_end else raw
    whole = csv_spans.field_spans(raw, ",", 3)
    saved = csv_spans._SPAN_BLOCK
    csv_spans._SPAN_BLOCK = block
    try:
        got = csv_spans.field_spans(raw, ",", 3)
    finally:
        csv_spans._SPAN_BLOCK = saved
    if whole is None:
        assert got is None
    else:
        assert got.starts.tolist() == whole.starts.tolist() and got.ends.tolist() == whole.ends.tolist()
        assert got.crlf_records == whole.crlf_records


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "ab", "CBN-Pla-A1", "CBN-Pla-A2", "b" * 9, "b" * 17]), max_size=30),
       st.data())
def test_cells_match_words_chunk_by_chunk_is_comparing_the_whole_tables(cells, data):
    """``same_column``'s test, a chunk at a time, is equality of the two ``cell_words`` tables."""
    other = data.draw(st.lists(st.sampled_from(cells or [""]), min_size=len(cells), max_size=len(cells)))
    mine, theirs = (_packed([c.encode() for c in x], 1, b",") for x in (cells, other))
    if not np.array_equal(mine[2] - mine[1], theirs[2] - theirs[1]):
        return  # (the caller compares the lengths first)
    expected = np.array_equal(cell_keys.cell_words(*theirs), cell_keys.cell_words(*mine))
    assert cell_keys.cells_match_words(*theirs, cell_keys.cell_words(*mine)) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "ab", "CBN-Pla-A1", "CBN-Pla-A1x", "b" * 9, "b" * 17, "é"]),
                max_size=40), st.booleans())
def test_cell_codes_number_equal_cells_alike_in_order_of_first_appearance(cells, grouped):
    """The byte-level group codes are exactly what a dict over the decoded strings gives."""
    from agrieval.scoring.runtime.grouping import group_codes

    if grouped:  # a solution sorted by id: each group's rows one after the other
        cells = sorted(cells)
    raw, starts, ends = _packed([c.encode() for c in cells], 1, b",")
    codes, first_rows = cell_keys.cell_codes(raw, starts, ends)
    want_codes, names = group_codes(cells)
    assert codes.tolist() == want_codes.tolist()
    assert [cells[r] for r in first_rows.tolist()] == names


def test_cell_codes_decline_when_different_cells_hash_alike(monkeypatch):
    monkeypatch.setattr(cell_keys, "words_hash", lambda words, length: np.zeros(len(length), dtype=np.uint64))
    assert cell_keys.cell_codes(*_packed([b"ab", b"cd", b"ab"])) is None
    codes, first = cell_keys.cell_codes(*_packed([b"ab", b"ab", b"ab"]))  # equal cells: one run, one code
    assert codes.tolist() == [0, 0, 0] and first.tolist() == [0]


# patterns a host may write that let through what check_ids refuses first (blank ids, spaces at an end)
_LAX_PATTERNS = [".+", ".*", "[ q1-][ q1-]*", "[q1 ]*", "q.*", "(q| )+", "[A-Za-z0-9][A-Za-z0-9_.-]*"]
# patterns of the shapes the shortcut takes whenever the ids are fine
_TAKEN = ("[A-Za-z0-9][A-Za-z0-9_.-]*", "[a-z][a-z0-9/-]*", "[B=][-2A1]*")
_SOLUTION_IDS = st.one_of(
    st.tuples(st.lists(st.sampled_from(["a1", "B-2", "a1 ", "", "=A1", "x.y", "a/b", "é1", "a1"]), min_size=1,
                       max_size=12),
              st.sampled_from([None, *_TAKEN, r"[a-z]\d", "a|b\\n?", "(?s).*", "[^,]+", "x\\.y", "[ab]+"])),
    st.tuples(st.lists(st.text(alphabet=["q", "1", "-", " ", "\t", "\u00a0", "\u00e9"], max_size=4), min_size=1,
                       max_size=6), st.sampled_from(_LAX_PATTERNS)))


@settings(max_examples=600, deadline=None)
@given(_SOLUTION_IDS)
def test_plainly_valid_ids_are_those_check_ids_accepts(ids_and_pattern):
    """The byte-level shortcut for a solution's ids (their bytes against the pattern's byte classes) is only ever
    sure of ids that ``check_ids`` accepts: blank ids, spaces at an end and repeats are left to it."""
    from types import SimpleNamespace

    from agrieval.scoring.runtime.reading._id_cells import CheckedIds, check_ids

    ids, pattern = ids_and_pattern
    checked = CheckedIds(_packed([i.encode() for i in ids], 1, b","), pattern)
    log = ProblemLog(file="solution.csv")
    check_ids(ids, np.arange(2, len(ids) + 2), 1, SimpleNamespace(id_pattern=pattern), log)
    assert checked.ids == ids
    if checked.plainly_valid():
        assert not log.has_errors
    if pattern in _TAKEN and not log.has_errors:
        assert checked.plainly_valid()


@pytest.mark.parametrize("pattern", [".+", "[ q0-9][ q0-9]*"])  # the per-id checks, the byte classes
@pytest.mark.parametrize("bad_id", [" q2", "q2 "])
def test_a_solution_id_with_spaces_at_an_end_is_refused_whatever_the_pattern(pattern, bad_id):
    """plainly_valid (the solution's ids checked without a string per id) must leave such an id to
    check_ids, which names it."""
    from agrieval.scoring.runtime.definition import CompetitionDefinition
    from agrieval.scoring.runtime.problems import HostError
    from agrieval.scoring.runtime.reading.solution import load_solution
    from agrieval.scoring.runtime.reading.submission import read_submission

    definition = CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                                       list_syntax="python-list", primary_metric="sample_f1", id_pattern=pattern)
    data = f"qid,species\nq1,[1]\n{bad_id},[2]\n".encode()
    with pytest.raises(HostError) as caught:
        load_solution(data, definition)
    assert "3:1: error [invalid_id] id 'q2' has leading or trailing spaces" in str(caught.value)
    sub = read_submission(data, definition)
    assert [(p.code, p.line) for p in sub.problems] == [("invalid_id", 3)]


def test_plainly_valid_reads_the_first_byte_by_its_own_class():
    """``[F][R]*``: the first byte may be one that R does not allow ("=" here), and a zero byte anywhere
    in an id is not taken for the padding of its words."""
    from agrieval.scoring.runtime.reading._id_cells import CheckedIds

    def valid(ids, pattern="[B=][-2A1]*"):
        return CheckedIds(_packed(ids, 1, b","), pattern).plainly_valid()

    assert valid([b"=A1", b"B-2", b"B"]) and valid([b"=" + b"A1" * 20])
    assert not valid([b"=A1", b"B=2"])  # '=' is allowed first only
    assert not valid([b"=A\x001"]) and not valid([b"=A1\x00"]) and not valid([b"\x00A1"])
    assert not valid([b"=A1", b"=A1"])  # a repeated id
    assert not valid([b"=A1", b""])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["T1", "", " ", "  x", "\u00a0", "\u3000", "\t", "x ", "é", "\u00a0é", "~"]),
                min_size=1, max_size=8))
def test_blank_group_names_found_from_their_bytes_as_by_strip(names):
    """A blank transect name (empty or only white space, Unicode spaces included) is found from the cells'
    bytes exactly when ``str.strip`` finds it."""
    from agrieval.scoring.runtime.reading.solution import _any_blank, _CellNames

    raw, starts, ends = _packed([n.encode() for n in names], 1, b",")
    cells = _CellNames(raw, starts, ends)
    assert list(cells) == names
    assert _any_blank(cells) == (not all(n.strip() for n in names))


@settings(deadline=None)
@given(st.binary(max_size=3000), st.integers(0, 255), st.sampled_from([1, 7, 1 << 18]))
def test_count_byte_is_bytes_count_across_blocks(raw, byte, block):
    """``count_byte`` (the line count that bounds a file before it is tokenised) against ``bytes.count``,
    with blocks small enough that every file spans several."""
    old = csv_spans._SCAN_BLOCK
    csv_spans._SCAN_BLOCK = block
    try:
        assert csv_spans.count_byte(raw, byte) == raw.count(bytes([byte]))
    finally:
        csv_spans._SCAN_BLOCK = old
