"""Every CTV run under one or several folders, in both layouts, with the cross-checks of their stored numbers:
the one reader of run folders, whose ``RunSet.records`` is the record table every analysis queries.

``read_runs`` finds the agrieval baselines' runs (``agrieval.scoring.ctv.runs``) and the public AgrI script's
output trees (``agrieval.scoring.ctv._script_runs``) under each folder, reads every run, compares the numbers the runs
stored about themselves with the recomputed ones (``agrieval.scoring.ctv._cross_check``) and returns a ``RunSet``:
the runs sorted by protocol, architecture and fold, the warnings and the checks.

``lodo`` (``ctv report --lodo``): the held-out runs of leave-one-team-out selection. That folder holds one runs
folder per LOTO test team T, named T: the runs of ``agrieval data splits --without-team T --protocol loto`` (the
pool without T, each of T's training teams held out in turn), trained with the per-epoch test accuracy
(``--eval-test-every-epoch``). The held-out runs of the LOTO run of fold T, architecture a and seed s are the LOTO
runs of ``LODO/T`` with the same a and s; the rule (``selection_rules.leave_one_team_out``) uses them only when
there is one for every training team of the fold. A fold name comes from a run's own files: it is joined under
``LODO`` by the one rule for such paths (``scoring/writing/table_paths.inside``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.ctv import _cross_check as cross_check
from agrieval.scoring.ctv import _script_runs as script_runs
from agrieval.scoring.ctv._records import FINAL, Records
from agrieval.scoring.ctv.results_table import PROTOCOLS, ResultsTable, TeamResult
from agrieval.scoring.ctv.runs import Run, read_agrieval_run
from agrieval.scoring.writing.table_paths import UnsafePath, inside


@dataclass
class RunSet:
    """The runs of one study as the one reader read them, with the warnings and stored-number checks of the
    reading; every analysis queries ``records``, the table built from them once."""

    runs: list[Run]
    warnings: list[str] = field(default_factory=list)
    checks: list = field(default_factory=list)  # agrieval.scoring.ctv._cross_check.Check
    files: list[Path] = field(default_factory=list)  # every file the reading may open (the report's inputs)

    @cached_property
    def records(self):
        """The record table of these runs (``agrieval.scoring.ctv._records.Records``), built once."""
        return Records.from_runs(self.runs)

    def seeds_per_fold(self) -> int:
        """The most runs one (protocol, arch, fold) has: 1 without replicates."""
        return int(self.records.run_rows().groupby(["protocol", "arch", "fold"]).size().max())

    def results_table(self) -> ResultsTable:
        """The per-team table (percent) that ``ctv summarize`` reads: with several seeds, each team's
        accuracies are the mean over its seeds (one seed: the run's own numbers, unchanged)."""
        rec = self.records
        finals = rec.query(epoch=FINAL, team="")
        rows = []
        for (p, a, f), g in rec.groups(finals[finals["split"] != "train"], ("protocol", "arch", "fold")):
            val, test = (tuple(g.loc[g["split"] == s, "acc"].tolist()) for s in ("val", "test"))
            rows.append(TeamResult(p, a, f, _mean(val), _mean(test), val, test))
        return ResultsTable(rows, "<runs>")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)  # one value comes back exactly itself


def _label_side_by_side(runs: list[Run]) -> None:
    """An arch that both layouts ran for the same (protocol, fold) becomes two groups, ``<arch> (<layout>)``.

    So the public script's runs and agrieval's of one backbone sit side by
    side in every table (and their agreement is computed) instead of clashing.
    """
    layouts: dict[tuple[str, str, str], set[str]] = {}
    for r in runs:
        layouts.setdefault((r.protocol, r.arch, r.fold), set()).add(r.layout)
    shared = {arch for (_, arch, _), kinds in layouts.items() if len(kinds) > 1}
    for r in runs:
        if r.arch in shared:
            r.arch = f"{r.arch} ({r.layout})"


def _confine(root: Path, files: list[Path]) -> list[Path]:
    """Refuse a run file that is a link leading out of its run folder: a received tree is read within itself
    (a ``predictions.csv`` linked to a local table would put that table's names into the report); ``files``."""
    base = root.resolve()
    for f in files:
        real = f.resolve()  # every link on the way followed
        if real != base and base not in real.parents:
            raise InputError("link_outside", f"this run file is a link to {real}, outside the run folder {root}; "
                             "copy the file into the folder if it belongs to the run", file=str(f))
    return files


