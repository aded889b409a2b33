"""Every number a run stored about itself, against the same number recomputed from its predictions.

A check holds the file, the quantity, the stored and the recomputed value (in
percent) and agrees when ``|stored - recomputed| <= TOLERANCE``. A check that
fails becomes a warning naming the file and both values; the recomputed value
is the one the report uses.

Public script (``agrieval.scoring.ctv._script_runs``): per run ``final_results``
(test accuracy, support-weighted test precision, recall and F1, best val
accuracy), the count of ``correct == True`` rows; per summary JSON each team's
``final_results``, ``avg_accuracy`` = mean and ``std_accuracy`` = population
std (ddof 0, numpy's default, as the script computes it) of the test
accuracies; per TOTO matrix every off-diagonal cell (the accuracy on that test
team) and the empty diagonal. agrieval runs: ``train_acc``, ``val_acc``,
``test_acc`` and ``per_test_team_acc`` of run.json.

The best val accuracy is the val accuracy of the epoch the script selected; it
equals the val accuracy of the predictions when the selected weights were
restored. The first published version of the script (commit e736f7e) kept a
shallow copy of the weights, so it restored the last epoch while reporting the
best val accuracy: its outputs fail this check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.ctv._script_runs import final_results, matrix_arch, read_matrix, summary_key
from agrieval.scoring.ctv._weighted_prf import weighted_prf_of_counts
from agrieval.scoring.ctv.runs import load_json

TOLERANCE = 1e-9  # percent points
_STALE_BEST = (" (the first published version of the script, e736f7e, restored the last epoch's weights while "
               "reporting the best epoch's val accuracy; predictions from such a run mix epochs)")


@dataclass(frozen=True)
class Check:
    file: str
    quantity: str
    stored: float | None  # None: the file has no value where one was expected
    recomputed: float | None  # None: nothing to recompute it from
    note: str = ""

    @property
    def difference(self) -> float:
        if self.stored is None or self.recomputed is None:
            return math.inf if (self.stored is None) != (self.recomputed is None) else 0.0
        return abs(self.stored - self.recomputed)

    @property
    def ok(self) -> bool:
        return self.difference <= TOLERANCE

    def cells(self) -> list[str]:
        """file, quantity, stored and recomputed value (exact), difference: a row of the report's tables."""
        return [self.file, self.quantity, "" if self.stored is None else repr(self.stored),
                "" if self.recomputed is None else repr(self.recomputed), f"{self.difference:.3g}"]

    def warning(self) -> str:
        def show(v):
            return "nothing" if v is None else repr(v)

        return (f"{self.file}: {self.quantity}: stored {show(self.stored)}, recomputed from the predictions "
                f"{show(self.recomputed)} (difference {self.difference:.3g}); the recomputed value is used"
                f"{self.note}")


def recomputed_final(r: dict) -> dict[str, float]:
    """The script's ``final_results`` recomputed from a run's predictions (percent; ``r``: ``Records.per_run``'s)."""
    prf = weighted_prf_of_counts(*zip(*r["classes"]))
    return {"test_accuracy": r["acc"]["test"], **{f"test_{k}": 100.0 * v for k, v in prf.items()},
            "best_val_accuracy": r["acc"]["val"]}


def _final_checks(file: str, prefix: str, stored: dict[str, float], r: dict) -> list[Check]:
    mine = recomputed_final(r)
    return [Check(file, f"{prefix}{k}", stored[k], mine[k], _STALE_BEST if k == "best_val_accuracy" else "")
            for k in stored]


def check_folders(rec, folders: list[tuple], warnings: list[str]) -> list[Check]:
    """Every check, a query of the record table ``rec``: per folder read, (its ``script_runs.ScriptTree``, each
    of its runs' index in ``rec`` with the numbers it stored, in the order they were read), its runs' checks then
    its script tree's summaries and matrices."""
    mine = rec.per_run()
    checks: list[Check] = []
    for tree, read in folders:
        runs = [(mine[i], stored) for i, stored in read]
        checks += _check_agrieval([r for r in runs if r[0]["layout"] == "agrieval"])
        checks += _check_script(tree, [r for r in runs if r[0]["layout"] == "agri_script"], warnings)
    return checks


