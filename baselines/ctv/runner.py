"""Train one fold: ``run_fold(cfg, splits_dir, runs_dir)``, one training loop for every preset.

Order of work: skip if ``run.json`` is there (same settings) -> ``_set_up`` (device, precision, seed
stream, manifest, model, loaders, optimiser) -> ``_resume`` from ``last.pt`` if present -> ``_epoch``
per epoch: train, validate (and test with ``eval_test_every_epoch``), keep ``best.pt`` when the
selection rule says the epoch is better (the test split never chooses anything), checkpoint ->
``_finish``: the kept model back, val and test predicted, ``predictions.csv``, ``history.jsonl``, and
``run.json`` last (its presence marks the run finished). Under torchrun only rank 0 writes.

What differs between presets is a component chosen from the settings, never a branch in the loop: the
seed stream (``agrieval.baselines.ctv._seed_streams``: per fold, or the script's one stream per sweep), the
transform pipeline (``agrieval.baselines.ctv._pipelines``: kit or script), the mixed-precision policy
(``agrieval.baselines.ctv._precision``: off, bf16, fp16 + GradScaler), the model selection and best-keeping
(``agrieval.baselines.ctv._selection``: kit or script).
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

from agrieval.baselines._device import DeviceError, resolve_device
from agrieval.baselines._sbatch import EXIT_REQUEUE, STOP_FILE_ENV, StopRequested, stop_file_present  # noqa: F401
from agrieval.baselines.ctv import _checkpoint as checkpoint
from agrieval.baselines.ctv import _outputs as outputs
from agrieval.baselines.ctv._archs import ArchSpec, resolve_arch
from agrieval.baselines.ctv._cache import build_cache
from agrieval.baselines.ctv._dataset import SplitDataset, unreadable_paths
from agrieval.baselines.ctv._distributed import (
    DistInfo,
    Shard,
    all_reduce_sum,
    barrier,
    broadcast_buffers,
    collective,
    init_distributed,
)
from agrieval.baselines.ctv._pipelines import pipeline_for
from agrieval.baselines.ctv._precision import amp_dtype, precision_for  # noqa: F401 (amp_dtype: the tests' way in)
from agrieval.baselines.ctv._run_folders import run_dir, run_status  # noqa: F401 (run_status: the sweep's way in)
from agrieval.baselines.ctv._seed_streams import FoldStream, seed_stream_for
from agrieval.baselines.ctv._seeding import fold_seed, set_deterministic
from agrieval.baselines.ctv._selection import SELECTIONS, BestKeeper, Selection
from agrieval.baselines.ctv.config import PRESET_SOURCES, TrainConfig
from agrieval.baselines.ctv.engine import Runtime, accuracy, needs_two_per_step, predict, train_one_epoch
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.manifest import FoldData, load_fold
from agrieval.baselines.ctv.models import build_model, find_weights, weights_hint
from agrieval.scoring.runtime.atomic import remove_leftover_temporaries
from agrieval.scoring.runtime.metrics.multiclass import validation_test_gap
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_json

_STOP_ENV = "AGRIEVAL_CTV_STOP_AFTER_EPOCH"  # test hook: behave as if killed after this epoch
# A scheduler's warning (SLURM's --signal=B:USR1@N, trapped by the job script) creates the stop file
# (STOP_FILE_ENV): the run stops at its next epoch boundary, where last.pt holds everything, and exits
# EXIT_REQUEUE so that the script requeues it.
# What a run folder holds when finished or interrupted: a killed write leaves a temporary of one of these.
_RUN_FILES = ("last.pt", "best.pt", "run.json", "predictions.csv", "history.jsonl", "stream_after.pt", "failed.json")


class _Interrupted(Exception):
    """Raised by the stop-after-epoch hook, after that epoch's checkpoint is on disk."""


def _stop_requested(info: DistInfo) -> bool:
    """Whether the stop file exists, agreed by every rank (rank 0's view, so that no rank stops alone)."""
    seen = 1.0 if (info.is_main and stop_file_present()) else 0.0
    return all_reduce_sum([seen], info, "stop request")[0] > 0


# What a run.json can be (_finish writes it): settings (~100 values), the class names, the teams, the libraries'
# versions, the device, and at most MAX_UNREADABLE_LISTED paths of unreadable images (4 KiB each at most):
# kilobytes, under 1 MiB however long the names; a few dozen objects and lists.
_MAX_RUN_JSON_BYTES = 1 << 20
MAX_RUN_JSON_CONTAINERS, MAX_RUN_JSON_VALUES = 1_000, 100_000
_MAX_UNREADABLE_LISTED = 100


