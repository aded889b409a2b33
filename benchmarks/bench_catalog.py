"""Catalog throughput against a plain imagehash loop, fast-mode agreement, near-duplicate search.

Photographs shipped inside scikit-image and scikit-learn (astronaut, coffee,
chelsea, china, flower) are cropped, upscaled to phone-camera size (4000x3000
by default) and written as JPEGs into a temporary folder laid out like a team
pool; ``--distinct`` different pictures are encoded, the rest of the ``--n``
files are byte copies under other names (encoding 12 MP JPEGs is the slow part
of *making* the benchmark, not of running it).

In one run, on the same files (read once beforehand so every contender finds
them in the page cache):

* reference: a single-process loop ``str(imagehash.phash(Image.open(p)))``;
* ``build_catalog`` exact mode with ``--workers`` processes (target >= 1.8x on 2 cores);
* ``build_catalog --fast`` with ONE process (target >= 5x per core), and its
  hashes against the exact ones (share identical, worst Hamming distance);
* ``hamming.pairs_within`` at radius 8 over 50,000 random 64-bit hashes (target < 5 s).

    python benchmarks/bench_catalog.py              # about 2-3 minutes on 2 cores
    python benchmarks/bench_catalog.py --n 120 --distinct 40 --size 2000x1500   # quick look
"""

from __future__ import annotations

import argparse
import functools
import shutil
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path

from agrieval.scoring.cli._failures import exit_unless_installed

# Before the imports below: a missing extra is one line naming its pip install, not a traceback.
exit_unless_installed("python benchmarks/bench_catalog.py", "PIL", "imagehash", "sklearn", "skimage")

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402


@functools.lru_cache(maxsize=1)
def _sources() -> list[np.ndarray]:
    from skimage import data as skdata
    from sklearn.datasets import load_sample_images

    return [skdata.astronaut(), skdata.coffee(), skdata.chelsea(), *load_sample_images().images]


def _make_one(task: tuple[int, int, int, str]) -> None:
    k, width, height, path = task
    srcs = _sources()
    rng = np.random.default_rng(k)
    arr = srcs[k % len(srcs)]
    h, w = arr.shape[:2]
    ch, cw = int(h * rng.uniform(0.6, 0.9)), int(w * rng.uniform(0.6, 0.9))
    y, x = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
    img = Image.fromarray(arr[y:y + ch, x:x + cw]).convert("RGB")
    if k % 2:
        img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    img = img.resize((width, height), Image.Resampling.BICUBIC)
    img.save(path, "JPEG", quality=int(rng.integers(85, 96)))


def make_pool(root: Path, n: int, distinct: int, size: tuple[int, int], workers: int) -> list[Path]:
    paths = [root / f"team{k % 4 + 1:02d}" / ("chene", "frene", "tipu")[k % 3] / f"IMG_{k:05d}.jpg"
             for k in range(n)]
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
    tasks = [(k, size[0], size[1], str(paths[k])) for k in range(min(distinct, n))]
    with get_context("forkserver").Pool(workers) as pool:
        pool.map(_make_one, tasks, chunksize=1)
    for k in range(distinct, n):
        shutil.copyfile(paths[k % distinct], paths[k])
    return sorted(paths)


def main() -> None:
    from agrieval.data_tools._hamming import hamming, hex_to_uint64, pairs_within
    from agrieval.data_tools._parallel import default_workers
    from agrieval.data_tools.catalog import build_catalog

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300, help="JPEG files in the pool")
    ap.add_argument("--distinct", type=int, default=60, help="different pictures among them")
    ap.add_argument("--size", default="4000x3000", help="WIDTHxHEIGHT of each JPEG")
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--hashes", type=int, default=50_000, help="random hashes for the radius-8 search")
    ap.add_argument("--keep", type=Path, default=None, help="write the pool here and keep it")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))

    tmp = None
    root = args.keep
    if root is None:
        tmp = tempfile.TemporaryDirectory(prefix="bench_catalog_")
        root = Path(tmp.name)
    try:
        t0 = time.perf_counter()
        paths = make_pool(root, args.n, args.distinct, size, args.workers)
        print(f"pool: {len(paths)} JPEGs of {size[0]}x{size[1]} ({args.distinct} distinct pictures), "
              f"{sum(p.stat().st_size for p in paths) / 1e6:.0f} MB, made in {time.perf_counter() - t0:.1f} s")
        for p in paths:  # page cache warm for everyone
            p.read_bytes()

        import imagehash

        t0 = time.perf_counter()
        ref = {p.relative_to(root).as_posix(): str(imagehash.phash(Image.open(p))) for p in paths}
        t_ref = time.perf_counter() - t0

        t0 = time.perf_counter()
        exact = build_catalog(root, workers=args.workers, progress=False)
        t_exact = time.perf_counter() - t0
        assert dict(zip(exact["path"], exact["phash"])) == ref, "exact mode differs from imagehash.phash"

        t0 = time.perf_counter()
        fast = build_catalog(root, workers=1, fast=True, progress=False, fast_check=0)
        t_fast = time.perf_counter() - t0
        d = hamming(hex_to_uint64(fast["phash"]), hex_to_uint64(exact["phash"]))

        rng = np.random.default_rng(0)
        hashes = rng.integers(0, 2**64 - 1, args.hashes, dtype=np.uint64, endpoint=True)
        t0 = time.perf_counter()
        i, _ = pairs_within(hashes, 8)
        t_near = time.perf_counter() - t0
    finally:
        if tmp is not None:
            tmp.cleanup()

    n = len(paths)
    ratio_exact, ratio_fast = t_ref / t_exact, t_ref / t_fast
    print(f"reference  imagehash.phash(Image.open(p)) loop, 1 process: {n / t_ref:7.2f} img/s  ({t_ref:.1f} s)")
    print(f"catalog    exact, {args.workers} workers: {n / t_exact:7.2f} img/s  ratio {ratio_exact:.2f}x  "
          f"(target >= 1.8x on 2 cores: {'met' if ratio_exact >= 1.8 else 'MISSED'}); hashes identical: yes")
    print(f"catalog    --fast, 1 worker:  {n / t_fast:7.2f} img/s  ratio {ratio_fast:.2f}x per core  "
          f"(target >= 5x: {'met' if ratio_fast >= 5 else 'MISSED'})")
    print(f"fast vs exact hashes: {np.mean(d == 0):.1%} identical, worst Hamming distance {int(d.max())}, "
          f"mean {d.mean():.2f}")
    print(f"near-duplicate search, radius 8, {args.hashes} random hashes: {t_near:.2f} s, {len(i)} pairs "
          f"(target < 5 s: {'met' if t_near < 5 else 'MISSED'})")


if __name__ == "__main__":
    main()
