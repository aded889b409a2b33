"""A sweep = protocols x archs x folds, in that (sorted) order.

``plan`` lists its runs with their state (done / partial / pending) read from
the run folders; ``run_all`` runs them one after another: finished runs are
skipped, partial ones resume from their last epoch.
"""

from __future__ import annotations

import dataclasses
import json
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from agrieval.baselines.ctv._archs import resolve_arch
from agrieval.baselines.ctv._progress import format_duration
from agrieval.baselines.ctv._replicates import seed_root
from agrieval.baselines.ctv._run_folders import run_dir, run_status
from agrieval.baselines.ctv.config import TrainConfig
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.manifest import list_folds
from agrieval.scoring.runtime.atomic import write_text

# Imported inside functions, so that importing this module loads only what it needs: baselines.ctv.runner (it loads
# PIL, asyncio, concurrent.futures).


@dataclass(frozen=True)
class PlannedRun:
    protocol: str
    arch: str
    fold: str
    path: Path
    status: str
    seed: int | None = None  # a replicate's seed (``--seeds``); None: the settings' --seed, no seed folder
    root: Path | None = None  # the runs folder that run_fold writes into (``RUNS_DIR/seed-S`` for a replicate)

    def as_dict(self) -> dict:
        return {"protocol": self.protocol, "arch": self.arch, "fold": self.fold, "seed": self.seed,
                "path": str(self.path), "status": self.status}

    @property
    def name(self) -> str:
        return f"{self.protocol}/{self.arch}/{self.fold}" + (f" seed {self.seed}" if self.seed is not None else "")


def plan(splits_dir: str | Path, runs_dir: str | Path, protocols: list[str], archs: list[str],
         folds: list[str] | None = None, seeds: list[int] | None = None) -> list[PlannedRun]:
    """The sweep's runs in order: seeds (replicates), then protocols, archs, folds."""
    if seeds:
        return [dataclasses.replace(r, seed=seed) for seed in seeds
                for r in plan(splits_dir, seed_root(runs_dir, seed), protocols, archs, folds)]
    out = []
    for protocol in protocols:
        available = list_folds(splits_dir, protocol)
        chosen = available if not folds else [f for f in folds if f in available]
        if folds:
            unknown = sorted(set(folds) - set(available))
            if unknown and not chosen:
                raise CTVError("splits_missing", f"folds {unknown} not in {Path(splits_dir) / protocol}; "
                               f"available: {', '.join(available)}")
        for arch in archs:
            key = resolve_arch(arch).key
            for fold in chosen:
                path = Path(runs_dir) / protocol / key / fold
                out.append(PlannedRun(protocol, key, fold, path, run_status(path), root=Path(runs_dir)))
    return out


def run_all(base: TrainConfig, runs: list[PlannedRun], splits_dir, runs_dir, *, keep_going: bool = False,
            log=print, **kw) -> list[dict]:
    """Run every planned run in order; with ``keep_going`` a failed run is reported and the next starts.

    Under ``--preset official`` (``keep_going``) any exception of a fold is caught, as the script's
    ``except Exception: continue`` (S:1021) does, and recorded; the caller exits non-zero at the end.
    With ``--seed-stream sweep`` a fold right after one that ran here continues its random stream.
    """
    from agrieval.baselines.ctv.runner import run_fold  # torch: only when something trains

    records = []
    previous: tuple | None = None
    trained: list[float] = []  # seconds of each run trained (or resumed) here: the sweep's ETA
    for i, r in enumerate(runs, 1):
        log(f"[{i}/{len(runs)}] {r.name} ({r.status})")
        started = time.perf_counter()
        cfg = dataclasses.replace(base, protocol=r.protocol, arch=r.arch, fold=r.fold,
                                  seed=base.seed if r.seed is None else r.seed)
        # the previous fold of this sweep trained (or failed) here: the generators are where it left them
        ran_before = previous == (r.seed, r.protocol, r.arch)
        previous = (r.seed, r.protocol, r.arch)
        try:
            records.append(run_fold(cfg, splits_dir, r.root or runs_dir, log=log, continue_stream=ran_before,
                                    **kw))
            if records[-1].get("status") == "skipped":
                previous = None  # a finished fold hands its stream on through stream_after.pt only
            else:
                trained.append(time.perf_counter() - started)
                left = sum(q.status != "done" for q in runs[i:])
                if left:
                    log(f"sweep: {i}/{len(runs)} runs; {left} to train, ETA {format_duration(left * mean(trained))} "
                        f"(at the mean {format_duration(mean(trained))} per run so far)")
            stale = r.path / FAILED
            if stale.is_file():
                stale.unlink()  # our own record of an earlier failure of this run, now finished
        except CTVError as exc:
            if not keep_going:
                raise
            log(exc.render())
            records.append(_failed(r, exc.code, exc.message))
        except Exception as exc:  # noqa: BLE001 - the script's rule: a fold that raises is skipped
            if not (keep_going and base.preset == "official"):
                raise
            log(f"error [fold_failed] {r.protocol}/{r.arch}/{r.fold}: {type(exc).__name__}: {exc}\n"
                + traceback.format_exc())
            records.append(_failed(r, "fold_failed", f"{type(exc).__name__}: {exc}", traceback.format_exc()))
    return records


FAILED = "failed.json"
# A failure record holds the run's names, a code, a message and a traceback; _failed keeps the message's head and
# the traceback's tail (where the error is) so that every record the kit writes is under the cap it reads with.
MAX_FAILED_JSON_BYTES = 256 << 10
_MAX_MESSAGE_CHARS, _MAX_TRACEBACK_CHARS = 16 << 10, 64 << 10


def _failed(r: PlannedRun, code: str, message: str, trace: str = "") -> dict:
    """The failure's record, also written to the run folder (``failed.json``) so it outlives the log."""


    if len(message) > _MAX_MESSAGE_CHARS:
        message = message[:_MAX_MESSAGE_CHARS] + f" ... ({len(message) - _MAX_MESSAGE_CHARS:,} characters cut)"
    if len(trace) > _MAX_TRACEBACK_CHARS:
        trace = f"({len(trace) - _MAX_TRACEBACK_CHARS:,} characters cut) ..." + trace[-_MAX_TRACEBACK_CHARS:]
    record = {"protocol": r.protocol, "arch": r.arch, "fold": r.fold, "seed": r.seed, "status": "failed",
              "error": code, "message": message}
    if not (r.path / "run.json").is_file():  # never beside a finished run (a settings mismatch, say)
        r.path.mkdir(parents=True, exist_ok=True)
        write_text(r.path / FAILED, json.dumps({**record, "traceback": trace}, indent=2, sort_keys=True) + "\n")
    return record


__all__ = ["FAILED", "MAX_FAILED_JSON_BYTES", "PlannedRun", "plan", "run_all", "run_dir"]
