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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields

import numpy as np
import pandas as pd

from agrieval.baselines.plantclef.ensemble import tile_bounds, tile_zscores
from agrieval.baselines.plantclef.exactness import NotExact
from agrieval.baselines.plantclef.image_stats import ImageStats, image_level_matrix
from agrieval.baselines.plantclef.pooling import (MODES, ORDERS, order_key, pool_contains, pool_count_topk, pool_mean,
                                         pool_min_images, pool_union)
from agrieval.baselines.plantclef import tie_rules, zmerge
from agrieval.baselines.plantclef.threshold_search import threshold_for_mean_count
from agrieval.baselines.plantclef.transects import RULES

KEYS = ["image_id", "species_id"]
TIE_RULES = ("score", "first-seen", *tie_rules.RULES)
FIRST_SEEN_ORDER = ("first-seen", *tie_rules.RULES)  # the teams that pick with argsort/topk list in tile order
TILE_TRANSFORMS = ("none", "zscore")
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


def lists_zmerge(tiles: pd.DataFrame, cfg: "AggregationConfig", ids: list[str], n_classes: int | None,
                 members: list[pd.DataFrame] | None, dense: list | None) -> dict[str, list[int]]:
    """Chlorophyll Crew's merge notebook: a whole algorithm from every class of every tile to lists (zmerge)."""
    if dense:
        return zmerge.species_lists_dense(dense, zmerge_settings(cfg), ids)
    return zmerge.species_lists(members or [tiles], n_classes, zmerge_settings(cfg), ids)


@dataclass(frozen=True)
class Strategy:
    """One row of the strategy table: a score and a keep rule, or a whole algorithm (``lists``), and the
    options it reads (any other option given with it does nothing and is refused by the command line)."""

    help: str
    reads: tuple[str, ...]
    score: Callable | None = None
    keep: Callable | None = None
    lists: Callable | None = None

    def options(self) -> tuple[str, ...]:
        """Every option it may read; ``AggregationConfig.ignored`` narrows them for one setting."""
        return self.reads if self.lists else self.reads + _AFTER_SCORES


# What every score-and-keep strategy reads after its own options (module docstring: "Then, in order").
_AFTER_SCORES = ("max_species", "min_score", "min_species", "group_mode", "pool_k", "pool_min_images",
                 "transect_rule", "tie_rule", "target_mean", "tile_transform", "image_order", "one_per_genus")
STRATEGIES = {
    "union": Strategy("per-tile top-k above --threshold", ("top_k", "threshold", "strict"),
                      score_union, keep_all),
    "max": Strategy("max over tiles >= --threshold", ("threshold", "scale_weights", "strict"),
                    score_max, keep_threshold),
    "mean": Strategy("mean over tiles, top --top-k", ("top_k",), score_mean, keep_top_k),
    "vote": Strategy("in the top-k of >= --min-votes tiles", ("top_k", "min_votes"), score_vote, keep_votes),
    "pairs": Strategy("DS@GT's first --top-k (tile, species) pairs", ("top_k",), score_pairs, keep_all),
    "bma": Strategy("Bayesian model averaging, z-score > --z-threshold", ("z_threshold",), score_bma, keep_z),
    "multiscale": Strategy("max over levels of --scale-weights x level max", ("threshold", "scale_weights", "strict"),
                           score_max, keep_threshold),
    "zmerge": Strategy("Chlorophyll Crew's merge notebook: each tile's top-1 z-score (or probability, "
                       "--no-use-z-score) above a threshold bisected to --target-mean, top-up and cap",
                       ("target_mean", "max_species", "min_species", "strict", "use_z", "group_mode", "pool_k",
                        "pool_min_images", "transect_rule", "image_order"),
                       lists=lists_zmerge),
}


def _knob(default, help: str, **cli):
    """A field of the config and its command-line option in one place (``baselines/plantclef/cli/options.py``
    turns each into a click option; recipes name them by field). ``cli`` keys: ``choices``; ``none`` (the word
    that stands for None); ``minimum`` and ``min_open``; ``flags`` (a bool's on and off flags); ``flag`` (the
    option's name where it is not the field's); ``aliases``; ``metavar``; ``parse`` ("floats": a comma list);
    ``file`` (a bool set by giving a file, which the command reads)."""
    return field(default=default, metadata={"help": help, **cli})


