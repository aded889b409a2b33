"""The held-out runs of leave-one-team-out selection (``agrieval ctv report RUNS --lodo LODO``), read and
attached to the LOTO runs they select for.

``LODO`` holds one runs folder per LOTO test team T, named T: the runs of ``agrieval data splits
--without-team T --protocol loto`` (the pool without T, each of T's training teams held out in turn), trained as
usual with the per-epoch test accuracy (``--eval-test-every-epoch``). For the LOTO run of fold T, architecture
a and seed s, its held-out runs are the LOTO runs of ``LODO/T`` with the same a and s; the rule
(``selection_rules.leave_one_team_out``) uses them only when there is one for every training team of the fold.
A fold name comes from a run's own files: it is joined under ``LODO`` by the one rule for such paths
(``scoring/writing/table_paths.inside``).
"""

from __future__ import annotations

from pathlib import Path

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.ctv.runs import Run

__all__ = ["attach_held_out"]


def attach_held_out(runs: list[Run], lodo: str | Path) -> list[str]:
    """Set ``held_out`` of every LOTO run in ``runs`` from ``lodo``; return warnings for the folds whose
    held-out runs are missing or incomplete (the rule then gives no number for them, and says so)."""
    from agrieval.scoring.ctv.run_set import read_runs
    from agrieval.scoring.writing.table_paths import UnsafePath, inside

    root = Path(lodo)
    if not root.is_dir():
        raise InputError("file_not_found", f"no such folder: {root} (--lodo)", file=str(root))
    by_fold: dict[str, list[Run]] = {}
    warnings = []
    for run in runs:
        if run.protocol != "LOTO":
            continue
        if run.fold not in by_fold:
            try:
                folder = inside(root, run.fold, where=f"{run.source}: fold", follow=True, escaped=False)
            except UnsafePath as exc:
                raise InputError("bad_run", str(exc), file=run.source) from None
            by_fold[run.fold] = read_runs(folder).runs if folder.is_dir() else []
        mine = [h for h in by_fold[run.fold] if h.protocol == "LOTO" and h.arch == run.arch and h.seed == run.seed]
        run.held_out = mine
        missing = sorted(set(run.train_teams) - {h.fold for h in mine})
        if missing:
            seed = "" if run.seed is None else f" seed {run.seed}"
            warnings.append(f"leave_one_team_out: LOTO/{run.arch}/{run.fold}{seed}: no held-out run for "
                            f"{', '.join(missing)} under {root / run.fold}")
    return warnings