def finished_run(out: Path, cfg: TrainConfig) -> dict | None:
    """The finished run's record if ``run.json`` exists with the same settings, else None."""
    path = out / "run.json"
    if not path.is_file():
        return None
    try:  # the one opening rule: a regular file, capped, JSON nested shallowly
        data = read_json(path, max_bytes=_MAX_RUN_JSON_BYTES, what="run record",
                         max_containers=MAX_RUN_JSON_CONTAINERS, max_values=MAX_RUN_JSON_VALUES)
    except UntrustedFileError as exc:
        raise CTVError("run_config_mismatch", f"{path}: {exc.message}; move the folder away to retrain") from None
    if not isinstance(data, dict):
        data = {}  # (not a record of ours: other settings)
    if data.get("identity_hash") != cfg.identity_hash():
        raise CTVError("run_config_mismatch", f"{path}: this run was made with other settings: "
                       f"{cfg.changed_settings(data.get('settings'))}; use another --runs-dir, or move the "
                       "folder away to retrain")
    _same_recording(path, cfg, data.get("settings"))
    return data


def _same_recording(path: Path, cfg: TrainConfig, stored: dict | None) -> None:
    """A run that recorded other things than asked is refused, never skipped or resumed into a mixed record."""
    changed = cfg.recording_changes(stored if isinstance(stored, dict) else None)
    if changed:
        raise CTVError("run_config_mismatch", f"{path}: this run recorded other things than asked: {changed}; "
                       "rerun with the run's flag, use another --runs-dir, or move the folder away to retrain")


def _device(cfg: TrainConfig, info: DistInfo) -> torch.device:
    try:
        return resolve_device(cfg.device, info.local_rank if info.enabled else None)
    except DeviceError as exc:
        # the code the PlantCLEF baseline gives too: one code for a missing device in every command
        raise CTVError("device_unavailable", str(exc)) from None


def _runtime(cfg: TrainConfig, device: torch.device) -> Runtime:
    prec = precision_for(cfg.amp, device)
    cl = {"auto": device.type == "cuda", "on": True, "off": False}[cfg.channels_last]
    return Runtime(device, prec.dtype, cl, tuple(cfg.mean), tuple(cfg.std), grad_scaler=prec.grad_scaler)


def _loaders(cfg: TrainConfig, data: FoldData, info: DistInfo, device: torch.device, log,
             unreadable_dir: Path | None = None, min_per_rank: int = 1, seed_stream=None):
    """(train loader, {split: eval loader}, {split: manifest rows}); ``seed_stream`` orders the training
    (default: the fold stream of ``cfg``)."""
    seed_stream = seed_stream or FoldStream(cfg, info)
    pipeline = pipeline_for(cfg)
    cache = None
    if cfg.cache:
        if info.is_main:
            log(f"cache: decoding {len(data.frame)} images into {cfg.cache} ({cfg.cache_size} px)")
            build_cache(data.frame["abspath"].tolist(), cfg.cache, cfg.cache_size, workers=cfg.num_workers or None)
        barrier(info, "cache: waiting for rank 0 to decode the images (raise --dist-timeout for a large cache)")
        file, rows = build_cache(data.frame["abspath"].tolist(), cfg.cache, cfg.cache_size)
        cache = (file, rows, cfg.cache_size)
    pin = {"auto": device.type == "cuda", "on": True, "off": False}[cfg.pin_memory]
    common = dict(num_workers=cfg.num_workers, pin_memory=pin,
                  # persistent workers keep their RNG across epochs, which breaks bit-identical resume
                  persistent_workers=cfg.num_workers > 0 and cfg.persistent_workers and not cfg.deterministic)
    if cfg.num_workers > 0:
        common["prefetch_factor"] = seed_stream.prefetch_factor
        common["multiprocessing_context"] = pipeline.worker_context()
    parts = {s: data.part(s) for s in ("train", "val", "test")}
    reading = dict(cache=cache, decode=pipeline.decode, unreadable=cfg.unreadable, unreadable_dir=unreadable_dir)
    train_ds = SplitDataset(parts["train"]["abspath"], parts["train"]["label"], pipeline.train(cfg), **reading)
    train = seed_stream.train_loader(train_ds, common, min_per_rank)
    if cfg.drop_last and len(train_ds) < cfg.batch_size:
        raise CTVError("bad_option", f"{len(train_ds)} train images < --batch-size {cfg.batch_size} with --drop-last: "
                       "no batch would be trained; lower --batch-size or pass --no-drop-last")
    evals = {}
    for s in (("train", "val", "test") if cfg.predict_train else ("val", "test")):
        ds = SplitDataset(parts[s]["abspath"], parts[s]["label"], pipeline.eval(cfg), **reading)
        evals[s] = DataLoader(ds, batch_size=seed_stream.eval_batch(), sampler=Shard(len(ds), info), **common)
    return train, evals, parts


