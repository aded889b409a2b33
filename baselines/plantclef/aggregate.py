"""From per-tile scores to the species list of each quadrat.

Input: a long frame with one row per (image_id, tile, rank) holding the
``species_id`` and softmax ``prob`` of that tile's rank-th best class (ranks
0..K-1, as saved by ``predict``), and optionally the per-image statistics over
every class (``image_stats``). ``p_t(s)`` is the probability of species s on
tile t, ``top_k(t)`` the species of tile t with rank < k, ``l(t)`` its level.

Each strategy is a *score* S(s) per (image, species) and a *keep* rule:

==============  ===============================================  ======================  ==================
strategy        score S(s)                                       keep                    from
==============  ===============================================  ======================  ==================
``union``       max p_t(s) over tiles with s in top_k(t) and     every scored species    organisers'
                p_t(s) >= threshold                                                      notebook
``max``         max over all tiles of p_t(s)                     S >= threshold          2025 winner
``mean``        (1/T) sum_t p_t(s)                               the top_k highest S     agrieval
``vote``        #{t : s in top_k(t)}                             S >= min_votes          DS@GT NMS notebook
``pairs``       rank of s's first pair in the list of every      the first top_k pairs   DS@GT 2025 grid
                (tile, species, p) sorted by p desc (ties:       (species                runs
                tile, then rank)                                 de-duplicated)
``bma``         B(s) = sum_t w_t p_t(s) (``bma``)                z-score of B over       NEUON 2024,
                                                                 classes > z_threshold   Chlorophyll Crew
``multiscale``  max over levels l of w_l * max_{t in l} p_t(s)   S >= threshold          2025 winner (w=1)
``zmerge``      per-tile z (ddof 0) of the ensemble mean; top-1   bisected threshold,     Chlorophyll Crew
                per tile (``zmerge``: a whole algorithm)          top-up 1, cap 9         merge.ipynb
==============  ===============================================  ======================  ==================

Exact or refused: ``max``, ``mean``, ``bma`` and ``multiscale`` read the image
stats when given (exact whatever the saved top-k). Without them ``max`` and
``multiscale`` are exact only when no unsaved species could reach the
threshold (every tile's smallest saved probability, times its level weight,
is below it), ``mean`` and ``bma`` only when every class was saved; ``union``
needs each tile's top-k saved unless its bound is below the threshold,
``vote`` and ``pairs`` need the top-k of every tile. Anything else raises
:class:`NotExact` naming what to save.

Then, in order: ``tile_transform zscore`` (``ensemble.tile_zscores``) before
scoring; transect ``mean`` pooling; ``target_mean`` replaces the keep rule by
``S > x`` with x from ``threshold_search`` (the winner's ``calc_seuil``);
transect ``union`` pooling; species whose best tile probability is below
``min_score`` dropped; ordering; the cap ``max_species``; transect
``count-topk`` / ``min-images`` pooling of the lists (``pooling``); a top-up
to ``min_species`` (default 0: empty lists are written, as every public
pipeline does) from the image's best remaining species by tile probability.

Thresholds are inclusive (``>=``) unless ``strict``, except the target search
(``>``, as the winner's); ``>`` differs only on a probability exactly equal to it.

The *best tile probability* of a species is the max of p_t(s) over the rows
the strategy counted (union: the top-k entries above the threshold; vote: the
top-k entries; the others: every tile), so that it is exact whenever S is.

**Order and ties** (``tie_rule``). ``score``: S desc, then best tile
probability desc, then species id asc: deterministic and independent of tile
order. ``first-seen``: S desc, then the first appearance of the species in tile
order (image by sorted id, which matters only when a transect pools several,
then tile, then rank) among the rows the strategy counted, then species id:
what ``collections.Counter.most_common`` gives, so DS@GT's vote runs (top-1 per
tile, ``most_common(10)``) are reproduced exactly with ``vote``, ``top_k 1``,
``max_species 10``, ``tie_rule first-seen``. ``pairs`` has its own order.
``argsort`` / ``topk``: for ``union``, ``vote`` and ``pairs`` each tile's top k
is the one numpy's ``argsort()[-k:][::-1]`` or ``torch.topk(p, k)`` picks on
the full vector (``tie_rules``: saved by ``predict --save-ties``, or derived
where the saved probabilities do not tie), then the order is first-seen (for
``union``: tile order alone, the order in which the organisers' dict is filled).

``strict``: thresholds (and ``min_score``) pass on ``> x`` instead of ``>= x``,
as the organisers' notebook and the winner's ``lib_soumission.rs`` compare.

The options themselves (``AggregationConfig``, its defaults and checks) and the table of strategies (what each
reads) are ``aggregation_config``'s; this module computes them (``SCORE_AND_KEEP``, ``LISTS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from agrieval.baselines.plantclef import _tie_rules as tie_rules
from agrieval.baselines.plantclef import _zmerge as zmerge
from agrieval.baselines.plantclef._ensemble import tile_bounds, tile_zscores
from agrieval.baselines.plantclef._exactness import NotExact
from agrieval.baselines.plantclef._image_stats import ImageStats, image_level_matrix
from agrieval.baselines.plantclef._pooling import (
    order_key,
    pool_contains,
    pool_count_topk,
    pool_mean,
    pool_min_images,
    pool_union,
)
from agrieval.baselines.plantclef._threshold_search import threshold_for_mean_count
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig

KEYS = ["image_id", "species_id"]
FIRST_SEEN_ORDER = ("first-seen", *tie_rules.RULES)  # the teams that pick with argsort/topk list in tile order
NO_POSITION = 2 ** 62  # a species never seen in a saved top-k comes after every seen one


@dataclass
class Inputs:
    tiles: pd.DataFrame
    cfg: AggregationConfig
    ids: list[str]
    stats: ImageStats | None
    n_classes: int | None
    target_x: float | None = None  # set when the score function already applied the target threshold

    def depth(self) -> pd.Series:
        return self.tiles.groupby(["image_id", "tile"], sort=True).size()

    def complete(self) -> bool:
        return self.n_classes is not None and len(self.tiles) > 0 and int(self.depth().min()) >= self.n_classes


# --- exactness ------------------------------------------------------------------------------------


def require_depth(inp: Inputs, k: int, what: str) -> None:
    """Every tile must have its top k saved."""
    if not len(inp.tiles):
        return
    depth = inp.depth()
    short = depth < k
    if inp.n_classes is not None:
        short &= depth < inp.n_classes  # a tile that saved every class has all of its top k
    if short.any():
        image_id, tile = short[short].index[0]
        raise NotExact(f"{what} uses the top {k} of each tile, but tile {tile} of {image_id!r} has only "
                       f"{int(depth[(image_id, tile)])} saved; predict again with --save-top-k {k} (or more)")


def require_bound_below(inp: Inputs, threshold: float, what: str, weights=None, need_k: int | None = None) -> None:
    """No unsaved species may reach ``threshold`` (optionally only for tiles with fewer than ``need_k`` saved)."""
    if not len(inp.tiles) or inp.complete():
        return
    bound = tile_bounds(inp.tiles, inp.n_classes)
    if weights is not None:
        levels = inp.tiles.groupby(["image_id", "tile"], sort=True)["level"].first().to_numpy()
        bound = bound * np.asarray(weights, dtype=np.float64)[levels]
    bad = bound >= threshold
    if need_k is not None:
        bad &= inp.depth() < need_k
    if bad.any():
        image_id, tile = bad[bad].index[0]
        raise NotExact(f"{what} is not exact from the saved top-k: tile {tile} of {image_id!r} was saved down to "
                       f"p = {bound[(image_id, tile)]:.4g} >= {threshold:g}, so a species it did not save could still "
                       "pass; give the image stats (predict writes <tiles>.stats.parquet next to --save-tile-scores) "
                       "or save a larger --save-top-k")


def require_stats(inp: Inputs, what: str) -> None:
    if inp.stats is None and not inp.complete():
        raise NotExact(f"{what} needs the score of every class on every tile: give the image stats (predict writes "
                       "<tiles>.stats.parquet next to --save-tile-scores unless --image-stats none), or save "
                       f"--save-top-k {inp.n_classes or 'N_CLASSES'}")


# --- scores ---------------------------------------------------------------------------------------


def _positions(tiles: pd.DataFrame) -> np.ndarray:
    """Order of first appearance of each row: image (sorted ids, which orders a transect's images when
    pooling), then tile, then rank."""
    if not len(tiles):
        return np.zeros(0, dtype=np.int64)
    width = int(tiles["rank"].max()) + 1
    height = int(tiles["tile"].max()) + 1
    ids = tiles["image_id"].to_numpy()
    if "image_rank" in tiles:  # aggregate's image order (file-name)
        image = tiles["image_rank"].to_numpy(np.int64)
    else:
        image = np.searchsorted(np.unique(ids), ids).astype(np.int64)
    return (image * height + tiles["tile"].to_numpy(np.int64)) * width + tiles["rank"].to_numpy(np.int64)


def _group_rows(rows: pd.DataFrame, **aggs) -> pd.DataFrame:
    rows = rows.assign(pos=_positions(rows))
    return rows.groupby(KEYS, sort=True, as_index=False).agg(prob=("prob", "max"), first=("pos", "min"), **aggs)


def score_union(inp: Inputs) -> pd.DataFrame:
    """S(s) = max p_t(s) over tiles with rank_t(s) < k and p_t(s) >= threshold."""
    cfg, tiles = inp.cfg, inp.tiles
    require_bound_below(inp, cfg.threshold, f"union with top-k {cfg.top_k}", need_k=cfg.top_k)
    sel = tiles[(tiles["rank"] < cfg.top_k) & _passes(tiles["prob"].to_numpy(), cfg.threshold, cfg.strict)]
    return _group_rows(sel).assign(score=lambda f: f["prob"])


def score_vote(inp: Inputs) -> pd.DataFrame:
    """S(s) = #{t : rank_t(s) < k}."""
    require_depth(inp, inp.cfg.top_k, "vote")
    sel = inp.tiles[inp.tiles["rank"] < inp.cfg.top_k]
    out = _group_rows(sel, score=("tile", "nunique"))
    out["score"] = out["score"].astype(np.float64)
    return out


