"""``agrieval baselines ctv demo``: the whole CTV pipeline in a few CPU minutes.

synthetic pool (``agrieval.data_tools.demo_pool``) -> catalog -> dedup -> resize ->
catalog of the clean tree -> TOTO and LOTO splits -> one tiny random-init timm model per fold (preset
``demo``: 32 px input) -> ``agrieval ctv report`` -> the AgrI Challenge submission of one LOTO run for its
held-out team's images (``OUT/submission/``: the id list, a solution in the competition's format, the
submission written by ``agrieval baselines ctv submit``'s code and scored against that solution). Every
stage writes into ``OUT`` and is skipped when its output is already there, so a re-run resumes.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from agrieval.scoring.writing.policy import OutputPlan

# Imported inside functions, so that importing this module loads only what it needs: the data tools (they load PIL
# and pandas) and the training side (torch), loaded when the demo runs.

_DEMO_SIZE = 48  # side of the resized demo images (the real pipeline uses 336)


def _data_tools():
    # A missing third-party module (Pillow, imagehash...) is left to the command line's one error path: the
    # contract's one missing_dependency line, naming the extra to install (the baselines extra holds data's).
    from agrieval.data_tools.catalog import build_catalog
    from agrieval.data_tools.dedup import dedup
    from agrieval.data_tools.demo_pool import make_demo_pool
    from agrieval.data_tools.resize import resize_tree
    from agrieval.data_tools.splits import make_splits

    return make_demo_pool, build_catalog, dedup, resize_tree, make_splits


def _prepare_splits(out: Path, *, teams: int, per_class: int, log=print) -> Path:
    """Make (or reuse) ``out/splits`` for TOTO and LOTO from a synthetic pool."""
    make_demo_pool, build_catalog, dedup, resize_tree, make_splits = _data_tools()
    splits = out / "splits"
    if all((splits / p / "folds.json").is_file() for p in ("toto", "loto")):
        log(f"splits: reusing {splits}")
        return splits
    pool = out / "pool"
    if not pool.is_dir():
        log(f"pool: {teams} teams x 6 classes x {per_class} images -> {pool}")
        make_demo_pool(pool, teams=teams, per_class=per_class, size=96, seed=0)
    mine = OutputPlan(overwrite=True)  # the demo's own derived files: a rerun after an interruption replaces them
    catalog = build_catalog(pool, out / "catalog.csv", progress=False, plan=mine)
    kept = dedup(catalog)
    log(f"curation: {len(catalog)} images catalogued, {int(kept['keep'].sum())} kept after dedup")
    resize_tree(kept, out / "clean", size=_DEMO_SIZE, progress=False, resume=True, plan=mine)
    clean = build_catalog(out / "clean", out / "clean_catalog.csv", progress=False, plan=mine)
    for protocol in ("toto", "loto"):
        files = make_splits(clean, protocol, splits, seed=42, plan=mine)
        log(f"splits: {protocol} -> {len(files)} files in {splits / protocol}")
    return splits


def run_demo(out: Path, *, teams: int = 4, per_class: int = 6, epochs: int = 2, arch: str = "tiny_cnn",
             threads: int = 0, log=print, report: bool = True, seeds: list[int] | None = None) -> int:
    """Run the demo; return the exit code of the report (0 when it ran or was skipped).

    ``seeds``: replicates (``RUNS/seed-S/...``), so the report shows its intervals over seeds. The test
    accuracy is recorded every epoch (as the paper preset does) so that every selection rule and the
    accuracy-on-the-line figure have their points."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.sweep import plan, run_all

    out.mkdir(parents=True, exist_ok=True)
    splits = _prepare_splits(out, teams=teams, per_class=per_class, log=log)
    runs_dir = out / "runs"
    runs = plan(splits, runs_dir, ["toto", "loto"], [arch], seeds=seeds)
    base = make_config("demo", arch=arch, fold="-", **_DEMO_FLAGS, epochs=epochs, threads=threads)
    log("runs: preset demo with " + " ".join(_demo_flags(epochs, threads)) + " (what a run records is part of "
        "its settings: run-all --preset demo with these flags resumes these runs)")
    run_all(base, runs, splits, runs_dir, log=log, progress=False)
    if not report:
        return 0
    code = _call_report(runs_dir, out / "report", log=log)
    if code:
        return code
    held_out = next(r for r in runs if r.protocol == "loto")
    _write_demo_submission(out / "submission", splits, held_out.path, log=log)
    return 0