def run_fold(cfg: TrainConfig, splits_dir: str | Path, runs_dir: str | Path, *, data_root: str | None = None,
             weights_dir: str | None = None, log=print, progress: bool = True,
             stop_after_epoch: int | None = None, continue_stream: bool = False, on_batch=None) -> dict:
    """Train (or resume, or skip) one run; return its ``run.json`` record (``status`` says which).

    ``continue_stream`` (``--seed-stream sweep``): the previous fold ran (or failed) in this process, so
    without its ``stream_after.pt`` the generators are already where it left them.
    """
    cfg.validate()
    if not cfg.fold:
        raise CTVError("bad_option", "no fold given (--fold NAME)")
    out = run_dir(runs_dir, cfg)
    done = finished_run(out, cfg)
    if done is not None:
        log(f"skip {cfg.protocol}/{cfg.arch}/{cfg.fold}: finished ({out / 'run.json'})")
        return {**done, "status": "skipped"}
    if stop_after_epoch is None and os.environ.get(_STOP_ENV):
        stop_after_epoch = int(os.environ[_STOP_ENV])

    device_kind = "cuda" if cfg.device.startswith("cuda") or (cfg.device == "auto" and torch.cuda.is_available()) \
        else "cpu"
    info = init_distributed(device_kind, cfg.dist_timeout)
    say = log if info.is_main else (lambda *_: None)
    if info.is_main:  # a killed or requeued attempt may have died mid-write: its temporaries go first
        removed = remove_leftover_temporaries(out / name for name in _RUN_FILES)
        if removed:
            say(f"removed {removed} temporary file(s) an interrupted attempt left in {out}")
    run = _set_up(cfg, splits_dir, out, data_root, weights_dir, info, say, progress, continue_stream, on_batch)
    _resume(run)
    first = run.state["epoch"] + 1
    for epoch in range(first, cfg.epochs + 1):
        # each attempt trains at least one epoch: a warning that comes too early (a --signal lead longer than
        # the attempt's time) still makes progress instead of requeueing forever
        if epoch > first and _stop_requested(info):
            raise StopRequested(f"stop requested ({os.environ.get(STOP_FILE_ENV)}) before epoch {epoch}; "
                                f"{run.last if run.state['epoch'] else 'nothing'} holds the run so far")
        if cfg.patience and run.state["epoch"] - run.state["best_epoch"] >= cfg.patience:
            break  # the script's early stop (S:662): `patience` epochs in a row without a better val accuracy
        _epoch(run, epoch)
        if stop_after_epoch is not None and epoch == stop_after_epoch and epoch < cfg.epochs:
            raise _Interrupted(f"stopped after epoch {epoch} ({_STOP_ENV})")
    return _finish(run)


@dataclass
class _Run:
    """Everything one training holds, made by ``_set_up`` and carried through resume, epochs and finish."""

    cfg: TrainConfig
    out: Path
    info: DistInfo
    log: object
    progress: bool
    device: torch.device
    rt: Runtime
    seed_stream: object          # FoldStream | SweepStream
    selection: Selection
    keeper: BestKeeper
    data: FoldData
    spec: ArchSpec
    weights: str | None
    model: torch.nn.Module
    train_model: torch.nn.Module  # the DDP wrap and/or compiled model that trains
    eval_model: torch.nn.Module   # the (compiled) model that predicts; the same parameters as ``model``
    train_loader: object
    eval_loaders: dict
    parts: dict
    optimizer: torch.optim.Optimizer
    scheduler: object
    criterion: torch.nn.Module
    scaler: object
    unreadable_dir: Path | None
    on_batch: object
    augment: object               # the pipeline's on-device train augmentation, or None
    stream_note: str = ""
    state: dict = field(default_factory=dict)
    t_resumed: float = 0.0

    @property
    def last(self) -> Path:
        return self.out / "last.pt"


