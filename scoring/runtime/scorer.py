"""Score a submission against a solution: the one path every command and hook takes.

``score`` never raises for a bad submission (it returns a rejected report);
host-side problems (unreadable solution, bad definition) raise ``HostError``.
The private split is not computed at all unless ``reveal_private`` is set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ._matching import align, id_problems_beside, in_report_order
from .definition import CompetitionDefinition
from .metrics import multiclass, multilabel
from .problems import OptionError, ProblemLog
from .reading._id_cells import CheckedIds
from .reading._uploads import unpack
from .reading.solution import Solution, load_solution
from .reading.submission import Submission, read_submission
from .report import Metrics, ReportProblem, ScoreReport


def score_file(submission: str | Path | bytes, solution: str | Path | Solution, definition: CompetitionDefinition,
               *, reveal_private: bool = False, own_team: str | None = None,
               val_accuracy: float | None = None, filename: str | None = None) -> ScoreReport:
    """Read an upload (a CSV, a zip holding one, a folder holding one) and score it: ``grade`` without the guard."""
    sol, sub, refused = _read_both(submission, solution, definition, filename=filename)
    if refused is not None:
        return refused
    return score(sub, sol, definition, reveal_private=reveal_private, own_team=own_team, val_accuracy=val_accuracy)


def _read_both(submission: str | Path | bytes, solution: str | Path | bytes | Solution,
              definition: CompetitionDefinition, *, filename: str | None = None,
              load: Callable[[str | Path | bytes, CompetitionDefinition], Solution] = load_solution
              ) -> tuple[Solution, Submission | None, ScoreReport | None]:
    """Load the solution, then read the upload: the solution with ``_read_upload``'s answer for the upload.

    ``solution`` may be a ``Solution`` already loaded; any other value is read by ``load``. The solution comes
    first so that a problem with it is raised as a ``HostError`` whatever the upload holds. Both are read in
    this thread, one after the other.
    """
    sol = solution if isinstance(solution, Solution) else load(solution, definition)
    return (sol, *_read_upload(submission, sol.checked_ids, definition, filename=filename))


def _read_upload(submission: str | Path | bytes, checked_ids: CheckedIds | None, definition: CompetitionDefinition,
                *, filename: str | None = None) -> tuple[Submission | None, ScoreReport | None]:
    """The upload read as a submission, or ``None`` and the rejected report when the upload itself is refused.

    ``checked_ids`` are the solution's ``Solution.checked_ids``; passing them only saves work in
    ``read_submission``."""
    upload = unpack(submission, definition.limits, filename=filename)
    if not upload.ok:
        return None, ScoreReport(competition=definition.name, status="rejected",
                                 primary_metric=definition.primary_metric,
                                 errors=[ReportProblem.of(p) for p in upload.problems if p.severity == "error"],
                                 warnings=[ReportProblem.of(p) for p in upload.problems if p.severity == "warning"])
    return read_submission(upload.data, definition, filename=upload.filename, checked_ids=checked_ids), None


def score(sub: Submission, sol: Solution, definition: CompetitionDefinition, *, reveal_private: bool = False,
          own_team: str | None = None, val_accuracy: float | None = None) -> ScoreReport:
    """The report of a submission already read and aligned with the solution (``score_file`` reads and scores a
    file): every metric of ``definition`` on the public split, on the private one too if ``reveal_private``."""
    return _score_aligned(sub, sol, definition, reveal_private=reveal_private, own_team=own_team,
                         val_accuracy=val_accuracy)[0]


def _check_options(sol: Solution, definition: CompetitionDefinition, *, own_team: str | None = None,
                  val_accuracy: float | None = None) -> None:
    """Refuse option values the scoring cannot use: ``OptionError`` (a usage error, exit 2), never a host error."""
    if own_team is not None and definition.task != "multiclass":
        raise OptionError(f"--own-team applies to single-label (team) competitions only, not to {definition.name}")
    if own_team is not None and own_team not in set(sol.groups):
        teams = sorted(set(sol.groups))
        shown = ", ".join(repr(t) for t in teams[:20]) + (" ..." if len(teams) > 20 else "")
        raise OptionError(f"--own-team {own_team!r} is not a team of this solution (teams: {shown})")
    if val_accuracy is not None and not (isinstance(val_accuracy, (int, float)) and 0.0 <= val_accuracy <= 1.0):
        raise OptionError(f"--val-accuracy must be a fraction in [0, 1], got {val_accuracy}")


def _score_aligned(sub: Submission, sol: Solution, definition: CompetitionDefinition, *, reveal_private: bool = False,
                  own_team: str | None = None, val_accuracy: float | None = None
                  ) -> tuple[ScoreReport, np.ndarray | None]:
    """``score``, and the submission row of each solution row (None unless the ids matched)."""
    _check_options(sol, definition, own_team=own_team, val_accuracy=val_accuracy)  # before any verdict
    report = ScoreReport(competition=definition.name, status="rejected", primary_metric=definition.primary_metric,
                         n_rows=sub.n_rows, warnings=[ReportProblem.of(p) for p in sub.warnings],
                         errors=[ReportProblem.of(p) for p in sub.errors])
    if not sub.ok:
        # the ids too, as ``validate --solution`` lists them: the participant fixes everything in one round
        # (split-safe graders, Kaggle's, still say only ``rows_invalid``: ``split_safe``)
        beside = [p for p in id_problems_beside(sub, sol.ids, sub.problems[0].file) if p.severity == "error"]
        if beside:
            report.errors = [ReportProblem.of(p) for p in in_report_order(sub.errors + beside)]
        return report, None
    log = ProblemLog(file=sub.problems[0].file if sub.problems else None)
    order = align(sub, sol, log)
    if order is None:
        report.errors = [ReportProblem.of(p) for p in log.finish()]
        return report, None

    split_rows = _split_rows(sol, reveal_private)
    if definition.task == "multilabel":
        results = _multilabel(sub, sol, definition, order, split_rows)
    else:
        results = {split: _multiclass(sub, sol, definition, order, rows, own_team, val_accuracy)
                   for split, rows in split_rows.items()}
    public: dict[str, float] = {}
    private: dict[str, float] | None = {} if reveal_private else None
    for split, (values, detail) in results.items():
        (public if split == "public" else private).update(values)
        report.details[split] = detail
    if reveal_private and "private" not in split_rows:  # '-' in every private cell: say why
        report.details["private"] = {"n_scored_rows": 0, "why_empty": _why_no_private(sol, definition)}
    report.metrics = Metrics(public=public, private=private)
    report.status = "scored"
    return report, order


def derived(sol: Solution, key: tuple, make: Callable[[], object], *made_from: object):
    """``make()``, made once for ``sol``: kept in ``sol.derived`` under ``key`` with the objects it is made from
    (of the solution or the definition), and made again if one of them is no longer the same object. A warm
    grader scores every upload against one solution: what depends on it alone is found for the first upload."""
    kept = sol.derived.get(key)
    if kept is None or len(kept[0]) != len(made_from) or any(a is not b for a, b in zip(kept[0], made_from)):
        kept = sol.derived[key] = (made_from, make())
    return kept[1]


def prepare(sol: Solution, definition: CompetitionDefinition, *, reveal_private: bool = False) -> None:
    """Find now what scoring finds from ``sol`` alone (``derived``) rather than for the first upload: a warm
    grader's children (forked, one per upload) then find it made."""
    split_rows = _split_rows(sol, reveal_private)
    if definition.task == "multilabel" and split_rows:
        _true_side(sol, definition, split_rows)


