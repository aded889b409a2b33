"""Prediction cells to labels, strictly, with a problem per bad cell.

Integer lists are read straight from the cells' bytes (``digit_lists.int_lists``)
when every cell is plainly well formed; otherwise each cell goes through
``parse_cell``, the specification, which also words each problem. Before either,
the number of items of every cell long enough to hold too many is counted: a
row over ``limits.max_labels_per_row`` is refused (``too_many_labels``) and not
read further, whatever else its cell holds.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..definition import CompetitionDefinition, shipped_competitions
from ..labelsets import LabelSets
from ..problems import ProblemLog
from . import _digit_lists as digit_lists
from ._csv_spans import decode_spans

# Imported inside functions, so that importing this module loads only what it needs: unicodedata, needed only to
# explain a problem (`agrieval score` does not load it).

if TYPE_CHECKING:
    from ._tokenize import Table

_MISSING = {"", "nan", "none", "null", "na", "n/a", "<na>"}
_SHOW = 60  # characters of a bad cell shown back in a message


def _show(cell: str) -> str:
    return repr(cell if len(cell) <= _SHOW else cell[:_SHOW] + "...")


def parse_multilabel_column(tab: "Table", definition: CompetitionDefinition, log: ProblemLog) -> LabelSets:
    """Label sets of the prediction column (a row refused has no label)."""
    column = tab.header.index(definition.prediction_column) + 1
    raw, starts, ends = tab.spans(definition.prediction_column)
    lines = tab.lines
    over = _too_many_items(raw, starts, ends, definition, lines, column, log)
    kept = np.flatnonzero(~over) if over.any() else None
    if kept is not None:
        starts, ends = starts[kept], ends[kept]
    found = digit_lists.int_lists(raw, starts, ends) if definition.list_syntax == "python-list" else None
    if found is None:
        found = _cell_by_cell(decode_spans(raw, starts, ends), lines if kept is None else lines[kept], column,
                              definition, log)
    sizes, flat = found
    if kept is not None:
        sizes = np.zeros(len(over), dtype=np.int64)
        sizes[kept] = found[0]
    sets, had_repeat = LabelSets.from_flat(sizes, flat, overwrite=True)  # (flat: read here, given up)
    _check_sets(sets, had_repeat, lines, column, definition, log)
    return sets


def _too_many_items(raw: bytes, starts: np.ndarray, ends: np.ndarray, definition: CompetitionDefinition,
                    lines: np.ndarray, column: int, log: ProblemLog) -> np.ndarray:
    """For each cell whether it lists more items than ``limits.max_labels_per_row`` (``too_many_labels``
    logged), counted as ``parse_cell`` splits it. Only cells long enough to hold that many are looked at:
    k items take at least 2k - 1 characters (one digit each and a separator between)."""
    limit = definition.limits.max_labels_per_row
    over = np.zeros(len(starts), dtype=bool)
    for row in np.flatnonzero(ends - starts > 2 * limit).tolist():
        cell = raw[starts[row]:ends[row]].decode("utf-8").strip()
        if definition.list_syntax == "python-list":
            body = cell[1:-1]
            n = body.count(",") + 1 if cell[:1] == "[" and cell[-1:] == "]" and body.strip() else 0
        else:
            n = len(cell.split())
        if n > limit:
            over[row] = True
            log.error("too_many_labels", f"{n:,} labels in one row; at most {limit:,} are accepted",
                      int(lines[row]), column)
    return over


def _cell_by_cell(cells: Sequence[str], lines: np.ndarray, column: int,
                  definition: CompetitionDefinition, log: ProblemLog) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, concatenated labels) by ``parse_cell`` (a bad cell: no label, and its problem logged)."""
    sizes = np.zeros(len(cells), dtype=np.int64)
    flat: list[int] = []
    hint = names_hint(definition)
    for i, cell in enumerate(cells):
        values = parse_cell(cell, definition.list_syntax, log, int(lines[i]), column, names_hint=hint)
        if values is not None:
            sizes[i] = len(values)
            flat.extend(values)
    return sizes, np.asarray(flat, dtype=np.int64)