def _set_up(cfg, splits_dir, out: Path, data_root, weights_dir, info: DistInfo, log, progress,
            continue_stream, on_batch) -> _Run:
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    device = _device(cfg, info)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    rt = _runtime(cfg, device)
    seed_stream = seed_stream_for(cfg, info)
    set_deterministic(cfg.deterministic)
    last = out / "last.pt"
    stream_note = seed_stream.begin(out, splits_dir, resuming=last.is_file(), continue_stream=continue_stream)
    data = load_fold(splits_dir, cfg.protocol, cfg.fold, data_root=data_root)
    seed_stream.before_model()
    spec = resolve_arch(cfg.arch)
    weights = find_weights(spec, cfg.weights, weights_dir) if cfg.pretrained else None
    if cfg.pretrained and weights is None and weights_dir and not cfg.allow_download:
        raise CTVError("weights_missing", f"{weights_dir}: no {spec.timm_name}.safetensors (or .pth) in this "
                       f"folder; {weights_hint(spec).replace('<weights-dir>', str(weights_dir))}")
    model = build_model(cfg.arch, len(data.classes), head=cfg.head, head_dropout=cfg.head_dropout,
                        head_hidden=cfg.head_hidden, pretrained=cfg.pretrained, weights=weights,
                        allow_download=cfg.allow_download, img_size=cfg.img_size,
                        script_init=seed_stream.script_init).to(device)
    if rt.channels_last:
        model = model.to(memory_format=torch.channels_last)
    unreadable_dir = out / ".unreadable" if cfg.unreadable == "black" else None
    if unreadable_dir is not None and unreadable_dir.is_dir() and not last.is_file():
        for marker in unreadable_dir.iterdir():  # our own markers of an earlier start: warn again on this one
            marker.unlink()
    # batch norm cannot train on one image: with it, every rank gets at least two per step (a last batch of one
    # joins the one before it; engine.needs_two_per_step)
    min_per_rank = 2 if needs_two_per_step(model) else 1
    train_loader, eval_loaders, parts = _loaders(cfg, data, info, device, log, unreadable_dir, min_per_rank,
                                                 seed_stream)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs, eta_min=cfg.min_lr)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    selection = SELECTIONS[cfg.selection]
    make_augment = pipeline_for(cfg).device_augment
    # seeded per epoch from the fold (sweep too) and the rank: the same draws on a CPU and a GPU
    augment = make_augment(cfg, fold_seed(cfg.seed, cfg.protocol, cfg.fold), info.rank) if make_augment else None
    run = _Run(cfg=cfg, out=out, info=info, log=log, progress=progress, device=device, rt=rt,
               seed_stream=seed_stream, selection=selection,
               keeper=BestKeeper(out / "best.pt", data.classes, cfg.to_dict(), info), data=data, spec=spec,
               weights=weights, model=model, train_model=model, eval_model=model, train_loader=train_loader,
               eval_loaders=eval_loaders, parts=parts, optimizer=optimizer, scheduler=scheduler,
               criterion=criterion, scaler=rt.make_scaler(), unreadable_dir=unreadable_dir, on_batch=on_batch,
               augment=augment,
               stream_note=stream_note,
               state={"epoch": 0, "best_val": selection.initial_best, "best_epoch": 0, "history": [],
                      "elapsed": 0.0, "train_images": 0, "train_seconds": 0.0})
    return run


