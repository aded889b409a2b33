"""Read a participant's submission strictly: bytes in, ids and labels or problems out.

Every problem has a stable code and a line/column; messages never depend on the
solution (id checks against the solution live in ``scoring/runtime/_matching.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..definition import CompetitionDefinition
from ..labelsets import LabelSets
from ..problems import Problem, ProblemLog
from . import _cell_keys as cell_keys
from . import _label_cells as label_cells
from . import _tokenize as tokenize
from ._bytes_checks import checked_utf8, read_limited
from ._id_cells import CheckedIds, check_ids
from ._id_lengths import refuse_long_ids


@dataclass
class Submission:
    """A read submission: its ids (``ids``), the line of each row, its label sets (multilabel) or classes
    (multiclass), and every problem found while reading, each with its code, line and column."""

    id_list: list[str] | None = None  # None: the ids are those of ``id_order``'s CheckedIds (see ``ids``)
    lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    labels: LabelSets | None = None  # multilabel
    classes: list[str | None] | None = None  # multiclass
    problems: list[Problem] = field(default_factory=list)
    # the ids kept as bytes: (CheckedIds, for each of their ids the row here, None when row for row); when
    # they are the solution's own CheckedIds, ``matching.align`` needs no lookup per id
    id_order: tuple[CheckedIds, np.ndarray | None] | None = None
    # the ids of rows left out for their number of fields (ragged_row): present, though not read
    unread_ids: list[str] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        """The ids, row by row (strings made on first use when kept as bytes: most scoring never needs them)."""
        if self.id_list is None:
            if self.id_order is None:
                self.id_list = []
            else:
                checked, order = self.id_order
                if order is None:
                    self.id_list = checked.ids
                else:
                    row_of = np.empty(len(order), dtype=np.int64)
                    row_of[order] = np.arange(len(order), dtype=np.int64)
                    self.id_list = list(map(checked.ids.__getitem__, row_of.tolist()))
        return self.id_list

    @property
    def n_rows(self) -> int:
        return len(self.lines)

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]


def read_submission(source: str | Path | bytes, definition: CompetitionDefinition, *,
                    filename: str | None = None,
                    checked_ids: CheckedIds | None = None) -> Submission:
    """Parse and check a submission. Nothing here depends on a solution's content: ``checked_ids``
    only saves work when the id column repeats ids known to be valid."""
    name = filename or (Path(source).name if not isinstance(source, bytes) else "submission.csv")
    log = ProblemLog(file=name)
    limits = definition.limits
    if isinstance(source, bytes):
        data: bytes | None = source
        if len(data) > limits.max_bytes:
            log.error("file_too_large", f"the file is {len(data):,} bytes; this competition accepts at most "
                      f"{limits.max_bytes:,} bytes")
            data = None
    else:
        data = read_limited(source, limits.max_bytes, log)
    clean = checked_utf8(data, log) if data is not None else None
    if clean is None:
        return Submission(problems=log.finish())
    tab = tokenize.parse(clean, delimiter=definition.delimiter, required=definition.expected_columns,
                         max_rows=limits.max_rows, max_cell_chars=limits.max_cell_chars, log=log)
    if tab is None:
        return Submission(problems=log.finish())
    if not refuse_long_ids(tab, definition.id_column, definition.max_id_chars, log):
        return Submission(lines=tab.lines, problems=log.finish())  # before any work that scales with them

    labels = classes = None
    if definition.task == "multilabel":
        labels = label_cells.parse_multilabel_column(tab, definition, log)
    else:
        pred_col = tab.header.index(definition.prediction_column) + 1
        classes = label_cells.parse_multiclass(tab.column(definition.prediction_column), tab.lines, pred_col,
                                               definition, log)
    id_col = tab.header.index(definition.id_column) + 1
    cells = tab.spans(definition.id_column)
    reusable = checked_ids is not None and checked_ids.id_pattern == definition.id_pattern
    same = reusable and checked_ids.same_column(cells)
    # an id that is the column's name: _repeated_header may have a problem to name (the solution's own ids,
    # when these are them byte for byte: asked of them once)
    name = definition.id_column.encode("utf-8")
    plain = not (checked_ids.holds(name) if same else (cell_keys.match_cells(*cells, [name]) >= 0).any())
    same = same and plain
    order = checked_ids.order_in(cells) if reusable and plain and not same else None
    mine = CheckedIds(cells, definition.id_pattern)
    if same or order is not None:
        # the solution's ids, row for row or in another order (matched byte for byte): valid and unique too,
        # and the same strings as decoding the column would give
        sub = Submission(lines=tab.lines, id_order=(checked_ids, order))
    elif plain and mine.plainly_valid():
        sub = Submission(lines=tab.lines, id_order=(mine, None))  # (the ids decoded when asked for)
    else:
        ids = tab.column(definition.id_column)
        _repeated_header(ids, tab, definition, log)
        check_ids(ids, tab.lines, id_col, definition, log)
        sub = Submission(id_list=ids, lines=tab.lines)
    sub.labels, sub.classes = labels, classes
    sub.unread_ids = tab.skipped.field(id_col - 1)
    sub.problems = log.finish()
    return sub


def _repeated_header(ids: list, tab, definition: CompetitionDefinition, log: ProblemLog) -> None:
    """Name a header line repeated inside the file as such, not as a bad id and a bad label."""
    for i in (i for i, id_ in enumerate(ids) if id_ == definition.id_column):
        if tab.cell(i, definition.prediction_column) == definition.prediction_column:
            log.error("repeated_header", "the header line appears again here (two files pasted together?); "
                      "remove this line", int(tab.lines[i]), 1)