# What the demo sets beyond the demo preset: --deterministic (two CPU runs equal), and the per-epoch test
# accuracy, which the report's last_epoch and oracle_test rules and the accuracy-on-the-line figure read.
_DEMO_FLAGS = {"deterministic": True, "eval_test_every_epoch": True}


def _demo_flags(epochs: int, threads: int) -> list[str]:
    """The demo's run settings as the flags that give them to ``run-all --preset demo``."""
    return ["--deterministic", "--eval-test-every-epoch", "--epochs", str(epochs), "--threads", str(threads)]


def _write_demo_submission(folder: Path, splits: Path, run: Path, *, log=print) -> dict:
    """The submission of ``run`` (a LOTO fold) for its held-out team's images, scored against a solution made
    for them in the competition's format (every other image public, the rest private)."""
    from agrieval.baselines.ctv.manifest import load_fold
    from agrieval.baselines.ctv.submit import ids_from_file, submit_run
    from agrieval.scoring.runtime.atomic import write_text
    from agrieval.scoring.runtime.definition import load_definition
    from agrieval.scoring.runtime.scorer import score_file

    definition = load_definition(COMPETITION)
    fold = load_fold(splits, "loto", run.name)
    test = fold.part("test").sort_values("image_id", kind="stable")
    ids_text, solution_text = io.StringIO(), io.StringIO()
    ids_csv, solution_csv = csv.writer(ids_text, lineterminator="\n"), csv.writer(solution_text, lineterminator="\n")
    ids_csv.writerow([definition.id_column, "path"])
    solution_csv.writerow([definition.id_column, definition.prediction_column, "team", definition.split.column])
    for k, (image_id, path, label, team) in enumerate(zip(test["image_id"], test["path"], test["class"],
                                                          test["team"])):
        ids_csv.writerow([image_id, path])
        usage = definition.split.public if k % 2 == 0 else definition.split.private
        solution_csv.writerow([image_id, label, team, usage])
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / "test_ids.csv", ids_text.getvalue())
    write_text(folder / "solution.csv", solution_text.getvalue())
    submission = folder / "submission.csv"
    submit_run(run, ids_from_file(folder / "test_ids.csv", fold.root, definition.id_column), submission,
               definition, overwrite=True, log=lambda *_: None)
    report = score_file(submission, folder / "solution.csv", definition, reveal_private=True)
    public = report.metrics.public.get("accuracy")
    private = (report.metrics.private or {}).get("accuracy")
    log(f"submission: {submission} ({len(test)} images of held-out team {run.name}, run {run}), validated as "
        f"{definition.name}; accuracy against {folder / 'solution.csv'}: public {public:.4f}, private {private:.4f}")
    log(f"next: your own run's submission: agrieval baselines ctv submit RUNS/<protocol>/<arch>/<fold> --images "
        f"TEST_IMAGES -o submission.csv (the demo's: --images {fold.root} --ids {folder / 'test_ids.csv'})")
    return report.to_dict()


COMPETITION = "agrichallenge2024"


def _call_report(runs_dir: Path, report_dir: Path, log=print) -> int:
    """``agrieval ctv report RUNS_DIR --out REPORT_DIR``, if that command is installed."""
    from agrieval.scoring.cli.main import cli

    cmd = cli.get_command(None, "ctv")
    if cmd is None or not hasattr(cmd, "get_command") or cmd.get_command(None, "report") is None:
        log("report: 'agrieval ctv report' is not available in this install; skipped "
            f"(run it later on {runs_dir})")
        return 0
    log(f"report: agrieval ctv report {runs_dir} --out {report_dir} --plots")
    try:
        cli.main(["ctv", "report", str(runs_dir), "--out", str(report_dir), "--plots"], prog_name="agrieval",
                 standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0
