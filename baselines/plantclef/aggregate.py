"""From per-tile top-k scores to the species set of each quadrat.

Input: a long frame with one row per (image_id, tile, rank) holding the
``species_id`` and softmax ``prob`` of that tile's rank-th best class (ranks
0..K-1, as saved by ``predict``). ``T`` is the number of tiles of an image and
``top_k(t)`` the species of tile t with rank < k.

Each strategy is two small functions: a *score* per (image, species) and a
*keep* rule:

==========  =================================================  =====================
strategy    score S(s)                                          keep
==========  =================================================  =====================
``union``   max p_t(s) over tiles with s in top_k(t),           every scored species
            p_t(s) >= threshold
``max``     max over tiles of p_t(s)                            S(s) >= threshold
``mean``    (1/T) sum_t p_t(s)  (0 outside a tile's saved top-K)  the k highest S
``vote``    #{t : s in top_k(t)}                                 S(s) >= min_votes
==========  =================================================  =====================

Then, for every strategy: optional transect pooling (``transects``), species
whose best tile probability is below ``min_score`` dropped, the rest ordered
by (S desc, best probability desc, species id asc), capped at ``max_species``,
and topped up to ``min_species`` from the image's best remaining species by
tile probability (so that no quadrat is left empty unless asked).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

KEYS = ["image_id", "species_id"]


@dataclass(frozen=True)
class AggregationConfig:
    strategy: str = "union"
    top_k: int = 1
    threshold: float = 0.0
    min_votes: int = 1
    max_species: int | None = None
    min_score: float | None = None
    min_species: int = 1
    group_mode: str | None = None  # None | "union" | "mean"

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"aggregation strategy {self.strategy!r} is not one of {', '.join(STRATEGIES)}")
        if self.top_k < 1:
            raise ValueError("top-k must be at least 1")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold {self.threshold} is not a probability in [0, 1]")
        if self.min_votes < 1:
            raise ValueError("min-votes must be at least 1")
        if self.max_species is not None and self.max_species < 1:
            raise ValueError("max-species must be at least 1")
        if self.min_species < 0 or (self.max_species is not None and self.min_species > self.max_species):
            raise ValueError("min-species must be in 0..max-species")
        if self.group_mode not in (None, "union", "mean"):
            raise ValueError(f"transect mode {self.group_mode!r} is not union or mean")

    def label(self) -> str:
        """Short stable name of the setting, for sweep tables."""
        core = {"union": f"union k={self.top_k} thr={self.threshold:g}",
                "max": f"max thr={self.threshold:g}",
                "mean": f"mean k={self.top_k}",
                "vote": f"vote k={self.top_k} m={self.min_votes}"}[self.strategy]
        extra = [f"max_species={self.max_species}"] if self.max_species else []
        extra += [f"min_score={self.min_score:g}"] if self.min_score else []
        extra += [f"transect={self.group_mode}"] if self.group_mode else []
        return " ".join([core, *extra])

    def as_dict(self) -> dict:
        return asdict(self)


def _best_prob(tiles: pd.DataFrame) -> pd.DataFrame:
    return tiles.groupby(KEYS, sort=True, as_index=False)["prob"].max()


def score_union(tiles: pd.DataFrame, cfg: AggregationConfig) -> pd.DataFrame:
    sel = tiles[(tiles["rank"] < cfg.top_k) & (tiles["prob"] >= cfg.threshold)]
    return sel.groupby(KEYS, sort=True, as_index=False)["prob"].max().assign(score=lambda f: f["prob"])


def score_max(tiles: pd.DataFrame, cfg: AggregationConfig) -> pd.DataFrame:
    return _best_prob(tiles).assign(score=lambda f: f["prob"])


def score_mean(tiles: pd.DataFrame, cfg: AggregationConfig) -> pd.DataFrame:
    n_tiles = tiles.groupby("image_id")["tile"].nunique()
    out = tiles.groupby(KEYS, sort=True, as_index=False).agg(total=("prob", "sum"), prob=("prob", "max"))
    out["score"] = out["total"] / out["image_id"].map(n_tiles).to_numpy()
    return out.drop(columns="total")


def score_vote(tiles: pd.DataFrame, cfg: AggregationConfig) -> pd.DataFrame:
    sel = tiles[tiles["rank"] < cfg.top_k]
    out = sel.groupby(KEYS, sort=True, as_index=False).agg(score=("tile", "nunique"), prob=("prob", "max"))
    out["score"] = out["score"].astype(np.float64)
    return out


def keep_all(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    return np.ones(len(scored), dtype=bool)


def keep_threshold(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    return (scored["score"] >= cfg.threshold).to_numpy()


def keep_top_k(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    ranked = _ordered(scored)
    pos = ranked.groupby("image_id", sort=False).cumcount()
    return (pos < cfg.top_k).reindex(scored.index).to_numpy()


def keep_votes(scored: pd.DataFrame, cfg: AggregationConfig) -> np.ndarray:
    return (scored["score"] >= cfg.min_votes).to_numpy()


Strategy = tuple[Callable[[pd.DataFrame, AggregationConfig], pd.DataFrame],
                 Callable[[pd.DataFrame, AggregationConfig], np.ndarray]]
STRATEGIES: dict[str, Strategy] = {
    "union": (score_union, keep_all),
    "max": (score_max, keep_threshold),
    "mean": (score_mean, keep_top_k),
    "vote": (score_vote, keep_votes),
}


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["image_id", "score", "prob", "species_id"], ascending=[True, False, False, True],
                             kind="mergesort")


def _pool_mean(scored: pd.DataFrame, groups: Mapping[str, str]) -> pd.DataFrame:
    """Average each species' score over the images of a transect (absent = 0); best probability = max."""
    g = scored.assign(group=scored["image_id"].map(groups))
    n_images = pd.Series(list(groups.values())).value_counts()
    pooled = g.groupby(["group", "species_id"], as_index=False).agg(score=("score", "sum"), prob=("prob", "max"))
    pooled["score"] = pooled["score"] / pooled["group"].map(n_images).to_numpy()
    members = pd.DataFrame({"image_id": list(groups), "group": list(groups.values())})
    return members.merge(pooled, on="group").drop(columns="group")


