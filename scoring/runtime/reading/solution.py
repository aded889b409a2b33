"""Read the organizer's solution (ground truth). Any problem is host-side: HostError, exit 3."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from ..definition import CompetitionDefinition
from ..grouping import group_codes, group_ids
from ..labelsets import LabelSets
from ..problems import HostError, Problem, ProblemLog
from . import _cell_keys as cell_keys
from . import _csv_spans as csv_spans
from . import _label_cells as label_cells
from . import _tokenize as tokenize
from ._bytes_checks import checked_utf8, read_limited
from ._id_cells import CheckedIds, check_ids  # the same id rules as for submissions
from ._id_lengths import refuse_long_ids

SPLITS = ("public", "private", "ignored")
_SPLIT_DTYPE = "<U7"


@dataclass
class Solution:
    """A read solution: each id's split and group (transect or team), its labels or classes, and the host-side
    warnings of the file (never shown to participants)."""

    split: np.ndarray  # "public" / "private" / "ignored" per id
    group_source: str  # "column 'transect_id'" or "rule 'strip-date'"...
    labels: LabelSets | None = None
    classes: list[str] | None = None
    path: str | None = None
    checked_ids: CheckedIds | None = None  # the id column's bytes: lets a submission with the same ids skip its checks
    warnings: list = field(default_factory=list)  # host-side problems of the solution (never shown to participants)
    has_split_column: bool = True  # False: the file has no split column, so every row is public
    # set by ``load_solution`` unless the cells give them without a string per row (see ``ids``, ``groups``)
    id_list: list[str] | None = None
    group_list: list[str] | None = None
    # what the scorer finds from this solution alone (the split rows, the metrics' true side): made for the first
    # upload scored against it and kept with the objects it was made from (``scorer.derived``)
    derived: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def ids(self) -> list[str]:
        """Every id the submission must contain (Ignored rows included)."""
        if self.id_list is None:
            self.id_list = self.checked_ids.ids
        return self.id_list

    @property
    def groups(self) -> list[str]:
        """Transect / team per id."""
        if self.group_list is None:
            codes, names = self.group_codes
            self.group_list = list(map(list(names).__getitem__, codes.tolist()))
        return self.group_list

    @cached_property
    def group_codes(self) -> tuple[np.ndarray, list[str]]:
        """Integer code per id (groups numbered in order of first appearance) and each code's name."""
        return group_codes(self.groups)

    def index_of(self) -> dict[str, int]:
        return {id_: i for i, id_ in enumerate(self.ids)}

    def mask(self, split: str) -> np.ndarray:
        return self.split == split


def load_solution(source: str | Path | bytes, definition: CompetitionDefinition) -> Solution:
    """The solution (a path, or the file's bytes); a ``HostError`` for any problem."""
    name = Path(source).name if not isinstance(source, bytes) else "solution.csv"
    log = ProblemLog(file=name, per_code=5)
    big = 10 * 1024**3  # the solution is trusted; the byte limit protects against submissions
    data = source if isinstance(source, bytes) else _read(source, big, log)
    clean = checked_utf8(data, log) if data is not None else None
    spec = definition.split
    group_col = definition.grouping.solution_column if definition.grouping else None
    optional = [c for c in (spec.column, group_col) if c]
    tab = None
    if clean is not None:
        tab = tokenize.parse(clean, delimiter=definition.delimiter, required=definition.expected_columns,
                             optional=optional, allow_extra=True, max_rows=10**8, max_cell_chars=10**7, log=log,
                             what="competition's solution")
    if tab is None or log.has_errors:
        _fail(name, log)

    if not refuse_long_ids(tab, definition.id_column, definition.max_id_chars, log,
                           what="ids (limits.max_id_chars, or the id pattern's maximum)"):
        _fail(name, log)  # the organizer raises limits.max_id_chars: submissions' ids are capped by it
    pred_col = tab.header.index(definition.prediction_column) + 1
    id_col = tab.header.index(definition.id_column) + 1
    raw, starts, ends = tab.spans(definition.id_column)
    # the id column's own starts and ends: views would keep every column's spans alive
    checked = CheckedIds((raw, np.ascontiguousarray(starts), np.ascontiguousarray(ends)), definition.id_pattern)
    ids = None
    if not checked.plainly_valid():
        ids = checked.ids
        check_ids(ids, tab.lines, id_col, definition, log)
    checked = checked.compact()
    labels = classes = None
    if definition.task == "multilabel":
        labels = label_cells.parse_multilabel_column(tab, definition, log)
    else:
        cells = tab.column(definition.prediction_column)
        parsed = label_cells.parse_multiclass(cells, tab.lines, pred_col, definition, log)
        classes = [c or "" for c in parsed]
    split = _read_split(tab, definition, log)
    if log.has_errors:
        _fail(name, log)

    sol = Solution(split=split, group_source="none (each row its own group)", labels=labels, classes=classes,
                   path=str(source) if not isinstance(source, bytes) else None, checked_ids=checked, id_list=ids,
                   has_split_column=definition.split.column in tab.header)
    if group_col and group_col in tab.header:
        sol.group_source = f"column {group_col!r}"
        codes = _column_codes(tab, group_col)
        sol.__dict__["group_codes"] = codes  # the cached property's value (``groups`` is made from it)
        if _any_blank(codes[1]):
            empty = [int(tab.lines[i]) for i, g in enumerate(sol.groups) if not g.strip()]
            raise HostError("solution_invalid", f"{name}: empty {group_col!r} on lines {empty[:5]}")
    elif definition.grouping and definition.grouping.rule != "column-only":
        sol.group_list = group_ids(sol.ids, definition.grouping)
        sol.group_source = f"rule {definition.grouping.rule!r}"
    elif definition.grouping:
        raise HostError("solution_invalid", f"{name}: the solution needs the column {group_col!r} "
                        f"({definition.grouping.name} of each row) for this competition")
    else:
        sol.group_list = sol.ids
    sol.warnings = _label_leak_warnings(name, sol.ids if classes is not None else [], classes, definition)
    return sol