def _check_script(tree, runs: list[tuple], warnings: list[str]) -> list[Check]:
    checks: list[Check] = []
    for r, stored in runs:
        checks += _final_checks(r["meta_file"], "final_results.", stored["final_results"], r)
        checks.append(Check(r["source"], "rows with correct == True", float(stored["correct_true"]),
                            float(sum(r["correct"].values())),
                            f" (first disagreeing line: {stored['correct_first_disagreement']})"))
        stated, seen = stored["test_teams"], sorted(r["teams"])
        if stated != seen:
            warnings.append(f"{r['meta_file']}: the JSON names test teams {stated} but the predictions' test rows "
                            f"are of {seen}")
    by_key: dict = {}
    for r, _ in runs:
        by_key.setdefault((r["protocol"], r["arch_raw"]), {})[r["fold"]] = r
    for path in tree.summaries:
        meta = load_json(path)
        key = summary_key(path, meta)
        group = by_key.get(key, {})
        results = meta.get("results")
        if not isinstance(results, dict):
            raise InputError("bad_json", "a summary JSON needs a 'results' object {team: final_results}",
                             file=str(path))
        teams = list(results)
        missing = [t for t in teams if t not in group]
        extra = sorted(set(group) - set(teams))
        if missing or extra:
            warnings.append(f"{path}: summary and runs differ: summary-only teams {missing}, run-only teams {extra}")
        for team in teams:
            if team in group:
                checks += _final_checks(str(path), f"results.{team}.",
                                        final_results({"final_results": results[team]}, str(path)), group[team])
        accs = [group[t]["acc"]["test"] for t in teams if t in group]
        for name, value in (("avg_accuracy", float(np.mean(accs)) if accs else None),
                            ("std_accuracy (ddof 0)", float(np.std(accs)) if accs else None)):
            stored = meta.get(name.split(" ")[0])
            checks.append(Check(str(path), name, float(stored) if isinstance(stored, (int, float)) else None, value))
    for path in tree.matrices:
        group = by_key.get(("TOTO", matrix_arch(path)), {})
        row_teams, cells = read_matrix(path)
        for (train, test), value in sorted(cells.items()):
            r = group.get(train)
            if train == test:
                if value is not None:
                    warnings.append(f"{path}: the diagonal cell ({train}, {test}) holds {value!r}; the script "
                                    "leaves it empty")
                continue
            checks.append(Check(str(path), f"cell {train} -> {test}", value,
                                r["teams"].get(test) if r is not None else None))
        for team in sorted(set(group) - set(row_teams)):
            warnings.append(f"{path}: no row for training team {team}, which has a run")
    return checks


def _check_agrieval(runs: list[tuple]) -> list[Check]:
    checks = []
    for r, stored in runs:
        for key, split in (("train_acc", "train"), ("val_acc", "val"), ("test_acc", "test")):
            v = stored.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                checks.append(Check(r["meta_file"], f"{key} (x100)", 100.0 * v, r["acc"][split] if r["n"][split] else None))
        teams = stored.get("per_test_team_acc")
        if isinstance(teams, dict):
            for t, v in sorted(teams.items()):
                if isinstance(v, (int, float)):
                    checks.append(Check(r["meta_file"], f"per_test_team_acc.{t} (x100)", 100.0 * v, r["teams"].get(t)))
    return checks


def summary_line(checks: list[Check]) -> str:
    bad = sum(not c.ok for c in checks)
    files = len({Path(c.file) for c in checks})
    if not checks:
        return "No stored numbers to cross-check."
    if not bad:
        return (f"All {len(checks)} numbers stored in {files} files agree with the values recomputed from the "
                f"predictions (|difference| <= {TOLERANCE:g}).")
    return (f"{bad} of {len(checks)} numbers stored in {files} files disagree with the values recomputed from the "
            f"predictions (tolerance {TOLERANCE:g}); see the warnings.")
