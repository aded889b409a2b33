"""Train one fold: ``run_fold(cfg, splits_dir, runs_dir)``.

Order of work: skip if ``run.json`` is there (same settings) -> seed -> load
the manifest -> build the model -> resume from ``last.pt`` if present -> per
epoch: train, validate (and test with ``eval_test_every_epoch``), keep
``best.pt`` on a strictly higher validation accuracy (the test split never
chooses anything), checkpoint -> reload ``best.pt``, predict val and test,
write ``predictions.csv``, ``history.jsonl``, and ``run.json`` last (its
presence marks the run finished). Under torchrun only rank 0 writes.

``--seed-stream sweep`` (official) replaces the per-fold seeds by the script's one stream
(``baselines.ctv.stream``): no reseeding, the script's loaders, the state handed from fold to fold.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader

from baselines.ctv import checkpoint, outputs, stream
from baselines.ctv.archs import resolve_arch
from baselines.ctv.cache import build_cache
from baselines.ctv.config import PRESET_SOURCES, TrainConfig
from baselines.ctv.dataset import SplitDataset, unreadable_paths
from baselines.ctv.distributed import (DistInfo, EpochBatches, Shard, barrier, broadcast_buffers, collective,
                                      init_distributed)
from baselines.ctv.engine import Runtime, accuracy, predict, train_one_epoch
from baselines.ctv.errors import CTVError
from baselines.ctv.loader_workers import worker_context
from baselines.ctv.manifest import FoldData, list_folds, load_fold
from baselines.ctv.models import build_model, find_weights
from baselines.ctv.seeding import derive_seed, fold_seed, seed_everything, set_deterministic
from baselines.ctv.script_transforms import script_eval_transform, script_train_transform
from baselines.ctv.transforms import eval_transform, train_transform

STOP_ENV = "AGRIEVAL_CTV_STOP_AFTER_EPOCH"  # test hook: behave as if killed after this epoch


class Interrupted(Exception):
    """Raised by the stop-after-epoch hook, after that epoch's checkpoint is on disk."""


def run_dir(runs_dir: str | Path, cfg: TrainConfig) -> Path:
    return Path(runs_dir) / cfg.protocol / resolve_arch(cfg.arch).key / cfg.fold


def run_status(path: Path) -> str:
    if (path / "run.json").is_file():
        return "done"
    if (path / "last.pt").is_file():
        return "partial"
    return "pending"


def finished_run(out: Path, cfg: TrainConfig) -> dict | None:
    """The finished run's record if ``run.json`` exists with the same settings, else None."""
    path = out / "run.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("identity_hash") != cfg.identity_hash():
        raise CTVError("run_config_mismatch", f"{path}: this run was made with other settings: "
                       f"{cfg.changed_settings(data.get('settings'))}; use another --runs-dir, or move the "
                       "folder away to retrain")
    return data


def _device(cfg: TrainConfig, info: DistInfo) -> torch.device:
    from baselines.device import DeviceError, resolve_device

    try:
        return resolve_device(cfg.device, info.local_rank if info.enabled else None)
    except DeviceError as exc:
        # the code the PlantCLEF baseline gives too: one code for a missing device in every command
        raise CTVError("device_unavailable", str(exc)) from None


def amp_dtype(amp: str, device: torch.device) -> torch.dtype | None:
    """The autocast dtype of ``--amp`` on this device; ``script`` is the script's USE_MIXED_PRECISION
    (S:149: CUDA of compute capability >= 7, fp16 with a GradScaler)."""
    on_cuda = device.type == "cuda"
    if amp == "script":
        return torch.float16 if on_cuda and torch.cuda.get_device_capability(device)[0] >= 7 else None
    if amp == "fp16":
        if not on_cuda:
            raise CTVError("bad_option", "--amp fp16 needs CUDA (the script's fp16 path); use --amp none on CPU")
        return torch.float16
    return {"auto": torch.bfloat16 if on_cuda else None, "bf16": torch.bfloat16, "none": None}[amp]


def _runtime(cfg: TrainConfig, device: torch.device) -> Runtime:
    dtype = amp_dtype(cfg.amp, device)
    cl = {"auto": device.type == "cuda", "on": True, "off": False}[cfg.channels_last]
    return Runtime(device, dtype, cl, tuple(cfg.mean), tuple(cfg.std), grad_scaler=dtype == torch.float16)