def _column_codes(tab: tokenize.Table, column: str) -> tuple[np.ndarray, Sequence[str]]:
    """``group_codes`` of a column, from its bytes (no string per row, and the names decoded only when
    asked for)."""
    cells = tab.spans(column)
    found = cell_keys.cell_codes(*cells)
    if found is None:
        return group_codes(tab.column(column))
    codes, first_rows = found
    raw, starts, ends = cells
    return codes, _CellNames(*cell_keys.compact_cells(raw, starts[first_rows], ends[first_rows]))


class _CellNames(Sequence):
    """The text of some cells (one per group), decoded on first use: scoring needs only the codes."""

    def __init__(self, raw: bytes, starts: np.ndarray, ends: np.ndarray):
        self.raw, self.starts, self.ends = raw, starts, ends

    @cached_property
    def _names(self) -> list[str]:
        return csv_spans.decode_spans(self.raw, self.starts, self.ends)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        return self._names[i]

    def __eq__(self, other) -> bool:  # as the list of names it stands for
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # (mutable-looking, like the list)

    def __repr__(self) -> str:
        return repr(self._names)


def _any_blank(names: Sequence[str]) -> bool:
    """Whether a name is empty or only spaces (``not name.strip()``); for ``_CellNames`` from their
    bytes, decoding only those that do not start with a visible ASCII character."""
    if not isinstance(names, _CellNames):
        return not all(map(str.strip, names))
    head = np.frombuffer(names.raw, dtype=np.uint8)[np.minimum(names.starts, max(len(names.raw) - 1, 0))] \
        if len(names.raw) else np.zeros(len(names), dtype=np.uint8)
    visible = (names.ends > names.starts) & (head > 0x20) & (head < 0x7F)
    unsure = np.flatnonzero(~visible)
    return any(not names.raw[s:e].decode("utf-8").strip()
               for s, e in zip(names.starts[unsure].tolist(), names.ends[unsure].tolist()))


def _label_leak_warnings(name: str, ids: list, classes: list | None, definition: CompetitionDefinition) -> list:
    """A host-side warning when the ids carry their own class (``team_a/caroubier/img_00.jpg``): every
    participant could then score 1.0 by reading the truth from the ids."""
    if classes is None or not ids:
        return []
    leaking = sum(1 for id_, cls in zip(ids, classes) if cls and _token_in(cls.lower(), id_.lower()))
    if leaking * 2 < len(ids):
        return []
    example = next(i for i, c in zip(ids, classes) if c and _token_in(c.lower(), i.lower()))
    return [Problem("ids_reveal_labels", f"{leaking:,} of the {len(ids):,} ids of {name} contain their own class "
                    f"label (e.g. {example[:80]!r}): a submission can read the truth from them; give the test images "
                    "ids without the class (`agrieval data splits` writes such ids) before publishing",
                    "warning", file=name)]


def _token_in(label: str, text: str) -> bool:
    """``label`` appears in ``text`` between separators (``/``, ``_``, ``-``, ``.``, start or end)."""
    return re.search(rf"(?:^|[/\\._-]){re.escape(label)}(?:$|[/\\._-])", text) is not None


def _read(path: str | Path, limit: int, log: ProblemLog) -> bytes | None:
    try:
        return read_limited(path, limit, log)
    except OSError as exc:
        raise HostError("solution_invalid", f"cannot read the solution {str(path)!r}: {exc}") from None


def _read_split(tab: tokenize.Table, definition: CompetitionDefinition, log: ProblemLog) -> np.ndarray:
    """"public" / "private" / "ignored" per row, from the split column's values."""
    spec = definition.split
    if spec.column not in tab.header:
        return np.full(tab.n_rows, "public", dtype=_SPLIT_DTYPE)
    names = [spec.public, spec.private] + ([spec.ignored] if spec.ignored else [])
    codes = tab.match(spec.column, names)
    col = tab.header.index(spec.column) + 1
    unknown: dict[str, int] = {}
    for row in np.flatnonzero(codes < 0)[:10_000].tolist():
        unknown.setdefault(tab.cell(row, spec.column), int(tab.lines[row]))
    for value in sorted(unknown):
        log.error("solution_invalid", f"{spec.column} value {value!r} is not one of {sorted(names)}",
                  unknown[value], col)
    return np.array(SPLITS, dtype=_SPLIT_DTYPE)[np.where(codes < 0, 2, codes)]


def _fail(name: str, log: ProblemLog) -> None:
    problems = log.finish()
    detail = "\n".join("  " + p.render() for p in problems if p.severity == "error")
    raise HostError("solution_invalid", f"the solution {name!r} is invalid:\n{detail}", problems)