def score_pairs(inp: Inputs) -> pd.DataFrame:
    """DS@GT: every (tile, species, p) of an image sorted by p desc (stable: tile, then rank); the first
    k pairs; species de-duplicated keeping the first. S = -(position of the species' first pair)."""
    k = inp.cfg.top_k
    require_depth(inp, k, "pairs")
    t = inp.tiles.sort_values(["image_id", "prob", "tile", "rank"], ascending=[True, False, True, True],
                              kind="mergesort")
    top = t[t.groupby("image_id", sort=False).cumcount() < k]
    first = top.drop_duplicates(KEYS, keep="first").copy()
    first["first"] = first.groupby("image_id", sort=False).cumcount().astype(np.int64)
    first["score"] = -first["first"].astype(np.float64)
    return first[KEYS + ["prob", "first", "score"]].reset_index(drop=True)


def _first_positions(tiles: pd.DataFrame) -> pd.Series:
    rows = tiles.assign(pos=_positions(tiles))
    return rows.groupby(KEYS, sort=True)["pos"].min()


def _candidates(inp: Inputs, score: np.ndarray, mask: np.ndarray, k: int | None) -> np.ndarray:
    """``mask`` narrowed to the k best entries of each image (ties kept) when nothing after the keep rule can
    drop an entry, so that C classes x N images become rows only when they may reach the output."""
    cfg = inp.cfg
    if k is None or k >= score.shape[1] or cfg.min_score is not None or cfg.group_mode in ("union", "mean"):
        return mask
    masked = np.where(mask, score, -np.inf)
    kth = -np.partition(-masked, k - 1, axis=1)[:, k - 1]
    return mask & (masked >= kth[:, None])


