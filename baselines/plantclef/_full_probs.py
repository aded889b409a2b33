"""Every class of every tile, dense: ``<tiles>.full.parquet`` next to the tile scores (``predict --save-full-probs``).

One row per (image, tile): ``image_id`` (string), ``tile`` (int32), ``probs`` (fixed-size list of C float32, the
tile's scores over every class in output order, as the model gave them: the softmax, times ``--score-scale``
and ``--prior`` when given). Rows sorted by (image_id, tile). The key-value metadata holds the species of each
output and the run settings (a sidecar written for other settings is refused).

This is what Chlorophyll Crew's merge notebook reads (their ``.npy`` of (T, C) float32 per quadrat): about
1.8 MB per quadrat of 59 tiles, where the long tile-score format would need one row per class.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from agrieval.scoring.runtime.atomic import atomic_write

META_KEY = b"agrieval.plantclef.full"


def full_path(tile_scores: str | Path) -> Path:
    p = Path(tile_scores)
    return p.with_name(f"{p.stem}.full.parquet") if p.suffix == ".parquet" else p.with_name(p.name + ".full.parquet")


def write_full(path: str | Path, image_ids: list[str], tiles: np.ndarray, probs: np.ndarray, species: np.ndarray,
               meta: dict | None, *, overwrite: bool = True) -> None:
    order = np.lexsort((tiles, np.asarray(image_ids, dtype=str)))
    c = probs.shape[1]
    flat = pa.array(np.ascontiguousarray(probs[order], dtype=np.float32).reshape(-1))
    table = pa.table({"image_id": pa.array([image_ids[i] for i in order], pa.string()),
                      "tile": pa.array(np.asarray(tiles, np.int32)[order]),
                      "probs": pa.FixedSizeListArray.from_arrays(flat, c)})
    table = table.replace_schema_metadata(
        {META_KEY: json.dumps({"species": [int(s) for s in species], "settings": meta}, sort_keys=True).encode()})
    with atomic_write(path, "wb", encoding=None, overwrite=overwrite) as fh:
        pq.write_table(table, fh, compression="zstd")


def read_full(path: str | Path, expect_meta: dict | None = None) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Image id -> float32 ``(T, C)`` (tiles in order) and the species of each class."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"full probabilities {path} not found (predict --save-full-probs writes them)")
    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
    if expect_meta is not None and meta.get("settings") != expect_meta:
        raise ValueError(f"{path} was written for other settings than its tile scores; predict again")
    species = np.asarray(meta.get("species", []), dtype=np.int64)
    ids = table.column("image_id").to_pylist()
    tiles = table.column("tile").to_numpy()
    probs = table.column("probs").combine_chunks().flatten().to_numpy().reshape(len(ids), -1)
    out: dict[str, np.ndarray] = {}
    start = 0
    for n in range(1, len(ids) + 1):
        if n == len(ids) or ids[n] != ids[start]:
            if not np.array_equal(tiles[start:n], np.arange(n - start)):
                raise ValueError(f"{path}: image {ids[start]!r} has tiles {tiles[start:n].tolist()[:5]}..., not 0..T-1")
            out[ids[start]] = probs[start:n]
            start = n
    return out, species


def concat_parts(parts: list[tuple[dict[str, np.ndarray], np.ndarray]]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(image ids per row, tile per row, probs)`` of several read parts."""
    ids, tiles, probs = [], [], []
    for dense, _ in parts:
        for image_id, p in dense.items():
            ids += [image_id] * len(p)
            tiles.append(np.arange(len(p), dtype=np.int32))
            probs.append(p)
    if not probs:
        return [], np.zeros(0, np.int32), np.zeros((0, 0), np.float32)
    return ids, np.concatenate(tiles), np.concatenate(probs)
