"""Per-tile score transforms that several teams used before aggregating.

``ensemble_tiles``: the mean of the probabilities of M models over the same
tiles (Chlorophyll Crew's ensemble), ``p_t(s) = (1/M) sum_m p_t^m(s)``, from M
saved top-k files. It is exact for a species in the saved top-k of tile t in
every file; any other species has ``p_t(s) <= (1/M) sum_m u_t^m(s)`` where
``u_t^m(s)`` is its saved probability in file m, or that file's smallest saved
probability of the tile (its top-k bound) when missing. So each tile keeps,
best first, the exact entries above the largest such bound ``b_t`` (column
``bound``); ``aggregate`` refuses what would need an entry below it.

``tile_zscores``: the per-tile z-score over the C classes (Chlorophyll Crew's
merge notebook), ``z_t(s) = (p_t(s) - 1/C) / sigma_t`` with
``sigma_t = sqrt((sum_c p_t(c)^2 - 1/C) / (C - 1))`` (ddof 1; the mean of a
softmax over C classes is 1/C). Exact from ``tile_p2``; ``bound`` is mapped the
same way (z is increasing in p within a tile).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TILE_KEYS = ["image_id", "tile"]


def tile_bounds(tiles: pd.DataFrame, n_classes: int | None = None) -> pd.Series:
    """Upper bound of any probability not listed for a tile, indexed by (image_id, tile): the ``bound``
    column when present, else the tile's smallest saved probability; -inf when every class is listed."""
    if "bound" in tiles:
        b = tiles.groupby(TILE_KEYS, sort=True)["bound"].first()
    else:
        g = tiles.groupby(TILE_KEYS, sort=True)["prob"]
        b = g.min().astype(np.float64)
        if n_classes is not None:
            b[g.size() >= n_classes] = -np.inf
    return b


def ensemble_tiles(frames: list[pd.DataFrame], n_classes: int | None = None) -> pd.DataFrame:
    """Mean of M tile-score frames over the same (image, tile)s, truncated to its exact entries
    (``n_classes``: a tile that saved every class has no unsaved species)."""
    if len(frames) < 2:
        raise ValueError("an ensemble needs at least two tile-score files")
    keys = [f.drop_duplicates(TILE_KEYS)[TILE_KEYS + ["level", "x0", "y0", "x1", "y1"]].sort_values(TILE_KEYS)
            .reset_index(drop=True) for f in frames]
    for n, k in enumerate(keys[1:], start=2):
        if not k.equals(keys[0]):
            raise ValueError(f"tile-score file {n} does not hold the same tiles (images, boxes) as file 1; "
                             "an ensemble averages models over identical tiles")
    m = len(frames)
    bounds = [tile_bounds(f, n_classes) for f in frames]
    wide = [f.set_index(TILE_KEYS + ["species_id"])["prob"].astype(np.float64) for f in frames]
    union = pd.concat(wide, axis=1, keys=range(m))  # NaN where a file lacks the species
    tile_index = union.index.droplevel("species_id")
    upper = union.copy()
    for j in range(m):
        fill = bounds[j].reindex(tile_index).to_numpy()
        col = upper[j].to_numpy()
        upper[j] = np.where(np.isnan(col), fill, col)
    complete = union.notna().all(axis=1)
    mean = union.mean(axis=1)
    partial_bound = upper.mean(axis=1)[~complete].groupby(level=TILE_KEYS).max()
    unseen_bound = sum(b for b in bounds) / m
    bound = pd.concat([partial_bound, unseen_bound], axis=1).max(axis=1)
    exact = mean[complete].rename("prob").reset_index()
    exact["bound"] = bound.reindex(pd.MultiIndex.from_frame(exact[TILE_KEYS])).to_numpy()
    exact = exact[exact["prob"] > exact["bound"]]
    exact = exact.sort_values(TILE_KEYS + ["prob", "species_id"], ascending=[True, True, False, True],
                              kind="mergesort")
    exact["rank"] = exact.groupby(TILE_KEYS, sort=False).cumcount().astype(np.int16)
    meta = keys[0]
    out = meta.merge(exact, on=TILE_KEYS, how="left")
    lost = out["prob"].isna()
    if lost.any():
        first = out[lost].iloc[0]
        raise ValueError(f"ensemble: tile {int(first['tile'])} of {first['image_id']!r} has no species whose mean "
                         "is known to beat the species the files did not save; save a larger --save-top-k")
    out["bound"] = out["bound"].astype(np.float64)
    out["tile_p2"] = np.float32(np.nan)  # not derivable for the mean distribution
    if all("is_z" in f for f in frames):
        out["is_z"] = True
    return out.reset_index(drop=True)


def tile_zscores(tiles: pd.DataFrame, n_classes: int) -> pd.DataFrame:
    """``prob`` (and ``bound``) replaced by the per-tile z-score of the module docstring."""
    if "tile_p2" not in tiles or tiles["tile_p2"].isna().any():
        raise ValueError("per-tile z-scores need the per-tile sum of squares (column tile_p2), written by predict "
                         "since this version; an ensemble's mean distribution has none: z-score each file first")
    if n_classes is None or n_classes < 2:
        raise ValueError("per-tile z-scores need the number of classes (the tile scores' n_classes setting)")
    c = float(n_classes)
    sigma = np.sqrt(np.maximum(tiles["tile_p2"].to_numpy(np.float64) - 1.0 / c, 0.0) / (c - 1.0))
    sigma[sigma == 0] = np.inf
    out = tiles.copy()
    bound = tile_bounds(tiles, n_classes).reindex(pd.MultiIndex.from_frame(tiles[TILE_KEYS])).to_numpy()
    out["prob"] = (tiles["prob"].to_numpy(np.float64) - 1.0 / c) / sigma
    out["bound"] = (bound - 1.0 / c) / sigma
    out["is_z"] = True
    return out
