"""CTV training throughput: the host's part per image, the loader, and the model, in one run.

Per training image, first (one thread, 336 px JPEGs of real photos -> 224 px, the paper preset's
augmentation), side by side in interleaved rounds, the median of each: a plain torchvision v1 PIL pipeline
with the same augmentations (the reference: the public script's ``get_transforms``); the kit's old
per-sample pipeline (torchvision v2 on uint8); decode alone and decode + resize to 256 (what a loader
worker does when the augmentation runs on the device); the batched augmentation (``BatchAugment``) per
image on the CPU; and the kit's whole pipeline on a CPU-only machine (decode + resize, then the batched
augmentation on the CPU). Times are the timing thread's CPU time (``time.thread_time``), so that other jobs
on a shared machine do not count; the ratios are to the plain pipeline of the same run.

Then the loader's own images/s (model skipped) on the same kind of JPEGs
through the workers' part (decode + resize), from disk and from the
``--cache`` memmap; and for each arch training images/s (the batched
augmentation on the device included) and evaluation images/s on synthetic
uint8 batches. The last column says which side is
the bottleneck. Targets on one H100/H200 at 224 px bf16: DenseNet121 >= 2,500
and Swin-Tiny >= 2,000 training img/s, with the loader faster than the model.

    python benchmarks/bench_train.py                      # CPU: tiny models, 64 px
    python benchmarks/bench_train.py --device cuda --archs densenet121,swin_tiny --img-size 224 --workers 16
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from agrieval.scoring.cli._failures import exit_unless_installed

# Before the imports below: a missing extra is one line naming its pip install, not a traceback.
exit_unless_installed("python benchmarks/bench_train.py", "torch", "timm", "PIL")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402


def make_images(folder: Path, n: int, size: int = 336) -> list[str]:
    from PIL import Image
    from skimage import data

    photos = [data.astronaut(), data.coffee(), data.chelsea()]
    rng = np.random.default_rng(0)
    paths = []
    for i in range(n):
        img = photos[i % 3]
        s = int(min(img.shape[:2]) * 0.9)
        y, x = rng.integers(0, img.shape[0] - s + 1), rng.integers(0, img.shape[1] - s + 1)
        im = Image.fromarray(img[y:y + s, x:x + s]).resize((size, size), Image.BICUBIC)
        p = folder / f"{i:05d}.jpg"
        im.save(p, quality=95)
        paths.append(str(p))
    return paths


def host_rows(paths: list[str], cfg, rounds: int) -> list[tuple[str, float]]:
    """(row, ms per image): median over interleaved rounds of the same images through each pipeline."""
    import statistics

    from PIL import Image
    from torchvision.transforms.v2.functional import pil_to_tensor

    from agrieval.baselines.ctv._augment import BatchAugment
    from agrieval.baselines.ctv._dataset import load_image
    from agrieval.baselines.ctv._script_transforms import script_train_transform
    from agrieval.baselines.ctv._transforms import decode_transform, train_transform

    plain, per_sample, resize = script_train_transform(cfg), train_transform(cfg), decode_transform(cfg)
    augment = BatchAugment(cfg, seed=0)
    resized = torch.stack([resize(load_image(p)) for p in paths])

    def kit_cpu_only():
        augment(torch.stack([resize(load_image(p)) for p in paths]))

    rows = {
        "plain torchvision v1 PIL pipeline, same augmentations (reference)":
            lambda: [plain(Image.open(p).convert("RGB")) for p in paths],
        "the kit's old per-sample transform (torchvision v2 on uint8)":
            lambda: [per_sample(load_image(p)) for p in paths],
        "decode alone": lambda: [pil_to_tensor(Image.open(p).convert("RGB")) for p in paths],
        "decode + resize to 256 = the CPU part, augmentation on the device":
            lambda: [resize(load_image(p)) for p in paths],
        f"batched augmentation on the CPU, per image ({len(paths)} a batch)": lambda: augment(resized),
        "the kit on a CPU-only machine (decode + resize + batched augmentation)": kit_cpu_only,
    }
    times: dict[str, list[float]] = {k: [] for k in rows}
    for fn in rows.values():
        fn()  # warm-up
    for _ in range(rounds):
        for name, fn in rows.items():
            t = time.thread_time()
            fn()
            times[name].append(1000 * (time.thread_time() - t) / len(paths))
    return [(name, statistics.median(v)) for name, v in times.items()]


def loader_ips(paths, cfg, workers: int, batches: int, cache=None) -> float:
    from agrieval.baselines.ctv._dataset import SplitDataset
    from agrieval.baselines.ctv._transforms import decode_transform

    ds = SplitDataset(paths, [0] * len(paths), decode_transform(cfg), cache=cache)
    dl = DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, num_workers=workers, drop_last=True,
                    persistent_workers=workers > 0, pin_memory=torch.cuda.is_available())
    it = iter(dl)
    next(it)  # worker start-up is not throughput
    t, n = time.perf_counter(), 0
    for _ in range(batches):
        try:
            x, _, _ = next(it)
        except StopIteration:
            it = iter(dl)
            x, _, _ = next(it)
        n += len(x)
    return n / (time.perf_counter() - t)


def model_ips(arch: str, cfg, device: torch.device, steps: int) -> tuple[float, float]:
    from agrieval.baselines.ctv.engine import Runtime
    from agrieval.baselines.ctv.models import build_model

    model = build_model(arch, 6, img_size=cfg.img_size).to(device)
    cl = device.type == "cuda"
    if cl:
        model = model.to(memory_format=torch.channels_last)
    rt = Runtime(device, torch.bfloat16 if device.type == "cuda" else None, cl, cfg.mean, cfg.std)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    from agrieval.baselines.ctv._augment import BatchAugment

    augment = BatchAugment(cfg, seed=0)  # train steps include the batched augmentation on the device
    x = torch.randint(0, 256, (cfg.batch_size, 3, cfg.img_size, cfg.img_size), dtype=torch.uint8)
    x_train = torch.randint(0, 256, (cfg.batch_size, 3, cfg.resize_size, cfg.resize_size), dtype=torch.uint8)
    y = torch.randint(0, 6, (cfg.batch_size,)).to(device)

    def train_step():
        with rt.autocast():
            loss = loss_fn(model(rt.to_input(augment(x_train.to(device, non_blocking=True)))).float(), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    @torch.no_grad()
    def eval_step():
        with rt.autocast():
            model(rt.to_input(x))

    out = []
    for fn, mode in ((train_step, model.train), (eval_step, model.eval)):
        mode()
        for _ in range(2):
            fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(steps):
            fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        out.append(cfg.batch_size * steps / (time.perf_counter() - t))
    return out[0], out[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--archs", default=None, help="default: tiny_cnn,tiny_vit on CPU; densenet121,swin_tiny on CUDA")
    ap.add_argument("--img-size", type=int, default=None, help="default: 64 on CPU, 224 on CUDA")
    ap.add_argument("--batch-size", type=int, default=None, help="default: 16 on CPU, 128 on CUDA")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--images", type=int, default=None, help="JPEGs for the loader test (default 64 CPU, 1024 CUDA)")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds of the per-image rows")
    args = ap.parse_args()

    from agrieval.baselines._device import device_or_exit
    from agrieval.baselines.ctv._cache import build_cache
    from agrieval.baselines.ctv.config import make_config

    device = device_or_exit(args.device)  # a missing GPU: error [device_unavailable], exit 2
    cuda = device.type == "cuda"
    archs = (args.archs or ("densenet121,swin_tiny" if cuda else "tiny_cnn,tiny_vit")).split(",")
    img = args.img_size or (224 if cuda else 64)
    bs = args.batch_size or (128 if cuda else 16)
    n_img = args.images or (1024 if cuda else 64)
    steps = args.steps or (20 if cuda else 5)
    cfg = make_config("paper", fold="-", img_size=img, resize_size=max(img, int(img * 256 / 224)), batch_size=bs)
    print(f"device {device}, {img} px, batch {bs}, loader: {args.workers} workers, torch {torch.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_images(Path(tmp), n_img)
        host_cfg = make_config("paper", fold="-")  # 224 px from 256, the study's sizes, whatever the device
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # a loader worker's one thread
        rows = host_rows(paths[:32], host_cfg, args.rounds)
        torch.set_num_threads(threads)
        ref = rows[0][1]
        print(f"per training image, 1 thread, 336 px JPEG -> 224 px, median of {args.rounds} interleaved rounds "
              f"(CPU time of the timing thread):")
        print(f"{'':76} {'ms':>6} {'img/s':>6} {'x plain':>8}")
        for name, ms in rows:
            print(f"{name:76} {ms:6.2f} {1000 / ms:6.0f} {ms / ref:8.2f}")
        part, whole = rows[3][1] / ref, rows[5][1] / ref
        print(f"targets: CPU part with augmentation on the device {part:.2f}x plain (<= 0.33x: "
              f"{'met' if part <= 0.33 else 'NOT met'}), whole pipeline on a CPU-only machine {whole:.2f}x "
              f"(<= 1.0x: {'met' if whole <= 1.0 else 'NOT met'})")
        batches = max(2, min(20, n_img // bs - 1))
        disk = loader_ips(paths, cfg, args.workers, batches)
        data_file, rows = build_cache(paths, Path(tmp) / "cache", 336, workers=args.workers or 1)
        cached = loader_ips(paths, cfg, args.workers, batches, cache=(data_file, rows, 336))
    print(f"loader (model and augmentation skipped, {args.workers} workers, decode + resize, {img} px config): "
          f"{disk:,.0f} img/s from JPEG, {cached:,.0f} img/s from --cache memmap "
          f"({cached / disk:.2f}x)")
    print(f"{'arch':14} {'train img/s':>12} {'eval img/s':>12} {'loader/train':>13}  bottleneck")
    best_loader = max(disk, cached)
    for arch in archs:
        tr, ev = model_ips(arch, cfg, device, steps)
        print(f"{arch:14} {tr:12,.0f} {ev:12,.0f} {best_loader / tr:13.2f}  "
              f"{'model' if best_loader > tr else 'loader'}")


if __name__ == "__main__":
    main()
