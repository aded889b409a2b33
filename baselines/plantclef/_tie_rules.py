"""Which classes are a tile's top k when probabilities tie: each team's own call, made on the full vector.

Teams pick a tile's best classes with two calls that disagree on exact ties (common when the logits are
half precision, and wherever softmax underflows to 0):

``argsort``
    ``np.array(p).argsort()[-k:][::-1]`` (DS@GT: ``get_top_n_predictions``, and ``[-1:]`` in the NMS
    notebook), on the float64 copy of the float32 probabilities that ``np.array(tensor.tolist())`` makes.
    numpy's default ``quicksort`` is an introsort, and on x86 with AVX-512 / AVX2 a SIMD sort: the tied
    class that lands last is **not** the last index, it depends on every value of the row, the numpy
    version and the CPU (measured: on 7,806 classes with 3 tied maxima, the last, first and middle index
    come out about equally often). So it cannot be re-derived from a saved top-k; it is called, exactly
    so, on the full row at predict time. Every smaller k is a prefix of the same permutation, so one saved
    depth K serves every k <= K.
``topk``
    ``torch.topk(p, k)`` on the device that ran the model (the organisers' notebook, Chlorophyll Crew's
    ``top_k_tile_prediction``: k = 2). ``topk(p, 10)[:2]`` is not always ``topk(p, 2)`` on ties, so each
    k is saved on its own.

``predict --save-ties argsort:K,topk:K`` stores, on the tile's rows of rank r < K, the r-th class of the
rule: columns ``argsort_class``/``argsort_species``/``argsort_prob`` and ``topk<K>_class``/... (class -1,
probability NaN past K). ``selection`` turns them back into ranked rows; without them a rule is exact only
where the tile's first k+1 saved probabilities are all distinct (then every rule picks the same classes
in the same order) and :class:`NotExact` names the flag otherwise.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from agrieval.baselines.plantclef._exactness import NotExact

RULES = ("argsort", "topk")
_SPEC = re.compile(r"^(argsort|topk):(\d+)$")
FIELDS = ("class", "species", "prob")
COLUMN = re.compile(r"^(argsort|topk\d+)_(class|species|prob)$")


def parse_specs(text: str | None) -> tuple[tuple[str, int], ...]:
    """``'argsort:10,topk:2'`` -> ``(('argsort', 10), ('topk', 2))``; ValueError on anything else."""
    if not text:
        return ()
    out = []
    for part in text.split(","):
        m = _SPEC.match(part.strip())
        if not m or int(m[2]) < 1:
            raise ValueError(f"tie selection {part!r} is not argsort:K or topk:K with K >= 1")
        out.append((m[1], int(m[2])))
    if len({name(r, k) for r, k in out}) != len(out):
        raise ValueError(f"tie selections {text!r} name one column set twice (argsort is saved once)")
    return tuple(out)


def name(rule: str, k: int) -> str:
    return "argsort" if rule == "argsort" else f"topk{k}"


def argsort_rows(p: np.ndarray, k: int) -> np.ndarray:
    """``(T, k)`` class indices: ``np.array(row.tolist()).argsort()[-k:][::-1]`` for each row, as DS@GT
    call it (one 1-D float64 array per tile; a 2-D call could take another code path)."""
    return np.stack([np.array(row.tolist()).argsort()[-k:][::-1] for row in p]) if len(p) else \
        np.zeros((0, k), np.int64)


def select_on_device(p, specs) -> dict[str, np.ndarray]:
    """Class indices ``(T, k)`` of every saved rule, from the full probabilities ``p`` (a torch tensor on
    the model's device): topk called there, argsort on its CPU copy."""
    out = {}
    for rule, k in specs:
        if rule == "topk":
            out[name(rule, k)] = p.topk(k, dim=-1).indices.cpu().numpy()
        else:
            out[name(rule, k)] = argsort_rows(p.float().cpu().numpy(), k)
    return out


def columns(selected: dict[str, np.ndarray], p_cpu: np.ndarray, species: np.ndarray, save_k: int) -> dict:
    """Per-row columns for a batch whose rows are (tile, rank < save_k)."""
    out = {}
    n = p_cpu.shape[0]
    for key, idx in selected.items():
        k = idx.shape[1]
        if k > save_k:
            raise ValueError(f"--save-ties {key}: k {k} is larger than --save-top-k {save_k} (the rule's classes "
                             "are stored on the tile's saved rows)")
        cls = np.full((n, save_k), -1, np.int64)
        cls[:, :k] = idx
        prob = np.full((n, save_k), np.nan, np.float32)
        prob[:, :k] = np.take_along_axis(p_cpu, idx, axis=1)
        flat = cls.reshape(-1)
        out[f"{key}_class"] = flat.astype(np.int32)
        out[f"{key}_species"] = np.where(flat >= 0, np.asarray(species, np.int64)[np.maximum(flat, 0)], -1)
        out[f"{key}_prob"] = prob.reshape(-1)
    return out


def saved_depth(tiles: pd.DataFrame, rule: str, k: int) -> str | None:
    """The column prefix holding ``rule``'s top k, or None."""
    key = name(rule, k)
    return key if f"{key}_class" in tiles else None


def selection(tiles: pd.DataFrame, rule: str, k: int, n_classes: int | None = None) -> pd.DataFrame:
    """Rows ``(image_id, tile, level, rank, class_index, species_id, prob, ...)`` of each tile's top k under
    ``rule``, rank = the rule's order (module docstring)."""
    keys = ["image_id", "tile"]
    t = tiles.sort_values(keys + ["rank"], kind="mergesort")
    depth = t.groupby(keys, sort=False).size()
    key = saved_depth(tiles, rule, k)
    if key is not None:
        sel = t[t["rank"] < k]
        missing = (sel[f"{key}_class"] < 0).to_numpy()
        if missing.any() or (depth < k).any():
            image_id, tile = (sel[missing].iloc[0][keys] if missing.any() else depth[depth < k].index[0])
            raise NotExact(f"{rule} top {k}: tile {tile} of {image_id!r} has its {rule} selection saved to a depth "
                           f"below {k}; predict again with --save-ties {rule}:{k}")
        out = sel.assign(class_index=sel[f"{key}_class"].to_numpy(np.int32),
                         species_id=sel[f"{key}_species"].to_numpy(np.int64),
                         prob=sel[f"{key}_prob"].to_numpy(np.float32))
        return out.drop(columns=[c for c in out.columns if COLUMN.match(c)]).reset_index(drop=True)
    # No saved selection: exact only when the first k+1 saved probabilities of each tile are all distinct
    # (k when the tile saved every class).
    head = t[t["rank"] <= k]
    tied = head.groupby(keys, sort=False)["prob"].diff().to_numpy() >= 0
    bad = pd.Series(tied, index=pd.MultiIndex.from_frame(head[keys])).groupby(level=keys, sort=False).any()
    complete = depth >= n_classes if n_classes else depth < 0
    bad |= ~((depth >= k + 1) | (complete & (depth >= k))).reindex(bad.index)
    if bad.any():
        image_id, tile = bad[bad].index[0]
        raise NotExact(f"{rule} top {k}: tile {tile} of {image_id!r} has tied (or too few) saved probabilities at "
                       f"ranks 0..{k}, so which class {rule} picks depends on the full vector; predict again "
                       f"with --save-ties {rule}:{k}")
    out = t[t["rank"] < k]
    return out.drop(columns=[c for c in out.columns if COLUMN.match(c)]).reset_index(drop=True)