def _resume(run: _Run) -> None:
    """Continue from ``last.pt`` when it is there (same settings only), then wrap the model for training."""
    cfg = run.cfg
    if run.last.is_file():
        ck = checkpoint.load(run.last)
        if ck.get("identity_hash") != cfg.identity_hash():
            raise CTVError("run_config_mismatch", f"{run.last}: checkpoint made with other settings: "
                           f"{cfg.changed_settings(ck.get('identity'))}; use another --runs-dir, or move it "
                           "away to start from epoch 1")
        recorded = ck.get("recording")
        if recorded is None and ck.get("state", {}).get("history"):  # a checkpoint of an earlier version
            recorded = {"eval_test_every_epoch": "test_acc" in ck["state"]["history"][0]}
        _same_recording(run.last, cfg, recorded)
        run.model.load_state_dict(ck["model"])
        run.optimizer.load_state_dict(ck["optimizer"])
        run.scheduler.load_state_dict(ck["scheduler"])
        run.state = ck["state"]
        if run.scaler is not None and ck.get("scaler"):
            run.scaler.load_state_dict(ck["scaler"])
        run.stream_note = run.seed_stream.resumed(ck) or run.stream_note
        run.log(f"resume {cfg.protocol}/{run.spec.key}/{cfg.fold} from epoch {run.state['epoch']} ({run.last})")
    if run.info.enabled:
        run.train_model = DDP(run.model, device_ids=[run.device.index] if run.device.type == "cuda" else None)
    if cfg.compile:
        run.train_model, run.eval_model = torch.compile(run.train_model), torch.compile(run.model)
    info, parts = run.info, run.parts
    run.log(f"run {cfg.protocol}/{run.spec.key}/{cfg.fold}: {len(parts['train'])} train, {len(parts['val'])} val, "
            f"{len(parts['test'])} test images, {len(run.data.classes)} classes, device {run.device}"
            f"{f' x{info.world}' if info.enabled else ''}, seed {run.seed_stream.seed}"
            f"{f'; stream {run.stream_note}' if run.stream_note else ''}")
    run.t_resumed = time.perf_counter()


def _epoch(run: _Run, epoch: int) -> None:
    """Train one epoch, evaluate what rank 0 saves, keep it if the selection says so, checkpoint."""
    cfg, info, state, rt = run.cfg, run.info, run.state, run.rt
    run.seed_stream.before_epoch(epoch, run.train_loader)
    if run.augment is not None:
        run.augment.set_epoch(epoch)
    lr = run.optimizer.param_groups[0]["lr"]
    with collective(info, f"epoch {epoch}: training"):
        tr = train_one_epoch(run.train_model, run.train_loader, run.optimizer, run.criterion, rt,
                             grad_clip=cfg.grad_clip, info=info, progress=run.progress, desc=f"epoch {epoch}",
                             scaler=run.scaler, on_batch=run.on_batch, global_sizes=run.seed_stream.step_sizes(),
                             augment=run.augment)
    # DDP keeps the parameters equal, not the BatchNorm statistics: evaluate what rank 0 saves
    broadcast_buffers(run.model, info, f"epoch {epoch}: buffers")
    val = predict(run.eval_model, run.eval_loaders["val"], rt, info=info, progress=run.progress,
                  desc=f"epoch {epoch} val")
    row = {"epoch": epoch, "lr": lr, "train_loss": tr["loss"], "train_acc": tr["acc"],
           "val_acc": accuracy(val), "train_images": tr["n"],
           "train_images_per_s": tr["n"] / max(tr["seconds"], 1e-9),
           "skipped_batches": tr["skipped_batches"]}
    if cfg.eval_test_every_epoch:
        row["test_acc"] = accuracy(predict(run.eval_model, run.eval_loaders["test"], rt, info=info,
                                           progress=run.progress, desc=f"epoch {epoch} test"))
    else:
        run.seed_stream.test_not_evaluated()
    state["train_images"] += tr["n"]
    state["train_seconds"] += tr["seconds"]
    improved = run.selection.improved(row["val_acc"], state["best_val"])
    if improved:
        state["best_val"], state["best_epoch"] = row["val_acc"], epoch
        run.keeper.keep(run.model, epoch)
    run.scheduler.step()
    state["history"].append(row)
    state["epoch"] = epoch
    state["elapsed"] += time.perf_counter() - run.t_resumed
    run.t_resumed = time.perf_counter()
    if info.is_main:
        checkpoint.save(run.last, {"model": run.model.state_dict(), "optimizer": run.optimizer.state_dict(),
                                   "scheduler": run.scheduler.state_dict(), "state": state,
                                   "scaler": run.scaler.state_dict() if run.scaler is not None else None,
                                   "stream": run.seed_stream.checkpoint_state(),
                                   "identity_hash": cfg.identity_hash(), "identity": cfg.identity(),
                                   "recording": cfg.recording()})
        outputs.write_history(run.out / "history.jsonl", state["history"])
    barrier(info, f"epoch {epoch}: checkpoint written")
    test_txt = f" test {row['test_acc']:.4f}" if "test_acc" in row else ""
    run.log(f"epoch {epoch}/{cfg.epochs} loss {row['train_loss']:.4f} train {row['train_acc']:.4f} "
            f"val {row['val_acc']:.4f}{test_txt} lr {lr:.3g} {row['train_images_per_s']:.0f} img/s"
            f"{' *' if improved else ''}")