def names_hint(definition: CompetitionDefinition) -> str:
    """What to say when species are written as names: where the integer ids are listed and how to find one.
    Nothing of the solution: the vocabulary is public (it ships with the competition's definition)."""
    if definition.label_type != "int":
        return ""

    n = f"the {len(definition.labels):,} " if definition.labels is not None else "the "
    where = (f"`agrieval competitions show {definition.name}` prints where" if definition.name in
             shipped_competitions() else "see the competition's definition")
    return (f"; species are written as integer ids, not names: {n}ids are listed one per line in the "
            f"competition's vocabulary file ({where}); find a name's id in the organizers' species list "
            "(its species_id column) and write that number")


def _looks_like_name(text: str) -> bool:
    """Whether a label is a species name ('Poa annua', 'Festuca rubra L.') rather than a mistyped number."""
    # letters and `` .-'×`` only, two letters at least: the letters left once those are taken out (in C: a
    # loop over the characters took 20 ms a 19,000-character cell)
    letters = text.strip().strip("'\"").strip().translate(_NAME_MARKS)
    return len(letters) >= 2 and letters.isalpha()


_NAME_MARKS = str.maketrans("", "", " .-'×")


def parse_cell(cell: str, syntax: str, log: ProblemLog, line: int, column: int, *,
               names_hint: str = "") -> list[int] | None:
    """One cell to a list of ints, or None with the reason logged. ``names_hint``: said after a label written
    as a species name (``names_hint(definition)``)."""
    odd = _odd_blank(cell)
    if odd is not None:
        log.error("list_syntax", f"the prediction {_show(cell)} holds {odd}, which is not a space: only spaces, "
                  "tabs and line ends may stand between items (as in Python); type a plain space instead",
                  line, column)
        return None
    stripped = cell.strip()
    if stripped.lower() in _MISSING:
        what = "empty" if not stripped else f"{stripped!r}"
        empty = "[]" if syntax == "python-list" else "an empty cell"
        if syntax == "space-separated" and not stripped:
            return []
        log.error("missing_value", f"the prediction is {what}; write {empty} for no species", line, column)
        return None
    if syntax == "python-list":
        if cell[:1].isspace() and stripped.startswith('"'):
            log.error("list_syntax", f"a space stands before the opening quote of {_show(cell)}: the CSV reader "
                      "then keeps the quotes as text; remove the space after the delimiter", line, column)
            return None
        if not (stripped.startswith("[") and stripped.endswith("]")):
            named = names_hint if all(_looks_like_name(t) for t in re.split(r"[,;|]", stripped)) else ""
            log.error("list_syntax", f"expected a list such as [1395807, 1397463], got {_show(cell)}{named}",
                      line, column)
            return None
        body = stripped[1:-1]
        if "[" in body:
            log.error("nested_list", f"lists inside the list are not accepted: {_show(cell)}", line, column)
            return None
        if "]" in body:
            log.error("list_syntax", f"a stray ']' inside the list {_show(cell)}; write one list such as "
                      "[1395807, 1397463]", line, column)
            return None
        if not body.strip():
            return []
        tokens = [t.strip() for t in body.split(",")]
    else:
        tokens = stripped.split()
    values: list[int] = []
    for tok in tokens:
        v = _parse_int_token(tok, cell, log, line, column, names_hint)
        if v is None:
            return None
        values.append(v)
    return values


# The blanks Python's own parser allows in a list; str.strip() and str.split() also take U+00A0, U+3000,
# \x1c-\x1f, \x0b, U+0085, U+2028... for blanks, which would make a pasted no-break space invisible.
_LIST_BLANKS = frozenset(" \t\x0c\r\n")


def _odd_blank(cell: str) -> str | None:
    """The first blank of ``cell`` that is not one of ``_LIST_BLANKS``, named, or None."""
    if cell.isascii() and cell.isprintable():  # the usual case, at C speed
        return None
    for c in cell:
        if c.isspace() and c not in _LIST_BLANKS:
            return _named(c)
    return None


def _named(c: str) -> str:
    """A character by its Unicode name and code point: ``no-break space (U+00A0)``."""
    import unicodedata

    return f"{unicodedata.name(c, 'a control character').lower()} (U+{ord(c):04X})"