@dataclass(frozen=True)
class AggregationConfig:
    """Every aggregation option: the one source of ``aggregate``'s and ``predict``'s options and the recipes' keys."""

    strategy: str = _knob("union", "; ".join(f"{name}: {s.help}" for name, s in STRATEGIES.items()) + ".",
                          choices=tuple(STRATEGIES))
    top_k: int = _knob(1, "Per-tile k (union, vote), per-image k (mean) or number of pairs (pairs).", minimum=1)
    threshold: float = _knob(0.0, "Probability threshold (union, max, multiscale); a z-score with --tile-transform "
                                  "zscore.")
    min_votes: int = _knob(1, "Tiles a species must be voted by (vote).", minimum=1)
    max_species: int | None = _knob(None, "Cap on species per quadrat.", minimum=1)
    min_score: float | None = _knob(None, "Drop species whose best tile probability is below this.")
    min_species: int = _knob(0, "Top up to this many species from the best tiles (0: empty lists are written).",
                             minimum=0)
    group_mode: str | None = _knob(
        None, "Share predictions across a group of images: the images of one transect (--transect-rule) for mean, "
              "union, count-topk and min-images; for contains, every image whose id contains the image's id (the "
              "winner's s.contains(id)).", choices=("none", *MODES), none="none", aliases=("--transect-mode",))
    pool_k: int = _knob(10, "count-topk: species per transect.", minimum=1)
    pool_min_images: int = _knob(2, "min-images: images of the transect that must predict a species.", minimum=1)
    transect_rule: str | None = _knob(None, "Id -> transect rule of --group-mode (default: the competition's); "
                                            "none is official.", choices=tuple(RULES))
    tie_rule: str = _knob("score", "score: ties by best probability then species id; first-seen: by first "
                                   "appearance in tile order (Counter.most_common); argsort / topk: each tile's "
                                   "top-k as numpy argsort()[-k:] / torch.topk(p, k) pick it (predict --save-ties), "
                                   "first-seen order.", choices=TIE_RULES)
    z_threshold: float = _knob(0.0, "bma: z-score to beat.")
    scale_weights: tuple[float, ...] | None = _knob(None, "multiscale/max: one weight per tiling level, e.g. 1,1,0.5.",
                                                    parse="floats", metavar="W,W,...")
    target_mean: float | None = _knob(None, "Bisect the threshold so the mean number of species per quadrat is "
                                            "this (calc_seuil).", minimum=0, min_open=True)
    tile_transform: str = _knob("none", "zscore: per-tile z-scores over the classes before aggregating.",
                                choices=TILE_TRANSFORMS)
    strict: bool = _knob(False, "Thresholds and --min-score pass on > (the organisers', the winner's) or >=.",
                         flags=("--strict", "--inclusive"))
    image_order: str = _knob("id", "Order of a transect's images for first-seen ties: by id, or by file name with "
                                   ".jpg (DS@GT's orderBy(image_name)).", choices=ORDERS)
    one_per_genus: bool = _knob(False, "CSV species_id,genus: keep the best species of each genus (Chlorophyll "
                                       "Crew's filter_genus).", file=True, metavar="FILE")
    use_z: bool = _knob(True, "zmerge: each tile's top-1 by its z-score over the classes, or by the probability "
                              "itself (merge.ipynb's USE_Z_SCORE True / False).",
                        flags=("--use-z-score", "--no-use-z-score"))

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"aggregation strategy {self.strategy!r} is not one of {', '.join(STRATEGIES)}")
        if self.top_k < 1:
            raise ValueError("top-k must be at least 1")
        if self.tile_transform not in TILE_TRANSFORMS:
            raise ValueError(f"tile transform {self.tile_transform!r} is not one of {', '.join(TILE_TRANSFORMS)}")
        if self.tile_transform == "none" and not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold {self.threshold} is not a probability in [0, 1]")
        if self.min_votes < 1:
            raise ValueError("min-votes must be at least 1")
        if self.max_species is not None and self.max_species < 1:
            raise ValueError("max-species must be at least 1")
        if self.min_species < 0 or (self.max_species is not None and self.min_species > self.max_species):
            raise ValueError("min-species must be in 0..max-species")
        if self.group_mode is not None and self.group_mode not in MODES:
            raise ValueError(f"transect mode {self.group_mode!r} is not one of {', '.join(MODES)}")
        if self.pool_k < 1 or self.pool_min_images < 1:
            raise ValueError("pool-k and pool-min-images must be at least 1")
        if self.transect_rule is not None and self.transect_rule not in RULES:
            raise ValueError(f"transect rule {self.transect_rule!r} is not one of {', '.join(RULES)}")
        if self.image_order not in ORDERS:
            raise ValueError(f"image order {self.image_order!r} is not one of {', '.join(ORDERS)}")
        if self.group_mode == "contains" and self.strategy not in ("max", "multiscale", "mean", "union", "vote"):
            raise ValueError(f"transect mode contains pools scores before the keep rule: not with {self.strategy}")
        if self.group_mode in ("union", "mean") and STRATEGIES[self.strategy].lists is not None:
            raise ValueError(f"transect mode {self.group_mode} pools scores; {self.strategy} gives lists: use "
                             "count-topk or min-images")
        if self.tie_rule not in TIE_RULES:
            raise ValueError(f"tie rule {self.tie_rule!r} is not one of {', '.join(TIE_RULES)}")
        if self.scale_weights is not None and (not self.scale_weights or min(self.scale_weights) <= 0):
            raise ValueError("scale weights must be positive numbers, one per tiling level")
        if self.target_mean is not None and self.target_mean <= 0:
            raise ValueError("the target mean number of species must be positive")

    def ignored(self) -> list[str]:
        """The fields that do nothing in this setting (the strategy does not read them), in field order."""
        strategy = STRATEGIES[self.strategy]
        reads = {"strategy", *strategy.options()}
        if self.group_mode != "count-topk":
            reads.discard("pool_k")
        if self.group_mode != "min-images":
            reads.discard("pool_min_images")
        if self.group_mode in (None, "contains"):
            reads.discard("transect_rule")
        if self.target_mean is not None and self.strategy in ("max", "multiscale"):
            reads.discard("threshold")  # the bisected threshold replaces it
        if self.min_score is not None and not strategy.lists:
            reads.add("strict")
        if "threshold" not in reads and self.min_score is None and not strategy.lists:
            reads.discard("strict")
        return [f.name for f in fields(self) if f.name not in reads]

    def label(self) -> str:
        """Short stable name of the setting, for sweep tables."""
        core = {"union": f"union k={self.top_k} thr={self.threshold:g}",
                "max": f"max thr={self.threshold:g}",
                "mean": f"mean k={self.top_k}",
                "vote": f"vote k={self.top_k} m={self.min_votes}",
                "pairs": f"pairs k={self.top_k}",
                "bma": f"bma z>{self.z_threshold:g}",
                "multiscale": f"multiscale thr={self.threshold:g}",
                "zmerge": "zmerge"}[self.strategy]
        extra = [f"w={','.join(f'{w:g}' for w in self.scale_weights)}"] if self.scale_weights else []
        extra += [f"target_mean={self.target_mean:g}"] if self.target_mean else []
        extra += [f"max_species={self.max_species}"] if self.max_species else []
        extra += [f"min_score={self.min_score:g}"] if self.min_score else []
        extra += [f"min_species={self.min_species}"] if self.min_species else []
        extra += [f"tiles={self.tile_transform}"] if self.tile_transform != "none" else []
        extra += [f"ties={self.tie_rule}"] if self.tie_rule != "score" else []
        extra += ["strict"] if self.strict else []
        extra += ["one-per-genus"] if self.one_per_genus else []
        extra += ["probabilities"] if not self.use_z else []
        if self.group_mode == "count-topk":
            extra.append(f"transect=count-topk:{self.pool_k}")
        elif self.group_mode == "min-images":
            extra.append(f"transect=min-images:{self.pool_min_images}")
        elif self.group_mode:
            extra.append(f"transect={self.group_mode}")
        return " ".join([core, *extra])

    def as_dict(self) -> dict:
        return asdict(self)


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
    strategy = STRATEGIES[cfg.strategy]
    if strategy.lists is not None:
        return _pooled(strategy.lists(tiles, cfg, ids, n_classes, members, dense), cfg, groups)
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
    scored = strategy.score(inp).reset_index(drop=True)
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
        kept = scored[strategy.keep(scored, cfg)] if len(scored) else scored
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