def _attach_held_out(runs: list[Run], lodo: str | Path, files: list[Path]) -> list[str]:
    """Set ``held_out`` of every LOTO run in ``runs`` from ``lodo`` (module docstring), adding the files read to
    ``files``; return warnings for the folds whose held-out runs are missing or incomplete (the rule then gives
    no number for them, and says so)."""
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
            held = read_runs(folder) if folder.is_dir() else RunSet([])
            by_fold[run.fold] = held.runs
            files += held.files
        mine = [h for h in by_fold[run.fold] if h.protocol == "LOTO" and h.arch == run.arch and h.seed == run.seed]
        run.held_out = mine
        missing = sorted(set(run.train_teams) - {h.fold for h in mine})
        if missing:
            seed = "" if run.seed is None else f" seed {run.seed}"
            warnings.append(f"leave_one_team_out: LOTO/{run.arch}/{run.fold}{seed}: no held-out run for "
                            f"{', '.join(missing)} under {root / run.fold}")
    return warnings


def read_runs(runs_dirs: str | Path | Sequence[str | Path],
              progress: Callable[[str], None] | None = None, lodo: str | Path | None = None) -> RunSet:
    """Every run under one or several folders (each an agrieval runs folder or a script output tree); ``lodo``:
    the folder of the held-out runs of leave-one-team-out selection (module docstring)."""
    roots = [Path(runs_dirs)] if isinstance(runs_dirs, (str, Path)) else [Path(d) for d in runs_dirs]
    if not roots:
        raise InputError("no_runs", "no run folder given")
    runs: list[Run] = []
    folders: list[tuple] = []  # (script tree, its runs in reading order): the checks follow that order
    warnings: list[str] = []
    files: list[Path] = []
    for root in roots:
        if not root.is_dir():
            raise InputError("file_not_found", f"no such folder: {root}", file=str(root))
        run_files = sorted(root.rglob("run.json"))
        script = script_runs.find(root)
        files += _confine(root, [f for m in run_files for f in (m, m.parent / "predictions.csv", m.parent / "history.jsonl")]
                 + [f for r in script.results for f in (r, script_runs.predictions_path(r))]
                 + script.summaries + script.matrices)
        total = len(run_files) + len(script.results)
        found: list[Run] = []
        for i, meta_path in enumerate(run_files, 1):
            found.append(read_agrieval_run(meta_path))
            if progress:
                progress(f"[{i}/{total}] {meta_path.parent.relative_to(root)}")
        for i, meta_path in enumerate(script.results, len(run_files) + 1):
            found.append(script_runs.read_run(meta_path))
            if progress:
                progress(f"[{i}/{total}] {meta_path.relative_to(root)}")
        if not found:
            raise InputError("no_runs", "found no run.json (agrieval baselines) nor results/*_results.json "
                             "(AgrI script) under the folder", file=str(root))
        folders.append((script, found))
        runs += found
    _label_side_by_side(runs)
    seen: dict[tuple, Run] = {}
    for r in runs:
        key = (r.protocol, r.arch, r.fold, r.seed)
        if key in seen:
            first = seen[key]
            raise InputError("bad_run", f"two runs for {key[:3]}" + (f" seed {r.seed}" if r.seed is not None else "")
                             + f" (architecture names are compared in one vocabulary: "
                             f"{first.arch_raw!r} and {r.arch_raw!r} are both {r.arch!r}): {first.source} and "
                             f"{r.source}", file=r.source)
        seen[key] = r
    runs.sort(key=lambda r: (PROTOCOLS.index(r.protocol), r.arch, r.fold, r.seed is None, r.seed or 0))
    held = _attach_held_out(runs, lodo, files) if lodo is not None else []
    runset = RunSet(runs, warnings, files=files)
    at = {id(r): k for k, r in enumerate(runs)}
    runset.checks = cross_check.check_folders(runset.records, [(tree, [(at[id(r)], r.stored) for r in found])
                                                               for tree, found in folders], warnings)
    warnings += [c.warning() for c in runset.checks if not c.ok] + held
    return runset