def _parse_int_token(tok: str, cell: str, log: ProblemLog, line: int, column: int,
                     names_hint: str = "") -> int | None:
    if tok == "":
        log.error("list_syntax", f"empty item in the list (a doubled or trailing comma?): {_show(cell)}", line, column)
        return None
    if tok.lower() in _MISSING or tok.lower() in {"inf", "-inf", "+inf", "infinity"}:
        log.error("missing_value", f"{tok!r} is not a species id: {_show(cell)}", line, column)
        return None
    body = tok[1:] if tok[0] in "+-" else tok
    if body.isdigit() and body.isascii():
        if tok[0] == "-":
            log.error("negative_label", f"label {tok} is negative", line, column)
            return None
        if tok[0] == "+":
            log.error("non_integer_label", f"write {body} without a sign", line, column)
            return None
        if len(body) > 1 and body[0] == "0":
            log.error("leading_zero_label", f"label {tok} has leading zeros", line, column)
            return None
        if len(body) > 18:
            log.error("label_too_large", f"label {tok[:24]} has {len(body)} digits; no valid id is that large", line, column)
            return None
        return int(body)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)", tok):
        log.error("float_label", f"label {tok} is written as a float; write the integer id", line, column)
        return None
    named = names_hint if _looks_like_name(tok) else ""
    if tok[:1] in "'\"":
        log.error("non_integer_label", f"label {_show(tok)} is quoted text; write the bare integer id{named}",
                  line, column)
        return None
    if re.fullmatch(r"\d+(\s+\d+)+", tok):  # what writing a numpy array gives: [1355868 1355869]
        log.error("non_integer_label", f"label {_show(tok)} is several ids separated by spaces, as a numpy array "
                                       "prints; separate them with commas, e.g. [1, 2, 3] (write "
                                       "str(list(map(int, arr))) for an array arr, not str(arr))", line, column)
        return None
    log.error("non_integer_label", f"label {_show(tok)} is not an integer species id{named}", line, column)
    return None


def _check_sets(sets: LabelSets, had_repeat: np.ndarray, lines: np.ndarray, column: int,
                definition: CompetitionDefinition, log: ProblemLog) -> None:
    if had_repeat.any():
        rows = np.flatnonzero(had_repeat)
        shown = ", ".join(str(int(lines[i])) for i in rows[:10])
        more = f" and {len(rows) - 10} more" if len(rows) > 10 else ""
        log.warning("duplicate_label", f"{len(rows)} rows repeat a label within their list (lines {shown}{more}); "
                    "a repeated label counts once", int(lines[rows[0]]), column)
    lookup = definition.int_label_lookup
    if lookup is not None and len(sets.labels):
        # one table lookup per label (ids are < 2e6) instead of a sort-based isin
        if int(sets.labels.max()) < len(lookup):  # the usual case: no label past the table
            bad = ~lookup[sets.labels]
        else:
            in_range = sets.labels < len(lookup)
            bad = ~in_range
            bad[in_range] = ~lookup[sets.labels[in_range]]
        if bad.any():
            rows = sets.row_of_label[bad]
            for r, lab in list(zip(rows.tolist(), sets.labels[bad].tolist()))[:200]:
                log.error("unknown_label", f"species id {lab} is not in this competition's vocabulary",
                          int(lines[r]), column)


def parse_multiclass(cells: Sequence[str], lines: np.ndarray, column: int,
                     definition: CompetitionDefinition, log: ProblemLog) -> list[str | None]:
    """One class name per cell; an unknown class gets a closest-name suggestion."""
    vocab = definition.labels
    out: list[str | None] = []
    for i, cell in enumerate(cells):
        line = int(lines[i])
        if cell.strip().lower() in _MISSING:
            log.error("missing_value", "the predicted class is empty or NaN", line, column)
            out.append(None)
        elif vocab is not None and cell not in vocab:
            close = difflib.get_close_matches(cell.strip().lower(), sorted(vocab), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; classes: {', '.join(sorted(vocab))}"
            odd = next((c for c in cell if not c.isascii() or not c.isprintable()), None)
            if odd is not None:  # a look-alike letter (Cyrillic 'е' for 'e') reads the same on screen
                hint = f"; character {odd!r} (U+{ord(odd):04X}) is not an ASCII letter{hint}"
            log.error("unknown_label", f"class {_show(cell)} is not one of this competition's classes{hint}",
                      line, column)
            out.append(None)
        else:
            out.append(cell)
    return out