def _split_rows(sol: Solution, reveal_private: bool) -> dict[str, np.ndarray]:
    """The rows of each split scored (public, and private if ``reveal_private``) that has any."""
    def find() -> dict[str, np.ndarray]:
        splits = ["public"] + (["private"] if reveal_private else [])
        split_rows = {split: np.flatnonzero(sol.split == split) for split in splits}
        return {split: rows for split, rows in split_rows.items() if len(rows)}

    return derived(sol, ("split rows", reveal_private), find, sol.split)


def _true_side(sol: Solution, definition: CompetitionDefinition, split_rows: dict[str, np.ndarray]
               ) -> multilabel.TrueSide:
    codes, _ = sol.group_codes
    class_codes = definition.int_label_codes
    return derived(sol, ("true side", tuple(split_rows)),
                   lambda: multilabel.TrueSide(sol.labels, codes, split_rows, class_codes=class_codes),
                   sol.labels, codes, split_rows, class_codes)


def _why_no_private(sol: Solution, definition: CompetitionDefinition) -> str:
    spec = definition.split
    if not sol.has_split_column:
        return (f"the solution has no split column {spec.column!r}, so every row is public; add it "
                f"({spec.public!r} / {spec.private!r} per row) to score a private split")
    return f"no row of the solution's {spec.column!r} column is {spec.private!r}"


