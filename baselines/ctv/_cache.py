"""``--cache DIR``: decode the image set once into a uint8 memory-mapped array.

JPEG decoding is the loader's bottleneck on a fast GPU. The cache holds every
image of a manifest as ``size x size x 3`` bytes (shorter side resized to
``size`` with bicubic, centre crop: a no-op on the 336 px curated tree), in
``ctv-<key>.u8`` with ``ctv-<key>.json`` listing the paths in row order. The key
is a hash of the sorted paths and the size, so each fold set gets its own
cache and a stale one is never reused. Written to a temporary name and renamed.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from agrieval.baselines.ctv.errors import CTVError
from agrieval.data_tools._untrusted_images import ImageUnreadable, decode_image
from agrieval.scoring.runtime.atomic import commit, write_text
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_json

# Imported inside functions, so that importing this module loads only what it needs: PIL (heavy or optional).


def cache_key(paths: list[str], size: int) -> str:
    h = hashlib.sha256(f"{size}\n".encode())
    for p in sorted(paths):
        h.update(p.encode() + b"\n")
    return h.hexdigest()[:20]


def decode_square(path: str, size: int) -> np.ndarray:
    from PIL import Image

    def square(im) -> np.ndarray:
        im = im.convert("RGB")
        w, h = im.size
        if (w, h) != (size, size):
            scale = size / min(w, h)
            nw, nh = max(size, round(w * scale)), max(size, round(h * scale))
            im = im.resize((nw, nh), Image.BICUBIC)
            left, top = (nw - size) // 2, (nh - size) // 2
            im = im.crop((left, top, left + size, top + size))
        return np.asarray(im, dtype=np.uint8)

    try:  # (a decompression bomb too: the one opening rule for images, data_tools/_untrusted_images.py)
        return decode_image(path, square)
    except ImageUnreadable as exc:
        raise CTVError("image_unreadable", exc.message) from exc


def _decode_chunk(args) -> tuple[int, np.ndarray]:
    start, paths, size = args
    return start, np.stack([decode_square(p, size) for p in paths])


def build_cache(paths: list[str], cache_dir: str | Path, size: int = 336, *, workers: int | None = None,
                progress=None) -> tuple[Path, dict[str, int]]:
    """Return (array file, path -> row), building the cache if absent."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    ordered = sorted(set(paths))
    key = cache_key(ordered, size)
    data, index = cache_dir / f"ctv-{key}.u8", cache_dir / f"ctv-{key}.json"
    if data.is_file() and index.is_file():
        try:  # (the one opening rule: a cache folder may be shared)
            meta = read_json(index, max_bytes=1 << 30, what="cache index")
        except UntrustedFileError as exc:
            raise CTVError("cache_invalid", f"{index}: {exc.message}; remove {data.name} and {index.name} to "
                           "rebuild") from None
        if not isinstance(meta, dict) or meta.get("paths") != ordered or meta.get("size") != size or \
                data.stat().st_size != len(ordered) * size * size * 3:
            raise CTVError("cache_invalid", f"{index}: does not match the manifest; remove "
                           f"{data.name} and {index.name} to rebuild")
        return data, {p: i for i, p in enumerate(ordered)}
    tmp = cache_dir / f".ctv-{key}.u8.{os.getpid()}.tmp"
    mm = np.memmap(tmp, dtype=np.uint8, mode="w+", shape=(len(ordered), size, size, 3))
    chunk = 64
    jobs = [(i, ordered[i:i + chunk], size) for i in range(0, len(ordered), chunk)]
    workers = workers or max(1, min(os.cpu_count() or 1, 16))
    try:
        if workers == 1:
            results = map(_decode_chunk, jobs)
        else:
            pool = ProcessPoolExecutor(workers)
            results = pool.map(_decode_chunk, jobs)
        done = 0
        for start, block in results:
            mm[start:start + len(block)] = block
            done += len(block)
            if progress:
                progress(done, len(ordered))
        mm.flush()
        del mm
        commit(tmp, data, size=len(ordered) * size * size * 3)  # fsynced, size checked, then renamed
    finally:
        if workers != 1:
            pool.shutdown()
        if tmp.exists():
            tmp.unlink()
    write_text(index, json.dumps({"size": size, "paths": ordered}))
    return data, {p: i for i, p in enumerate(ordered)}


def open_cache(data: Path, n: int, size: int) -> np.memmap:
    return np.memmap(data, dtype=np.uint8, mode="r", shape=(n, size, size, 3))
