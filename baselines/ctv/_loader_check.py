"""``agrieval baselines ctv loader-check``: how many loader workers a fold's training needs on this machine.

One pass over the fold's train images through the preset's train pipeline, timed per image on this
machine's CPU (``threads`` torch threads; a DataLoader worker runs one):

* ``host``: the whole pipeline on the CPU, as on a machine without an accelerator. ``--transforms kit``:
  decode + resize per image, then ``BatchAugment`` on batches of ``--batch-size`` images; ``script``: the
  script's v1 transform per image.
* ``device``: what stays on the CPU when the augmentation runs on the accelerator: decode + resize
  (``kit``). The script's pipeline has no device part (its arithmetic is the CPU's), so its ``device``
  equals ``host``.

From each: images/s per worker (1000 / ms) and the workers needed for ``target`` training images/s
(``ceil(target / per worker)``). The timers cover only the work named, inside one wall-clock span that
the report gives too (``cpu_ms_per_image``: the same spans in the timing thread's CPU time, which other
jobs on a busy machine do not inflate) (``wall_s`` >= ``measured_s``; the difference is reading the manifest and one
untimed warm-up image and batch). Every image is read from disk, as a first epoch does
(``--cache`` makes the decode part cheaper; ``benchmarks/bench_train.py`` measures both).
"""

from __future__ import annotations

import math
import os
import platform
import time
from pathlib import Path

import torch

from agrieval.baselines.ctv._augment import BatchAugment
from agrieval.baselines.ctv._seeding import fold_seed
from agrieval.baselines.ctv.config import TrainConfig
from agrieval.baselines.ctv.errors import CTVError
from agrieval.scoring.text.terminal import cell

# Imported inside functions, so that importing this module loads only what it needs: baselines.ctv.dataset (it loads
# concurrent.futures, multiprocessing); baselines.ctv.manifest (it loads pandas, pyarrow);
# baselines.ctv.script_transforms, baselines.ctv.transforms (they load PIL, torch, torchvision).


def loader_check(cfg: TrainConfig, splits_dir: str | Path, *, data_root: str | None = None, threads: int = 1,
                 target: float = 2500.0, limit: int | None = None, progress=None) -> dict:
    from agrieval.baselines.ctv._dataset import SplitDataset
    from agrieval.baselines.ctv._script_transforms import script_train_transform
    from agrieval.baselines.ctv._transforms import decode_transform
    from agrieval.baselines.ctv.manifest import load_fold

    if threads < 1:
        raise CTVError("bad_option", f"--threads must be >= 1, got {threads}")
    if target <= 0:
        raise CTVError("bad_option", f"--target must be > 0 images/s, got {target}")
    t_wall = time.perf_counter()
    data = load_fold(splits_dir, cfg.protocol, cfg.fold, data_root=data_root)
    train = data.part("train")
    paths, labels = list(train["abspath"]), list(train["label"])
    if limit:
        paths, labels = paths[:limit], labels[:limit]
    if not paths:
        raise CTVError("bad_option", f"fold {cfg.fold}: no train images to time")
    script = cfg.transforms == "script"
    reading = dict(decode="pil" if script else "tensor", unreadable=cfg.unreadable)
    ds = SplitDataset(paths, labels, script_train_transform(cfg) if script else decode_transform(cfg), **reading)
    augment = None if script else BatchAugment(cfg, fold_seed(cfg.seed, cfg.protocol, cfg.fold))
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        # warm-up, untimed (inside the wall time): first calls allocate and pick kernels
        warm = torch.stack([ds[0][0]] * 2) if augment is not None else ds[0][0]
        if augment is not None:
            augment(warm)
        cpu_part = aug_s = cpu_part_cpu = aug_cpu = 0.0
        batch: list[torch.Tensor] = []
        for i in range(len(ds)):
            t, c = time.perf_counter(), time.thread_time()
            x = ds[i][0]
            cpu_part += time.perf_counter() - t
            cpu_part_cpu += time.thread_time() - c
            if augment is not None:
                batch.append(x)
                if len(batch) == cfg.batch_size or i == len(ds) - 1:
                    t, c = time.perf_counter(), time.thread_time()
                    augment(torch.stack(batch))
                    aug_s += time.perf_counter() - t
                    aug_cpu += time.thread_time() - c
                    batch = []
            if progress:
                progress(i + 1, len(ds))
    finally:
        torch.set_num_threads(before)
    n = len(ds)
    ms = {"host": 1000 * (cpu_part + aug_s) / n, "device": 1000 * cpu_part / n}
    per_worker = {k: 1000 / v for k, v in ms.items()}
    return {
        "images": n, "threads": threads, "host_ms_per_image": ms,
        "images_per_s_per_worker": per_worker,
        "workers_for_target": {k: math.ceil(target / v) for k, v in per_worker.items()},
        "target_images_per_s": target,
        "preset": cfg.preset, "transforms": cfg.transforms, "protocol": cfg.protocol, "fold": cfg.fold,
        "img_size": cfg.img_size, "batch_size": cfg.batch_size,
        "augment_on_cpu_ms_per_image": 1000 * aug_s / n,
        # the timing thread's CPU time: equal to the wall time on an idle machine, lower on a busy one
        "cpu_ms_per_image": {"host": 1000 * (cpu_part_cpu + aug_cpu) / n, "device": 1000 * cpu_part_cpu / n},
        "measured_s": cpu_part + aug_s, "wall_s": time.perf_counter() - t_wall,
        "cpu": _cpu_name(), "cpu_count": _cpu_count(),
    }


def format_report(r: dict) -> str:
    where = {"host": "whole pipeline on the CPU", "device": "augmentation on a device (the CPU's part)"}
    workers = f"workers for {r['target_images_per_s']:,.0f}/s"
    lines = [f"loader check: {r['images']} train images of {r['protocol']}/{r['fold']}, preset {r['preset']} "
             f"(--transforms {r['transforms']}), {r['img_size']} px, {r['threads']} thread(s), on {r['cpu']} "
             f"({r['cpu_count']} CPUs)",
             f"{'':44} {'ms/image':>9} {'images/s per worker':>20} {cell(workers, 20, '>')}"]
    for k in ("host", "device"):
        lines.append(f"{cell(where[k], 44)} {r['host_ms_per_image'][k]:9.2f} {r['images_per_s_per_worker'][k]:20,.0f} "
                     f"{r['workers_for_target'][k]:20d}")
    busy = r["host_ms_per_image"]["host"] / max(r["cpu_ms_per_image"]["host"], 1e-9)
    if busy > 1.25:
        lines.append(f"(this machine is busy: wall time {busy:.1f}x the timing thread's CPU time, "
                     f"{r['cpu_ms_per_image']['host']:.2f} / {r['cpu_ms_per_image']['device']:.2f} ms per image; "
                     "the figures above count the wall time)")
    if r["transforms"] == "script":
        lines.append("(--transforms script: the script's augmentation is CPU arithmetic, nothing moves to a device)")
    lines.append(f"CPUs per GPU at the target: about {r['workers_for_target']['device'] + 1} (--num-workers "
                 f"{r['workers_for_target']['device']}, plus the training process); timed {r['measured_s']:.1f} s "
                 f"of {r['wall_s']:.1f} s wall")
    return "\n".join(lines) + "\n"


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass

    return platform.processor() or platform.machine()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
