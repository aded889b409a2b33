"""Per-image statistics over **every** class, kept next to the per-tile top-k.

A saved top-k per tile is exact for union and vote with k' <= k but not for
``max`` (a species outside every tile's top-k is lost) nor ``mean`` (a missing
score would count as 0). So ``predict`` also computes, on the device and for
every class c, per group g of tiles: one image (``--image-stats image``, the default:
level -1, all its levels together) or one image at one tiling level (``level``,
what per-scale weights need):

=========  ==========================================================
``max``    M_g(c) = max_{t in g} p_t(c)
``sum``    S_g(c) = sum_{t in g} p_t(c)             (mean = S_g / n_tiles)
``bma``    B_g(c) = sum_{t in g} w_t p_t(c)          (``bma.bma_weights``)
=========  ==========================================================

Stored as ``<tile scores>.stats.parquet`` (``tiles.parquet`` ->
``tiles.stats.parquet``): one row per (image_id, level) with ``n_tiles`` and
three float32 lists of length C (class index order); the file metadata holds
the species id of each class index and the run settings. About 94 KB per group
at 7,806 classes before compression: ~200 MB for the 2,105 test quadrats per
image, nine times that per level with the winner's nine scales.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from agrieval.baselines.plantclef._exactness import NotExact
from agrieval.scoring.runtime.atomic import atomic_write

STATS = ("max", "sum", "bma")
META_KEY = b"agrieval.plantclef.stats"


class StatsError(ValueError):
    """A stats file is unreadable or does not match its tile scores."""


@dataclass
class ImageStats:
    keys: pd.DataFrame  # image_id, level, n_tiles (one row per group, sorted)
    max: np.ndarray | None  # float32 (G, C); None where not derivable (an ensemble's max and bma)
    sum: np.ndarray
    bma: np.ndarray | None
    species: np.ndarray  # int64 (C,)

    def __post_init__(self) -> None:
        order = np.lexsort((self.keys["level"].to_numpy(), self.keys["image_id"].to_numpy().astype(str)))
        if not np.array_equal(order, np.arange(len(order))):
            self.keys = self.keys.iloc[order].reset_index(drop=True)
            self.max, self.sum, self.bma = (None if a is None else a[order] for a in (self.max, self.sum, self.bma))

    @property
    def n_classes(self) -> int:
        return len(self.species)

    def select(self, image_ids) -> ImageStats:
        keep = self.keys["image_id"].isin(set(image_ids)).to_numpy()
        return ImageStats(self.keys[keep].reset_index(drop=True), *(None if a is None else a[keep] for a in
                                                                   (self.max, self.sum, self.bma)), self.species)

    @staticmethod
    def concat(parts: list[ImageStats]) -> ImageStats:
        def cat(name):
            arrays = [getattr(p, name) for p in parts]
            return None if any(a is None for a in arrays) else np.concatenate(arrays)

        return ImageStats(pd.concat([p.keys for p in parts], ignore_index=True), cat("max"), cat("sum"), cat("bma"),
                          parts[0].species)

    @staticmethod
    def ensemble(parts: list[ImageStats]) -> ImageStats:
        """Stats of the mean of M models over the same tiles: the sums average exactly; max and BMA do not."""
        for p in parts[1:]:
            if not (p.keys.equals(parts[0].keys) and np.array_equal(p.species, parts[0].species)):
                raise StatsError("the image stats of an ensemble's files do not cover the same images and classes")
        return ImageStats(parts[0].keys, None, sum(p.sum for p in parts) / len(parts), None, parts[0].species)


def stats_path(tile_scores: str | Path) -> Path:
    p = Path(tile_scores)
    return p.with_name(f"{p.stem}.stats.parquet") if p.suffix == ".parquet" else p.with_name(p.name + ".stats.parquet")


def write_stats(path: str | Path, stats: ImageStats, meta: dict | None = None, *, overwrite: bool = True) -> None:
    """``meta`` (the run settings of the tile scores it goes with) is stored to catch a stale sidecar."""
    c = stats.n_classes
    cols = {"image_id": pa.array(stats.keys["image_id"].astype(str).tolist(), pa.string()),
            "level": pa.array(stats.keys["level"].to_numpy().astype(np.int16)),
            "n_tiles": pa.array(stats.keys["n_tiles"].to_numpy().astype(np.int32))}
    for name in STATS:
        flat = pa.array(np.ascontiguousarray(getattr(stats, name), dtype=np.float32).reshape(-1))
        cols[name] = pa.FixedSizeListArray.from_arrays(flat, c)
    table = pa.table(cols).replace_schema_metadata(
        {META_KEY: json.dumps({"species": [int(s) for s in stats.species], "settings": meta}, sort_keys=True).encode()})
    with atomic_write(path, "wb", encoding=None, overwrite=overwrite) as fh:
        pq.write_table(table, fh, compression="zstd")


def read_stats(path: str | Path, expect_meta: dict | None = None) -> ImageStats:
    """``expect_meta``: the settings of the tile scores; a sidecar written for other settings is refused."""
    path = Path(path)
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise StatsError(f"{path}: not a Parquet stats file ({exc})") from None
    missing = [c for c in ("image_id", "level", "n_tiles", *STATS) if c not in table.column_names]
    raw = (table.schema.metadata or {}).get(META_KEY)
    if missing or raw is None:
        raise StatsError(f"{path}: not an image-stats file (missing {', '.join(missing) or 'species metadata'})")
    info = json.loads(raw)
    if expect_meta is not None and info.get("settings") != expect_meta:
        raise StatsError(f"{path} was written with other settings than its tile scores (a stale sidecar); "
                         "rerun predict with --save-tile-scores to write both again")
    species = np.asarray(info["species"], dtype=np.int64)
    keys = pd.DataFrame({"image_id": table.column("image_id").to_pylist(),
                         "level": table.column("level").to_numpy().astype(np.int16),
                         "n_tiles": table.column("n_tiles").to_numpy().astype(np.int32)})
    arrays = {}
    for name in STATS:
        col = table.column(name).combine_chunks()
        arrays[name] = col.flatten().to_numpy().astype(np.float32).reshape(len(keys), len(species))
    return ImageStats(keys, arrays["max"], arrays["sum"], arrays["bma"], species)


def image_level_matrix(stats: ImageStats, image_ids: list[str], what: str,
                       weights: tuple[float, ...] | None = None) -> np.ndarray:
    """``(len(image_ids), C)`` per-image scores combined over levels.

    ``max``: max_l w_l M_l(c); ``mean``: sum_l S_l(c) / sum_l n_l (mean over all tiles);
    ``bma``: mean over levels of B_l(c). ``weights`` (per level, default 1) apply to ``max``.
    """
    if getattr(stats, "bma" if what == "bma" else "sum" if what == "mean" else "max") is None:
        raise NotExact(f"the image stats hold no exact {what} here (an ensemble keeps only the per-class sums, "
                         "i.e. mean); aggregate the files one by one for max, multiscale or bma")
    keys = stats.keys
    index = {i: n for n, i in enumerate(image_ids)}
    rows = keys["image_id"].map(index)
    if rows.isna().any():
        rows = rows.fillna(-1)
    rows = rows.to_numpy().astype(np.int64)
    have = set(keys["image_id"])
    lacking = [i for i in image_ids if i not in have]
    if lacking:
        raise StatsError(f"no image stats for {len(lacking)} image(s), e.g. {lacking[0]!r}")
    sel = rows >= 0
    rows, levels = rows[sel], keys["level"].to_numpy()[sel]
    out = np.zeros((len(image_ids), stats.n_classes), dtype=np.float64)
    if what == "max":
        if weights is not None and len(levels) and (levels < 0).any():
            raise NotExact("per-scale weights need per-level image stats: predict with --image-stats level, or "
                             "aggregate without the stats file (exact when no unsaved species can reach the threshold)")
        levels = np.maximum(levels, 0)
        w = np.ones(int(levels.max()) + 1 if len(levels) else 1) if weights is None else np.asarray(weights, float)
        if len(levels) and int(levels.max()) >= len(w):
            raise ValueError(f"{len(w)} scale weight(s) given for {int(levels.max()) + 1} tiling levels")
        np.maximum.at(out, rows, stats.max[sel].astype(np.float64) * w[levels][:, None])
    elif what == "mean":
        np.add.at(out, rows, stats.sum[sel].astype(np.float64))
        n = np.zeros(len(image_ids))
        np.add.at(n, rows, keys["n_tiles"].to_numpy()[sel])
        out /= n[:, None]
    elif what == "bma":
        np.add.at(out, rows, stats.bma[sel].astype(np.float64))
        n = np.zeros(len(image_ids))
        np.add.at(n, rows, 1)
        out /= n[:, None]
    else:
        raise ValueError(f"unknown statistic {what!r}")
    return out