def _loaders(cfg: TrainConfig, data: FoldData, seed: int, info: DistInfo, device: torch.device, log,
             unreadable_dir: Path | None = None, min_per_rank: int = 1):
    cache = None
    if cfg.cache:
        if info.is_main:
            log(f"cache: decoding {len(data.frame)} images into {cfg.cache} ({cfg.cache_size} px)")
            build_cache(data.frame["abspath"].tolist(), cfg.cache, cfg.cache_size, workers=cfg.num_workers or None)
        barrier(info, "cache: waiting for rank 0 to decode the images (raise --dist-timeout for a large cache)")
        file, rows = build_cache(data.frame["abspath"].tolist(), cfg.cache, cfg.cache_size)
        cache = (file, rows, cfg.cache_size)
    per_rank = max(1, cfg.batch_size // info.world)
    pin = {"auto": device.type == "cuda", "on": True, "off": False}[cfg.pin_memory]
    common = dict(num_workers=cfg.num_workers, pin_memory=pin,
                  # persistent workers keep their RNG across epochs, which breaks bit-identical resume
                  persistent_workers=cfg.num_workers > 0 and cfg.persistent_workers and not cfg.deterministic)
    script = cfg.transforms == "script"
    if cfg.num_workers > 0:
        common["prefetch_factor"] = 4
        common["multiprocessing_context"] = worker_context(script)
    parts = {s: data.part(s) for s in ("train", "val", "test")}
    make_train, make_eval = (script_train_transform, script_eval_transform) if script else (train_transform,
                                                                                              eval_transform)
    reading = dict(cache=cache, decode="pil" if script else "tensor", unreadable=cfg.unreadable,
                   unreadable_dir=unreadable_dir)
    train_ds = SplitDataset(parts["train"]["abspath"], parts["train"]["label"], make_train(cfg), **reading)
    eval_batch = per_rank * 2
    if cfg.seed_stream == "sweep":
        # the script's loaders (S:846-855, 1102-1110): shuffle=True draws its permutation from torch's global
        # generator, eval batches of 4 x batch (TOTO) or batch (LOTO), prefetch 2; manifests list train rows
        # in the script's dataset order
        sampler = None
        if cfg.num_workers > 0:
            common["prefetch_factor"] = 2
        train = DataLoader(train_ds, batch_size=per_rank, shuffle=True, drop_last=cfg.drop_last, **common)
        eval_batch = 4 * cfg.batch_size if cfg.protocol == "toto" else cfg.batch_size
    else:
        sampler = EpochBatches(len(train_ds), cfg.batch_size, seed, info, drop_last=cfg.drop_last,
                               min_per_rank=min_per_rank)
        train = DataLoader(train_ds, batch_sampler=sampler, **common)
    if cfg.drop_last and len(train_ds) < cfg.batch_size:
        raise CTVError("bad_option", f"{len(train_ds)} train images < --batch-size {cfg.batch_size} with --drop-last: "
                       "no batch would be trained; lower --batch-size or pass --no-drop-last")
    evals = {}
    for s in (("train", "val", "test") if cfg.predict_train else ("val", "test")):
        ds = SplitDataset(parts[s]["abspath"], parts[s]["label"], make_eval(cfg), **reading)
        evals[s] = DataLoader(ds, batch_size=eval_batch, sampler=Shard(len(ds), info), **common)
    return train, sampler, evals, parts


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
    if stop_after_epoch is None and os.environ.get(STOP_ENV):
        stop_after_epoch = int(os.environ[STOP_ENV])

    device_kind = "cuda" if cfg.device.startswith("cuda") or (cfg.device == "auto" and torch.cuda.is_available()) \
        else "cpu"
    info = init_distributed(device_kind, cfg.dist_timeout)
    say = log if info.is_main else (lambda *_: None)
    return _train(cfg, splits_dir, out, data_root, weights_dir, info, say, progress, stop_after_epoch,
                  continue_stream, on_batch)


def _train(cfg, splits_dir, out: Path, data_root, weights_dir, info: DistInfo, log, progress, stop_after_epoch,
           continue_stream=False, on_batch=None):
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    device = _device(cfg, info)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    rt = _runtime(cfg, device)
    sweep = cfg.seed_stream == "sweep"
    if sweep and info.enabled:
        raise CTVError("bad_option", "--seed-stream sweep is the script's single-process stream; under torchrun "
                       "use --seed-stream fold")
    seed = cfg.seed if sweep else fold_seed(cfg.seed, cfg.protocol, cfg.fold)
    set_deterministic(cfg.deterministic)
    last = out / "last.pt"
    stream_note = ""
    if sweep and not last.is_file():
        folds = list_folds(splits_dir, cfg.protocol)
        i = folds.index(cfg.fold) if cfg.fold in folds else 0
        prev = out.parent / folds[i - 1] if i else None
        stream_note = stream.start(cfg.seed, folds, cfg.fold, prev, continue_stream=continue_stream)
    if sweep:  # the script's cuDNN flags (set_random_seeds), whatever --deterministic says
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    data = load_fold(splits_dir, cfg.protocol, cfg.fold, data_root=data_root)
    if not sweep:
        seed_everything(derive_seed(seed, "init"))
    spec = resolve_arch(cfg.arch)
    weights = find_weights(spec, cfg.weights, weights_dir) if cfg.pretrained else None
    if cfg.pretrained and weights is None and weights_dir and not cfg.allow_download:
        from baselines.ctv.models import weights_hint

        raise CTVError("weights_missing", f"{weights_dir}: no {spec.timm_name}.safetensors (or .pth) in this "
                       f"folder; {weights_hint(spec).replace('<weights-dir>', str(weights_dir))}")
    model = build_model(cfg.arch, len(data.classes), head=cfg.head, head_dropout=cfg.head_dropout,
                        head_hidden=cfg.head_hidden, pretrained=cfg.pretrained, weights=weights,
                        allow_download=cfg.allow_download, img_size=cfg.img_size,
                        script_init=sweep).to(device)
    if rt.channels_last:
        model = model.to(memory_format=torch.channels_last)
    unreadable_dir = out / ".unreadable" if cfg.unreadable == "black" else None
    if unreadable_dir is not None and unreadable_dir.is_dir() and not last.is_file():
        for marker in unreadable_dir.iterdir():  # our own markers of an earlier start: warn again on this one
            marker.unlink()
    min_per_rank = 2 if any(isinstance(m, torch.nn.BatchNorm1d) for m in model.modules()) else 1
    train_loader, sampler, eval_loaders, parts = _loaders(cfg, data, seed, info, device, log, unreadable_dir,
                                                          min_per_rank)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs, eta_min=cfg.min_lr)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)

    # the script's rule (S:556, 651): best starts at 0.0, so an epoch must beat 0 % to be kept
    state = {"epoch": 0, "best_val": 0.0 if cfg.selection == "script" else -1.0, "best_epoch": 0, "history": [],
             "elapsed": 0.0, "train_images": 0, "train_seconds": 0.0}
    scaler = rt.make_scaler()
    if last.is_file():
        ck = checkpoint.load(last)
        if ck.get("identity_hash") != cfg.identity_hash():
            raise CTVError("run_config_mismatch", f"{last}: checkpoint made with other settings: "
                           f"{cfg.changed_settings(ck.get('identity'))}; use another --runs-dir, or move it "
                           "away to start from epoch 1")
        model.load_state_dict(ck["model"])
        optimizer.load_state_dict(ck["optimizer"])
        scheduler.load_state_dict(ck["scheduler"])
        state = ck["state"]
        if scaler is not None and ck.get("scaler"):
            scaler.load_state_dict(ck["scaler"])
        if sweep:
            stream.restore(ck["stream"])
            stream_note = "resumed from the stream saved in last.pt"
        log(f"resume {cfg.protocol}/{spec.key}/{cfg.fold} from epoch {state['epoch']} ({last})")
    train_model = model
    if info.enabled:
        from torch.nn.parallel import DistributedDataParallel as DDP

        train_model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    eval_model = model
    if cfg.compile:
        train_model, eval_model = torch.compile(train_model), torch.compile(model)

    log(f"run {cfg.protocol}/{spec.key}/{cfg.fold}: {len(parts['train'])} train, {len(parts['val'])} val, "
        f"{len(parts['test'])} test images, {len(data.classes)} classes, device {device}"
        f"{f' x{info.world}' if info.enabled else ''}, seed {seed}{f'; stream {stream_note}' if stream_note else ''}")
    t_resumed = time.perf_counter()
    for epoch in range(state["epoch"] + 1, cfg.epochs + 1):
        if cfg.patience and state["epoch"] - state["best_epoch"] >= cfg.patience:
            break  # the script's early stop (S:662): `patience` epochs in a row without a better val accuracy
        if not sweep:
            seed_everything(derive_seed(seed, "epoch", epoch, info.rank))
            sampler.set_epoch(epoch)
        lr = optimizer.param_groups[0]["lr"]
        if sweep:
            # the script iterates tqdm.auto.tqdm(train_loader) (S:579); that tqdm (tqdm.asyncio's) calls
            # iter(loader) in its constructor, and its loop calls it again: one discarded iterator per epoch,
            # which takes a base seed (and, with workers, prefetches) from the stream. Made here the same way.
            iter(train_loader)
        with collective(info, f"epoch {epoch}: training"):
            tr = train_one_epoch(train_model, train_loader, optimizer, criterion, rt, grad_clip=cfg.grad_clip,
                                 info=info, progress=progress, desc=f"epoch {epoch}", scaler=scaler,
                                 on_batch=on_batch, global_sizes=sampler.global_sizes() if sampler else None)
        # DDP keeps the parameters equal, not the BatchNorm statistics: evaluate what rank 0 saves
        broadcast_buffers(model, info, f"epoch {epoch}: buffers")
        val = predict(eval_model, eval_loaders["val"], rt, info=info, progress=progress, desc=f"epoch {epoch} val")
        row = {"epoch": epoch, "lr": lr, "train_loss": tr["loss"], "train_acc": tr["acc"],
               "val_acc": accuracy(val), "train_images": tr["n"],
               "train_images_per_s": tr["n"] / max(tr["seconds"], 1e-9),
               "skipped_batches": tr["skipped_batches"]}
        if cfg.eval_test_every_epoch:
            row["test_acc"] = accuracy(predict(eval_model, eval_loaders["test"], rt, info=info,
                                               progress=progress, desc=f"epoch {epoch} test"))
        elif sweep:
            stream.loader_draws(1)  # the script evaluates the test split every epoch (S:640)
        state["train_images"] += tr["n"]
        state["train_seconds"] += tr["seconds"]
        improved = row["val_acc"] > state["best_val"]
        if improved:
            state["best_val"], state["best_epoch"] = row["val_acc"], epoch
            if info.is_main:
                checkpoint.save(out / "best.pt", {"model": model.state_dict(), "classes": data.classes,
                                                  "epoch": epoch, "config": cfg.to_dict()})
        scheduler.step()
        state["history"].append(row)
        state["epoch"] = epoch
        state["elapsed"] += time.perf_counter() - t_resumed
        t_resumed = time.perf_counter()
        if info.is_main:
            checkpoint.save(last, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                                   "scheduler": scheduler.state_dict(), "state": state,
                                   "scaler": scaler.state_dict() if scaler is not None else None,
                                   "stream": stream.capture() if sweep else None,
                                   "identity_hash": cfg.identity_hash(), "identity": cfg.identity()})
            outputs.write_history(out / "history.jsonl", state["history"])
        barrier(info, f"epoch {epoch}: checkpoint written")
        test_txt = f" test {row['test_acc']:.4f}" if "test_acc" in row else ""
        log(f"epoch {epoch}/{cfg.epochs} loss {row['train_loss']:.4f} train {row['train_acc']:.4f} "
            f"val {row['val_acc']:.4f}{test_txt} lr {lr:.3g} {row['train_images_per_s']:.0f} img/s"
            f"{' *' if improved else ''}")
        if stop_after_epoch is not None and epoch == stop_after_epoch and epoch < cfg.epochs:
            raise Interrupted(f"stopped after epoch {epoch} ({STOP_ENV})")

    kept = "best"
    if state["best_epoch"] == 0:
        # --selection script and no epoch beat 0 %: the script restores nothing (S:667), the last epoch stays
        kept = "last"
        if info.is_main:
            checkpoint.save(out / "best.pt", {"model": model.state_dict(), "classes": data.classes,
                                              "epoch": state["epoch"], "config": cfg.to_dict()})
    else:
        best = checkpoint.load(out / "best.pt")
        model.load_state_dict(best["model"])
    before_predictions = stream.capture() if sweep else None
    predicted = [s for s in ("train", "val", "test") if s in eval_loaders]
    results = {s: predict(eval_model, eval_loaders[s], rt, info=info, progress=progress, desc=f"final {s}")
               for s in predicted}
    if sweep:
        stream.restore(before_predictions)
        stream.after_training(persistent_test_workers=cfg.num_workers > 0 and cfg.persistent_workers
                              and not cfg.deterministic)
    elapsed = state["elapsed"] + time.perf_counter() - t_resumed
    record = None
    if info.is_main:
        frames = [outputs.prediction_frame(parts[s], results[s], data.classes, s) for s in predicted]
        outputs.write_predictions(out / "predictions.csv", frames)
        val_acc, test_acc = accuracy(results["val"]), accuracy(results["test"])
        train_acc = accuracy(results["train"]) if "train" in results else None
        n_eval = sum(len(results[s]["label"]) for s in predicted)
        eval_s = sum(results[s]["seconds"] for s in predicted)
        record = {
            "schema_version": outputs.SCHEMA_VERSION, "status": "complete",
            "protocol": cfg.protocol, "arch": spec.key, "timm_model": spec.timm_name, "fold": cfg.fold,
            "preset": cfg.preset, "preset_source": PRESET_SOURCES.get(cfg.preset, ""), "settings": cfg.to_dict(),
            "identity_hash": cfg.identity_hash(),
            "seed": seed, "base_seed": cfg.seed, "classes": data.classes,
            "manifest": str(data.manifest), "data_root": str(data.root), "weights": weights,
            "train_teams": data.teams("train"), "val_teams": data.teams("val"), "test_teams": data.teams("test"),
            "n_train": len(parts["train"]), "n_val": len(parts["val"]), "n_test": len(parts["test"]),
            "best_epoch": state["best_epoch"] or state["epoch"], "epochs_run": state["epoch"],
            "early_stopped": state["epoch"] < cfg.epochs,
            "kept_epoch": kept,  # "last": no epoch beat 0 % val accuracy (--selection script)
            "seed_stream": {"kind": cfg.seed_stream, "start": stream_note} if sweep else {"kind": "fold"},
            "unreadable_images": unreadable_paths(unreadable_dir) if unreadable_dir else [],
            "train_acc": train_acc, "val_acc": val_acc, "test_acc": test_acc, "vtg": val_acc - test_acc,
            "per_test_team_acc": outputs.team_accuracy(frames[-1]),
            "wall_time_s": elapsed,
            "train_images_per_s": state["train_images"] / max(state["train_seconds"], 1e-9),
            "eval_images_per_s": n_eval / max(eval_s, 1e-9),
            "device": {"type": device.type, "name": _device_name(device), "world_size": info.world,
                       "amp": str(rt.amp_dtype).replace("torch.", "") if rt.amp_dtype else "none",
                       "grad_scaler": rt.grad_scaler, "compiled": bool(cfg.compile),
                       "channels_last": rt.channels_last, "threads": torch.get_num_threads()},
            "versions": outputs.versions(),
        }
        if sweep:
            stream.save_after(out)  # before run.json: a finished fold always hands its stream on
        outputs.write_run_json(out / "run.json", record)
        if not cfg.keep_last and last.is_file():
            last.unlink()  # our own resume file; best.pt and run.json hold the result
        log(f"done {cfg.protocol}/{spec.key}/{cfg.fold}: best epoch {state['best_epoch']}, val {val_acc:.4f}, "
            f"test {test_acc:.4f}, {elapsed:.1f} s -> {out}")
    barrier(info, "run.json written")
    return record if record is not None else {"status": "complete", "rank": info.rank}


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    import platform

    return platform.processor() or platform.machine()