def _pool_union(kept: pd.DataFrame, groups: Mapping[str, str]) -> pd.DataFrame:
    """Each image gets every species kept in any image of its transect (score, probability = max)."""
    g = kept.assign(group=kept["image_id"].map(groups))
    pooled = g.groupby(["group", "species_id"], as_index=False).agg(score=("score", "max"), prob=("prob", "max"))
    members = pd.DataFrame({"image_id": list(groups), "group": list(groups.values())})
    return members.merge(pooled, on="group").drop(columns="group")


def aggregate(tiles: pd.DataFrame, cfg: AggregationConfig, image_ids: list[str] | None = None,
              groups: Mapping[str, str] | None = None) -> dict[str, list[int]]:
    """Species ids per image, ordered best first. ``image_ids`` (default: those in ``tiles``)
    are all returned, an image without tiles getting an empty list.
    ``groups`` maps image id -> transect, required when ``cfg.group_mode`` is set."""
    saved_k = int(tiles["rank"].max()) + 1 if len(tiles) else 0
    if cfg.strategy in ("union", "vote") and cfg.top_k > saved_k and len(tiles):
        raise ValueError(f"top-k {cfg.top_k} per tile asked, but only the top {saved_k} of each tile were saved")
    ids = sorted(set(tiles["image_id"])) if image_ids is None else list(image_ids)
    score_fn, keep_fn = STRATEGIES[cfg.strategy]
    scored = score_fn(tiles, cfg)
    if cfg.group_mode is not None:
        if groups is None:
            raise ValueError("a transect mode needs the transect of each image")
        missing = [i for i in ids if i not in groups]
        if missing:
            raise ValueError(f"no transect for image {missing[0]!r}")
        groups = {i: groups[i] for i in ids}
    if cfg.group_mode == "mean":
        scored = _pool_mean(scored, groups)
    kept = scored[keep_fn(scored.reset_index(drop=True), cfg)] if len(scored) else scored
    if cfg.group_mode == "union":
        kept = _pool_union(kept, groups)
    if cfg.min_score is not None:
        kept = kept[kept["prob"] >= cfg.min_score]
    kept = _ordered(kept)
    if cfg.max_species is not None:
        kept = kept[kept.groupby("image_id", sort=False).cumcount() < cfg.max_species]
    result = {i: [] for i in ids}
    for image_id, species in kept.groupby("image_id", sort=False)["species_id"]:
        if image_id in result:
            result[image_id] = [int(s) for s in species]
    if cfg.min_species:
        _top_up(result, tiles, cfg.min_species)
    return result


def _top_up(result: dict[str, list[int]], tiles: pd.DataFrame, min_species: int) -> None:
    short = [i for i, labels in result.items() if len(labels) < min_species]
    if not short:
        return
    best = _best_prob(tiles[tiles["image_id"].isin(short)]).assign(score=0.0)
    best = best.sort_values(["image_id", "prob", "species_id"], ascending=[True, False, True], kind="mergesort")
    for image_id, species in best.groupby("image_id", sort=False)["species_id"]:
        labels = result[image_id]
        for s in species:
            if len(labels) >= min_species:
                break
            if int(s) not in labels:
                labels.append(int(s))
