"""Chlorophyll Crew's merge rule (``geranium12/plant-clef-2025`` ``predictions/merge.ipynb`` cells 1-6).

On the full per-tile probabilities ``P_m`` (T x C, float32) of M models:

1. ensemble: ``P = sum_m P_m / M`` (float32, Python ``sum`` as the notebook);
2. per-tile z-scores over the classes, ``(P - mean) / std`` with ``np.std`` (ddof 0);
3. for a threshold x, a tile's top-1 (``argmax``: the first of tied classes) is kept when ``z >= x``
   (``strict``: ``z > x``), into a Python ``set`` listed in its own iteration order;
4. top-up to ``min_len`` (1) and cap at ``max_len`` (9) species, both by the column sums of z over the
   tiles (``np.argsort`` as the notebook calls it);
5. x by bisection on the fixed range [0.001, 100]: 50 halvings keeping (x, mean length) at both ends,
   early stop when the mean length equals the target, then the end whose mean is nearest the target
   (the upper end on a tie of distances).

Each numpy call is made as the notebook makes it (same dtype, same axis), so the lists equal the
notebook's, order included; only what does not depend on x (argmax, column sums) is computed once.
Needs every class of every tile: ``predict --save-top-k N_CLASSES`` (or the teams' own .npy arrays).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from agrieval.baselines.plantclef._exactness import NotExact
from agrieval.baselines.plantclef._threshold_search import TargetUnreachable


@dataclass(frozen=True)
class MergeSettings:
    target: float = 4.2
    lo: float = 0.001
    hi: float = 100.0
    n_iter: int = 50
    max_len: int = 9
    min_len: int = 1
    use_z: bool = True
    strict: bool = False


def ensemble(arrays: list[np.ndarray]) -> np.ndarray:
    """``sum([a / M for a in arrays])`` as cell 5."""
    return sum([a / len(arrays) for a in arrays])


def zscores(p: np.ndarray) -> np.ndarray:
    mean = np.mean(p, axis=1, keepdims=True)
    std = np.std(p, axis=1, keepdims=True)
    return (p - mean) / std


class _Quadrat:
    def __init__(self, z: np.ndarray):
        self.z = z
        self.best = [tile.argmax() for tile in z]
        self.value = [z[t][i] for t, i in enumerate(self.best)]
        self._sums = None

    def sums(self) -> np.ndarray:
        if self._sums is None:
            self._sums = np.sum(self.z, axis=0)
        return self._sums

    def predict(self, x: float, s: MergeSettings) -> list:
        top = set()
        for index, value in zip(self.best, self.value):
            if (not value > x) if s.strict else value < x:
                continue
            top.add(index)
        out = list(top)
        if len(out) < s.min_len:
            for index in np.argsort(self.sums())[::-1]:
                if len(out) >= s.min_len:
                    break
                out.append(index)
        if len(out) > s.max_len:
            relevant = [self.sums()[i] for i in out]
            out = [out[i] for i in np.argsort(relevant)[-s.max_len:]]
        return out


def merge(quadrat_probs: dict[str, np.ndarray], s: MergeSettings = MergeSettings()) -> dict[str, list[int]]:
    """Class indices per quadrat (module docstring) from the ensembled ``(T, C)`` probabilities."""
    quadrats = {q: _Quadrat(zscores(p) if s.use_z else p) for q, p in quadrat_probs.items()}

    def make(x: float) -> dict:
        return {q: v.predict(x, s) for q, v in quadrats.items()}

    def mean_len(pred: dict) -> float:
        return np.mean([len(v) for v in pred.values()])

    bound = (s.hi, mean_len(make(s.hi))), (s.lo, mean_len(make(s.lo)))
    if not bound[0][1] < s.target < bound[1][1]:
        raise TargetUnreachable(f"a mean of {s.target:g} species per quadrat is not between {bound[0][1]:g} "
                                f"(threshold {s.hi:g}) and {bound[1][1]:g} (threshold {s.lo:g})")
    for _ in range(s.n_iter):
        x = (bound[0][0] + bound[1][0]) / 2
        length = mean_len(make(x))
        if length < s.target:
            bound = ((x, length), bound[1])
        else:
            bound = (bound[0], (x, length))
        if length == s.target:
            break
    x = bound[0][0] if abs(bound[0][1] - s.target) < abs(bound[1][1] - s.target) else bound[1][0]
    return {q: [int(i) for i in v] for q, v in make(x).items()}


def dense(tiles: pd.DataFrame, n_classes: int | None) -> dict[str, np.ndarray]:
    """Image id -> float32 ``(T, C)`` from a tile-score frame that saved every class of every tile."""
    if n_classes is None:
        raise NotExact("the merge rule needs the number of classes (the tile scores' n_classes setting)")
    depth = tiles.groupby(["image_id", "tile"]).size()
    if len(depth) and int(depth.min()) < n_classes:
        (image_id, tile) = depth[depth < n_classes].index[0]
        raise NotExact(f"the merge rule z-scores and sums every class of every tile, but tile {tile} of {image_id!r} "
                       f"saved {int(depth.min())} of {n_classes}; predict again with --save-top-k {n_classes}")
    out = {}
    for image_id, g in tiles.groupby("image_id", sort=True):
        g = g.sort_values(["tile", "class_index"], kind="mergesort")
        out[image_id] = g["prob"].to_numpy(np.float32).reshape(-1, n_classes)
    return out


def species_lists_dense(models: list, s: MergeSettings, image_ids: list[str]) -> dict[str, list[int]]:
    """Species ids per image from each model's ``(image id -> (T, C) float32, species)`` (full_probs)."""
    arrays = [m[0] for m in models]
    species = models[0][1]
    if any(not np.array_equal(m[1], species) for m in models[1:]):
        raise ValueError("the merge rule's models must share one class mapping")
    return _lists(arrays, s, image_ids, lambda c: int(species[c]))


def _lists(arrays: list[dict], s: MergeSettings, image_ids: list[str], to_species) -> dict[str, list[int]]:
    keys = list(arrays[0])
    if any(list(a) != keys or any(a[q].shape != arrays[0][q].shape for q in keys) for a in arrays[1:]):
        raise ValueError("the merge rule's models must score the same images with the same tiles")
    probs = {q: ensemble([a[q] for a in arrays]) if len(arrays) > 1 else arrays[0][q] for q in keys}
    got = merge(probs, s)
    return {i: [to_species(c) for c in got.get(i, [])] for i in image_ids}


def species_lists(frames: list[pd.DataFrame], n_classes: int | None, s: MergeSettings,
                  image_ids: list[str]) -> dict[str, list[int]]:
    """Species ids per image from one tile-score frame per model (same tiles)."""
    arrays = [dense(f, n_classes) for f in frames]
    mapping = frames[0].drop_duplicates("class_index").set_index("class_index")["species_id"]
    return _lists(arrays, s, image_ids, lambda c: int(mapping[c]))