def _from_matrix(inp: Inputs, score: np.ndarray, mask: np.ndarray | None = None,
                 extra: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """Long frame of the entries of ``score`` ``(len(ids), C)`` selected by ``mask`` (all by default), with
    columns taken from the same entries of the ``extra`` matrices."""
    stats = inp.stats
    best = image_level_matrix(stats, inp.ids, "max") if stats.max is not None else None
    if mask is None:
        mask = np.ones(score.shape, bool)
    rows, cols = np.nonzero(mask)
    frame = pd.DataFrame({"image_id": np.asarray(inp.ids, dtype=object)[rows],
                          "species_id": stats.species[cols].astype(np.int64),
                          "score": score[rows, cols], "prob": best[rows, cols] if best is not None else 0.0,
                          **{name: m[rows, cols] for name, m in (extra or {}).items()}})
    if best is None:  # an ensemble: the best saved probability, 0 for a species no tile saved
        tile_best = inp.tiles.groupby(KEYS, sort=True)["prob"].max()
        frame["prob"] = tile_best.reindex(pd.MultiIndex.from_frame(frame[KEYS])).fillna(0.0).to_numpy()
    pos = _first_positions(inp.tiles)
    frame["first"] = pos.reindex(pd.MultiIndex.from_frame(frame[KEYS])).fillna(NO_POSITION).to_numpy(np.int64)
    return frame.sort_values(KEYS, kind="mergesort").reset_index(drop=True)


def _weighted_max_from_tiles(inp: Inputs, weights) -> pd.DataFrame:
    tiles = inp.tiles
    w = np.ones(int(tiles["level"].max()) + 1 if len(tiles) else 1) if weights is None else np.asarray(weights, float)
    if len(tiles) and int(tiles["level"].max()) >= len(w):
        raise ValueError(f"{len(w)} scale weight(s) given for {int(tiles['level'].max()) + 1} tiling levels")
    rows = tiles.assign(wp=tiles["prob"].to_numpy(np.float64) * w[tiles["level"].to_numpy()])
    return _group_rows(rows, score=("wp", "max"))


def score_max(inp: Inputs) -> pd.DataFrame:
    """S(s) = max over every tile of every level of w_l(t) * p_t(s) (w = 1 unless ``scale_weights``)."""
    cfg = inp.cfg
    if cfg.target_mean is not None:  # the search runs over every class of every image
        require_stats(inp, f"{cfg.strategy} with a target mean")
    if inp.stats is not None:
        s = image_level_matrix(inp.stats, inp.ids, "max", cfg.scale_weights)
        if cfg.target_mean is not None and cfg.group_mode not in ("mean", "contains"):  # else: after pooling
            inp.target_x = threshold_for_mean_count(list(s), cfg.target_mean)
            return _from_matrix(inp, s, _candidates(inp, s, s > inp.target_x, cfg.max_species))
        if cfg.target_mean is not None:
            return _from_matrix(inp, s)
        return _from_matrix(inp, s, _candidates(inp, s, _passes(s, cfg.threshold, cfg.strict), cfg.max_species))
    require_bound_below(inp, cfg.threshold, cfg.strategy, cfg.scale_weights)
    return _weighted_max_from_tiles(inp, cfg.scale_weights)


def score_mean(inp: Inputs) -> pd.DataFrame:
    """S(s) = (1/T) sum_t p_t(s) over the T tiles of the image (all levels)."""
    require_stats(inp, "mean")
    if inp.stats is not None:
        s = image_level_matrix(inp.stats, inp.ids, "mean")
        k = min(inp.cfg.top_k, inp.cfg.max_species or inp.cfg.top_k)
        return _from_matrix(inp, s, _candidates(inp, s, np.ones(s.shape, bool), k))
    n_tiles = inp.tiles.groupby("image_id")["tile"].nunique()
    out = _group_rows(inp.tiles, total=("prob", "sum"))
    out["score"] = out["total"] / out["image_id"].map(n_tiles).to_numpy()
    return out.drop(columns="total")


def score_bma(inp: Inputs) -> pd.DataFrame:
    """S(s) = B(s) (mean over levels of each level's BMA vector); kept: z-score over classes > z_threshold."""
    require_stats(inp, "bma")
    if inp.stats is None:
        raise NotExact("bma needs the image stats (BMA vectors are computed on the device by predict)")
    b = image_level_matrix(inp.stats, inp.ids, "bma")
    z = (b - b.mean(axis=1, keepdims=True)) / b.std(axis=1, ddof=1, keepdims=True)
    return _from_matrix(inp, b, _candidates(inp, b, z > inp.cfg.z_threshold, inp.cfg.max_species), {"z": z})


def keep_all(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    return np.ones(len(scored), dtype=bool)


def _passes(values: np.ndarray, threshold: float, strict: bool) -> np.ndarray:
    return values > threshold if strict else values >= threshold


def keep_threshold(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    return _passes(scored["score"].to_numpy(), cfg.threshold, cfg.strict)


def keep_top_k(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    ranked = _ordered(scored, cfg.tie_rule)
    pos = ranked.groupby("image_id", sort=False).cumcount()
    return (pos < cfg.top_k).reindex(scored.index).to_numpy()


def keep_votes(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    return (scored["score"] >= cfg.min_votes).to_numpy()


def keep_z(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    return (scored["z"] > cfg.z_threshold).to_numpy()


def lists_zmerge(tiles: pd.DataFrame, cfg: AggregationConfig, ids: list[str], n_classes: int | None,
                 members: list[pd.DataFrame] | None, dense: list | None) -> dict[str, list[int]]:
    """Chlorophyll Crew's merge notebook: a whole algorithm from every class of every tile to lists (zmerge)."""
    if dense:
        return zmerge.species_lists_dense(dense, zmerge_settings(cfg), ids)
    return zmerge.species_lists(members or [tiles], n_classes, zmerge_settings(cfg), ids)


# How each strategy computes (what it does and reads: ``aggregation_config.STRATEGIES``): a score and a keep
# rule, or a whole algorithm from tiles to lists.
SCORE_AND_KEEP = {"union": (score_union, keep_all), "max": (score_max, keep_threshold),
                  "mean": (score_mean, keep_top_k), "vote": (score_vote, keep_votes), "pairs": (score_pairs, keep_all),
                  "bma": (score_bma, keep_z), "multiscale": (score_max, keep_threshold)}
LISTS = {"zmerge": lists_zmerge}


def _ordered(frame: pd.DataFrame, tie_rule: str = "score", tile_order: bool = False) -> pd.DataFrame:
    if tile_order:  # a union listed as the organisers' dict fills: first appearance only
        return frame.sort_values(["image_id", "first", "species_id"], kind="mergesort")
    if tie_rule in FIRST_SEEN_ORDER:
        return frame.sort_values(["image_id", "score", "first", "species_id"], ascending=[True, False, True, True],
                                 kind="mergesort")
    return frame.sort_values(["image_id", "score", "prob", "species_id"], ascending=[True, False, False, True],
                             kind="mergesort")


def _check_groups(cfg: AggregationConfig, ids: list[str], groups: Mapping[str, str] | None) -> dict | None:
    if cfg.group_mode in (None, "contains"):  # contains groups by the ids themselves
        return None
    if groups is None:
        raise ValueError("a transect mode needs the transect of each image")
    missing = [i for i in ids if i not in groups]
    if missing:
        raise ValueError(f"no transect for image {missing[0]!r}")
    return {i: groups[i] for i in ids}


def aggregate(tiles: pd.DataFrame, cfg: AggregationConfig, image_ids: list[str] | None = None,
              groups: Mapping[str, str] | None = None, stats: ImageStats | None = None,
              n_classes: int | None = None, members: list[pd.DataFrame] | None = None,
              genus: Mapping[int, str] | None = None, dense: list | None = None) -> dict[str, list[int]]:
    """Species ids per image, ordered best first (module docstring). ``image_ids`` (default: those in
    ``tiles``) are all returned, an image without tiles getting an empty list. ``groups`` maps image id ->
    transect, required when ``cfg.group_mode`` is set. ``n_classes``: the model's class count (lets a
    file that saved every class count as complete, and z-scores)."""
    ids = sorted(set(tiles["image_id"])) if image_ids is None else list(image_ids)
    groups = _check_groups(cfg, ids, groups)
    if cfg.image_order != "id":
        order = sorted(set(tiles["image_id"]), key=order_key(cfg.image_order))
        tiles = tiles.assign(image_rank=tiles["image_id"].map({i: n for n, i in enumerate(order)}).to_numpy(np.int64))
    if cfg.strategy in LISTS:
        return _pooled(LISTS[cfg.strategy](tiles, cfg, ids, n_classes, members, dense), cfg, groups)
    score, keep = SCORE_AND_KEEP[cfg.strategy]
    if cfg.tie_rule in tie_rules.RULES and cfg.strategy in ("union", "vote", "pairs"):
        tiles = tie_rules.selection(tiles, cfg.tie_rule, cfg.top_k, n_classes)  # each tile's top k, the team's way
    if cfg.tile_transform == "zscore":
        if "is_z" not in tiles:  # an ensemble of z-scored files arrives transformed
            tiles = tile_zscores(tiles, n_classes)
        if stats is not None and cfg.strategy in ("max", "multiscale", "mean", "bma"):
            raise NotExact(f"{cfg.strategy} on per-tile z-scores cannot use the image stats (they hold "
                           "probabilities); use union, vote or pairs on z-scores")
    if stats is not None:
        stats = stats.select(ids)
    inp = Inputs(tiles, cfg, ids, stats, n_classes)
    scored = score(inp).reset_index(drop=True)
    if cfg.group_mode == "mean":
        scored = pool_mean(scored, groups).reset_index(drop=True)
    elif cfg.group_mode == "contains":
        scored = pool_contains(scored, ids).reset_index(drop=True)
    if inp.target_x is not None:  # applied by the score function on every class
        kept = scored
    elif cfg.target_mean is not None:
        by_image = {i: s.to_numpy() for i, s in scored.groupby("image_id")["score"]}
        x = threshold_for_mean_count([by_image.get(i, np.zeros(0)) for i in ids], cfg.target_mean)
        kept = scored[(scored["score"] > x).to_numpy()]
    else:
        kept = scored[keep(scored, cfg)] if len(scored) else scored
    if cfg.group_mode == "union":
        kept = pool_union(kept, groups)
    if cfg.min_score is not None:
        kept = kept[_passes(kept["prob"].to_numpy(), cfg.min_score, cfg.strict)]
    kept = _ordered(kept, cfg.tie_rule, tile_order=cfg.strategy == "union" and cfg.tie_rule in tie_rules.RULES)
    if cfg.one_per_genus:
        kept = one_per_genus(kept, genus)
    if cfg.max_species is not None:
        kept = kept[kept.groupby("image_id", sort=False).cumcount() < cfg.max_species]
    result: dict[str, list[int]] = {i: [] for i in ids}
    for image_id, species in kept.groupby("image_id", sort=False)["species_id"]:
        if image_id in result:
            result[image_id] = [int(s) for s in species]
    result = _pooled(result, cfg, groups)
    if cfg.min_species:
        _top_up(result, tiles, cfg.min_species)
    return result


def one_per_genus(kept: pd.DataFrame, genus: Mapping[int, str] | None) -> pd.DataFrame:
    """Chlorophyll Crew's ``filter_genus`` (src/prediction.py ~394-407): per image, per genus, the species with
    the highest best-tile probability (the first on a tie: their ``>``), listed where its genus first appears."""
    if genus is None:
        raise ValueError("one species per genus needs the genus of each species (--one-per-genus FILE)")
    missing = sorted({int(s) for s in kept["species_id"]} - set(genus))
    if missing:
        raise ValueError(f"no genus for species {missing[0]} (and {len(missing) - 1} more) in the genus file")
    k = kept.reset_index(drop=True)
    k = k.assign(genus=k["species_id"].map(lambda s: genus[int(s)]), position=np.arange(len(k)))
    first = k.groupby(["image_id", "genus"], sort=False)["position"].transform("min")
    best = k.loc[k.groupby(["image_id", "genus"], sort=False)["prob"].idxmax()]
    best = best.assign(position=first.loc[best.index].to_numpy())
    return best.sort_values("position", kind="mergesort").drop(columns=["genus", "position"])


def zmerge_settings(cfg: AggregationConfig) -> zmerge.MergeSettings:
    """The notebook's constants, with target mean, cap, top-up and strictness from the config."""
    return zmerge.MergeSettings(target=4.2 if cfg.target_mean is None else cfg.target_mean,
                                max_len=9 if cfg.max_species is None else cfg.max_species,
                                min_len=cfg.min_species, use_z=cfg.use_z, strict=cfg.strict)


def _pooled(result: dict[str, list[int]], cfg: AggregationConfig, groups) -> dict[str, list[int]]:
    key = order_key(cfg.image_order)
    if cfg.group_mode == "count-topk":
        return pool_count_topk(result, groups, cfg.pool_k, key)
    if cfg.group_mode == "min-images":
        return pool_min_images(result, groups, cfg.pool_min_images, key)
    return result


def _top_up(result: dict[str, list[int]], tiles: pd.DataFrame, min_species: int) -> None:
    short = [i for i, labels in result.items() if len(labels) < min_species]
    if not short:
        return
    best = tiles[tiles["image_id"].isin(short)].groupby(KEYS, sort=True, as_index=False)["prob"].max()
    best = best.sort_values(["image_id", "prob", "species_id"], ascending=[True, False, True], kind="mergesort")
    for image_id, species in best.groupby("image_id", sort=False)["species_id"]:
        labels = result[image_id]
        for s in species:
            if len(labels) >= min_species:
                break
            if int(s) not in labels:
                labels.append(int(s))