def _multilabel(sub: Submission, sol: Solution, definition: CompetitionDefinition, order: np.ndarray,
                split_rows: dict[str, np.ndarray]) -> dict[str, tuple[dict[str, float], dict]]:
    # every split from one matching of all rows, in the solution's order
    y_pred = sub.labels.take(order)
    eb = definition.empty_both_score
    codes, _ = sol.group_codes
    truth = _true_side(sol, definition, split_rows)
    values = multilabel.metrics_by_split(sol.labels, y_pred, codes, split_rows, empty_both=eb,
                                          class_codes=definition.int_label_codes, truth=truth)
    grouping = definition.grouping
    out = {}
    for k, (split, rows) in enumerate(split_rows.items()):
        out[split] = values[split], {
            "n_scored_rows": int(len(rows)),
            "grouping": {"unit": grouping.name if grouping else "row", "source": sol.group_source,
                         "n_groups": truth.groups[k].n_groups, "official": False},
            "empty_set_policy": {"empty_prediction_nonempty_truth": 0.0, "both_empty": eb},
        }
    return out


def _multiclass(sub: Submission, sol: Solution, definition: CompetitionDefinition, order: np.ndarray,
                idx: np.ndarray, own_team: str | None, val_accuracy: float | None) -> tuple[dict[str, float], dict]:
    y_true = [sol.classes[i] for i in idx]
    y_pred = [sub.classes[order[i]] for i in idx]
    groups = [sol.groups[i] for i in idx]
    labels = sorted(definition.labels) if definition.labels is not None else sorted(set(y_true) | set(y_pred))
    per_group = multiclass.group_accuracy(y_true, y_pred, groups)
    values = {
        "accuracy": multiclass.accuracy(y_true, y_pred),
        "balanced_accuracy": multiclass.balanced_accuracy(y_true, y_pred),
        "macro_f1": multiclass.macro_f1(y_true, y_pred),
        "group_accuracy": float(np.mean(list(per_group.values()))),
    }
    if own_team is not None:
        cross = multiclass.cross_group_accuracy(y_true, y_pred, groups, own_team)
        values["cross_team_accuracy"] = cross
        if val_accuracy is not None:
            values["vtg"] = multiclass.validation_test_gap(val_accuracy, cross)
    elif val_accuracy is not None:
        values["vtg"] = multiclass.validation_test_gap(val_accuracy, values["accuracy"])
    detail = {
        "n_scored_rows": int(len(idx)),
        "labels": labels,
        "per_class": multiclass.per_class(y_true, y_pred, labels),
        "confusion_matrix": multiclass.confusion_matrix(y_true, y_pred, labels).tolist(),
        "per_group_accuracy": per_group,
        "group_unit": definition.grouping.name if definition.grouping else "row",
    }
    if own_team is not None:
        detail["own_team"] = own_team
    return values, detail
