"""Every limit of the definition is checked before the work it protects, on the one reading path.

``max_labels_per_row``: the items of a cell are counted (from its separators, as
``parse_cell`` splits it) before any label is read, sorted or matched; a row over
the limit is refused as ``too_many_labels`` and its cell goes no further. Before
issue 32 the limit was checked on the label sets already read and sorted: a
50 MB upload of huge lists was sorted first (60 s with the compiled twins, a
time-limit verdict; 8 s without them, ``too_many_labels``: two verdicts for one
file).
"""

from __future__ import annotations

import dataclasses

import pytest

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.labelsets import LabelSets
from agrieval.scoring.runtime.reading import _digit_lists as digit_lists
from agrieval.scoring.runtime.reading import _label_cells as label_cells
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.runtime.reading.strict_reading import strict_reading

SPECIES = sorted(load_competition("plantclef2025").labels)[:3000]


def _roomy(limit: int):
    """plantclef2025 with room for long lists in bytes and cells, and ``limit`` labels per row."""
    d = load_competition("plantclef2025")
    return dataclasses.replace(d, limits=dataclasses.replace(d.limits, max_bytes=10**9, max_cell_chars=10**7,
                                                             max_labels_per_row=limit))


def _upload(n_rows: int, huge_every: int, huge: int, syntax_sep: str = ", ") -> bytes:
    rows = ["quadrat_id,species_ids"]
    for i in range(n_rows):
        k = huge if i % huge_every == 0 else 3
        rows.append(f'Q{i},"[{syntax_sep.join(map(str, SPECIES[:k]))}]"')
    return ("\n".join(rows) + "\n").encode()


def _spy(monkeypatch) -> list[int]:
    """The longest cell each label reader was handed, and the labels given to LabelSets."""
    seen: list[int] = []
    int_lists, from_flat = digit_lists.int_lists, LabelSets.from_flat.__func__

    def spy_lists(raw, starts, ends):
        seen.append(int((ends - starts).max()) if len(starts) else 0)
        return int_lists(raw, starts, ends)

    def spy_sets(cls, sizes, flat, **options):
        seen.append(-int(sizes.max()) if len(sizes) else 0)
        return from_flat(cls, sizes, flat, **options)

    monkeypatch.setattr(digit_lists, "int_lists", spy_lists)
    monkeypatch.setattr(LabelSets, "from_flat", classmethod(spy_sets))
    return seen


def test_rows_over_the_label_limit_are_refused_before_their_labels_are_read(monkeypatch):
    definition = _roomy(limit=500)
    data = _upload(n_rows=400, huge_every=20, huge=2500)  # 20 rows of 2,500 labels: 8.6 MB
    seen = _spy(monkeypatch)
    sub = read_submission(data, definition)
    codes = [p.code for p in sub.errors]
    assert codes == ["too_many_labels"] * 3 + ["too_many_problems"]  # one message: said three times, counted
    assert sub.errors[-1].message.startswith("the [too_many_labels] message of line 2, again on 17 more line(s)")
    first = next(p for p in sub.errors if p.code == "too_many_labels")
    assert (first.line, first.column) == (2, 2)
    assert first.message == "2,500 labels in one row; at most 500 are accepted"
    longest_read, most_labels = seen[0], -seen[1]
    assert longest_read < 100 and most_labels == 3  # no refused cell reached the list reader or the sort
    assert sub.labels.sizes[0] == 0 and sub.labels.sizes[1] == 3


def test_a_cell_at_the_limit_is_read_and_one_past_it_is_refused():
    definition = _roomy(limit=500)
    for k, refused in ((500, False), (501, True)):
        sub = read_submission(_upload(n_rows=3, huge_every=2, huge=k, syntax_sep=","), definition)
        assert ("too_many_labels" in [p.code for p in sub.errors]) is refused, k
        if not refused:
            assert sub.ok and sub.labels.sizes.tolist() == [500, 3, 500]


@pytest.mark.parametrize("cell", ["[1, 2, x" + ", 3" * 600 + "]", "[" + "01, " * 600 + "1]",
                                  "[" + ", ".join(["1.0"] * 600) + "]"])
def test_a_row_over_the_limit_has_one_verdict_whatever_else_its_cell_holds(monkeypatch, cell):
    """Bad items in a refused cell are not read: the verdict is the limit, by the fast path and by the
    strict per-cell reader alike."""
    definition = _roomy(limit=500)
    data = f'quadrat_id,species_ids\nQ1,"{cell}"\nQ2,"[{SPECIES[0]}]"\n'.encode()
    fast = read_submission(data, definition)
    with monkeypatch.context() as m:
        strict_reading(m)
        slow = read_submission(data, definition)
    assert [p.as_dict() for p in fast.problems] == [p.as_dict() for p in slow.problems]
    assert [(p.code, p.line) for p in fast.errors] == [("too_many_labels", 2)]


def test_space_separated_lists_are_counted_as_parse_cell_splits_them():
    d = _roomy(limit=4)
    d = dataclasses.replace(d, list_syntax="space-separated")
    a, b, c, e, f = SPECIES[:5]
    data = f"quadrat_id,species_ids\nQ1,{a}  {b}\t{c} {e} {f}\nQ2,{a} {b} {c} {e}\n".encode()
    sub = read_submission(data, d)
    assert [(p.code, p.line, p.message) for p in sub.errors] == [
        ("too_many_labels", 2, "5 labels in one row; at most 4 are accepted")]
    assert sub.labels.sizes.tolist() == [0, 4]
    assert label_cells.parse_cell("1  2\t3 4 5", "space-separated", None, 2, 2) == [1, 2, 3, 4, 5]


_PLANTCLEF = load_competition("plantclef2025")
_HEAD = b"quadrat_id,species_ids\n"


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"], ids=["lf", "cr", "crlf"])
def test_every_kind_of_line_end_meets_the_line_count_pre_check(end):
    n = 2 * _PLANTCLEF.limits.max_rows + 3
    sub = read_submission(_HEAD.replace(b"\n", end) + end * n, _PLANTCLEF)
    errors = [(p.code, p.line) for p in sub.errors]
    assert errors == [("too_many_rows", 2 * _PLANTCLEF.limits.max_rows + 3)]
    assert f"the file has {n + 1:,} lines" in sub.errors[0].message