def _finish(run: _Run) -> dict:
    """The kept model back, the splits predicted, the run's files written (``run.json`` last)."""
    cfg, info, state, rt, out = run.cfg, run.info, run.state, run.rt, run.out
    kept = run.keeper.restore(run.model, state["best_epoch"], state["epoch"])
    predicted = [s for s in ("train", "val", "test") if s in run.eval_loaders]
    with run.seed_stream.predictions():
        results = {s: predict(run.eval_model, run.eval_loaders[s], rt, info=info, progress=run.progress,
                              desc=f"final {s}") for s in predicted}
    elapsed = state["elapsed"] + time.perf_counter() - run.t_resumed
    record = None
    if info.is_main:
        parts, data, spec = run.parts, run.data, run.spec
        frames = [outputs.prediction_frame(parts[s], results[s], data.classes, s) for s in predicted]
        outputs.write_predictions(out / "predictions.csv", frames)
        val_acc, test_acc = accuracy(results["val"]), accuracy(results["test"])
        train_acc = accuracy(results["train"]) if "train" in results else None
        n_eval = sum(len(results[s]["label"]) for s in predicted)
        eval_s = sum(results[s]["seconds"] for s in predicted)
        unreadable = unreadable_paths(run.unreadable_dir) if run.unreadable_dir else []  # (the first 100 listed)
        record = {
            "schema_version": outputs.SCHEMA_VERSION, "status": "complete",
            "protocol": cfg.protocol, "arch": spec.key, "timm_model": spec.timm_name, "fold": cfg.fold,
            "preset": cfg.preset, "preset_source": PRESET_SOURCES.get(cfg.preset, ""), "settings": cfg.to_dict(),
            "identity_hash": cfg.identity_hash(),
            "seed": run.seed_stream.seed, "base_seed": cfg.seed, "classes": data.classes,
            "manifest": str(data.manifest), "data_root": str(data.root), "weights": run.weights,
            "train_teams": data.teams("train"), "val_teams": data.teams("val"), "test_teams": data.teams("test"),
            "n_train": len(parts["train"]), "n_val": len(parts["val"]), "n_test": len(parts["test"]),
            "best_epoch": state["best_epoch"] or state["epoch"], "epochs_run": state["epoch"],
            "early_stopped": state["epoch"] < cfg.epochs,
            "kept_epoch": kept,  # "last": no epoch beat 0 % val accuracy (--selection script)
            "seed_stream": run.seed_stream.record(run.stream_note),
            "unreadable_images": unreadable[:_MAX_UNREADABLE_LISTED], "n_unreadable_images": len(unreadable),
            "train_acc": train_acc, "val_acc": val_acc, "test_acc": test_acc,
            "vtg": validation_test_gap(val_acc, test_acc),
            "per_test_team_acc": outputs.team_accuracy(frames[-1]),
            "wall_time_s": elapsed,
            "train_images_per_s": state["train_images"] / max(state["train_seconds"], 1e-9),
            "eval_images_per_s": n_eval / max(eval_s, 1e-9),
            "device": {"type": run.device.type, "name": _device_name(run.device), "world_size": info.world,
                       "amp": str(rt.amp_dtype).replace("torch.", "") if rt.amp_dtype else "none",
                       "grad_scaler": rt.grad_scaler, "compiled": bool(cfg.compile),
                       "channels_last": rt.channels_last, "threads": torch.get_num_threads()},
            "versions": outputs.versions(),
        }
        run.seed_stream.hand_on(out)
        outputs.write_run_json(out / "run.json", record)
        if not cfg.keep_last and run.last.is_file():
            run.last.unlink()  # our own resume file; best.pt and run.json hold the result
        run.log(f"done {cfg.protocol}/{spec.key}/{cfg.fold}: best epoch {state['best_epoch']}, val {val_acc:.4f}, "
                f"test {test_acc:.4f}, {elapsed:.1f} s -> {out}")
    barrier(info, "run.json written")
    return record if record is not None else {"status": "complete", "rank": info.rank}


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)

    return platform.processor() or platform.machine()
