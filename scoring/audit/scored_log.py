"""Every logged submission scored once: its per-row parts of the metric and its per-row prediction keys.

Each file is read and scored under the competition's limits (``warm.Grader``, a child process per
file, as ``agrieval grade``); a rejected file is listed with its codes and takes no further part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from agrieval.scoring.audit._near_duplicates import label_set_keys
from agrieval.scoring.audit.submission_log import LoggedSubmission
from agrieval.scoring.runtime._unit_scores import check_decomposable, row_units, row_values, unit_name
from agrieval.scoring.runtime.warm import Grader


@dataclass
class ScoredLog:
    """A submission log scored per unit: the kept entries with one row of unit scores each, the units, the split
    scored, and the entries rejected with their error codes."""

    entries: list[LoggedSubmission]  # the scored ones, in log order (team, time)
    values: np.ndarray  # (S, N) per-row parts of the primary metric
    keys: list[np.ndarray]  # per entry, one prediction key per solution row
    units: np.ndarray  # unit code per solution row
    unit: str
    split: np.ndarray  # "public" / "private" / "ignored" per solution row
    rejected: list[dict] = field(default_factory=list)  # {"team", "file", "codes"}


def score_log(entries: list[LoggedSubmission], grader: Grader,
              progress: Callable[[str], None] | None = None) -> ScoredLog:
    """Score each logged submission with ``grader`` (the solution read once), per unit, keeping the rejected ones
    with their error codes; ``progress`` is told each file's outcome."""
    definition, sol = grader.definition, grader.solution
    check_decomposable(definition)
    units, _ = row_units(sol, definition)
    kept, values, keys, rejected = [], [], [], []
    for i, entry in enumerate(entries, 1):
        graded = grader.evaluate(entry.path, filename=entry.file)
        if graded.report.status != "scored":
            codes = sorted({e.code for e in graded.report.errors})
            rejected.append({"team": entry.team, "file": entry.file, "codes": codes})
            msg = "rejected: " + ", ".join(codes)
        else:
            kept.append(entry)
            values.append(row_values(graded.submission, sol, definition, graded.order))
            keys.append(_prediction_keys(graded.submission, graded.order, definition.task))
            msg = f"{definition.primary_metric} {graded.report.primary:.4f} (public)"
        if progress:
            progress(f"[{i}/{len(entries)}] {entry.team} {entry.file}: {msg}")
    matrix = np.vstack(values) if values else np.zeros((0, len(units)))
    return ScoredLog(kept, matrix, keys, units, unit_name(definition), np.asarray(sol.split), rejected)


def _prediction_keys(sub, order: np.ndarray, task: str) -> np.ndarray:
    """One comparable key per solution row of the submission's prediction."""
    if task == "multilabel":
        taken = sub.labels.take(order)
        return label_set_keys(np.asarray(taken.indptr), np.asarray(taken.labels))
    return np.asarray(sub.classes, dtype=object)[np.asarray(order, dtype=np.int64)]
