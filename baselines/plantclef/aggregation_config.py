"""Every aggregation option in one place: ``AggregationConfig`` and the table of strategies it chooses from.

``AggregationConfig`` is the one source of ``aggregate``'s and ``predict``'s options (each field is a knob:
its default, help and command-line details; ``baselines/plantclef/_cli/options.py`` makes one click option of
each) and of the recipes' keys. ``STRATEGIES`` says what each strategy does and which options it reads; how
each computes, and what the options mean, is ``agrieval.baselines.plantclef.aggregate``'s (its docstring).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from agrieval.baselines.plantclef import _tie_rules as tie_rules
from agrieval.baselines.plantclef._pooling import MODES, ORDERS
from agrieval.baselines.plantclef.transects import RULES

__all__ = ["AggregationConfig", "STRATEGIES", "Strategy", "TIE_RULES", "TILE_TRANSFORMS"]

TIE_RULES = ("score", "first-seen", *tie_rules.RULES)
TILE_TRANSFORMS = ("none", "zscore")


@dataclass(frozen=True)
class Strategy:
    """One row of the strategy table: what it does, the options it reads (any other option given with it does
    nothing and is refused by the command line), and whether it is a whole algorithm from tiles to lists
    (``gives_lists``) rather than a score and a keep rule. How each computes: ``aggregate.py``."""

    help: str
    reads: tuple[str, ...]
    gives_lists: bool = False

    def options(self) -> tuple[str, ...]:
        """Every option it may read; ``AggregationConfig.ignored`` narrows them for one setting."""
        return self.reads if self.gives_lists else self.reads + _AFTER_SCORES


# What every score-and-keep strategy reads after its own options (aggregate.py's docstring: "Then, in order").
_AFTER_SCORES = ("max_species", "min_score", "min_species", "group_mode", "pool_k", "pool_min_images",
                 "transect_rule", "tie_rule", "target_mean", "tile_transform", "image_order", "one_per_genus")
STRATEGIES = {
    "union": Strategy("per-tile top-k above --threshold", ("top_k", "threshold", "strict")),
    "max": Strategy("max over tiles >= --threshold", ("threshold", "scale_weights", "strict")),
    "mean": Strategy("mean over tiles, top --top-k", ("top_k",)),
    "vote": Strategy("in the top-k of >= --min-votes tiles", ("top_k", "min_votes")),
    "pairs": Strategy("DS@GT's first --top-k (tile, species) pairs", ("top_k",)),
    "bma": Strategy("Bayesian model averaging, z-score > --z-threshold", ("z_threshold",)),
    "multiscale": Strategy("max over levels of --scale-weights x level max", ("threshold", "scale_weights", "strict")),
    "zmerge": Strategy("Chlorophyll Crew's merge notebook: each tile's top-1 z-score (or probability, "
                       "--no-use-z-score) above a threshold bisected to --target-mean, top-up and cap",
                       ("target_mean", "max_species", "min_species", "strict", "use_z", "group_mode", "pool_k",
                        "pool_min_images", "transect_rule", "image_order"), gives_lists=True),
}


def _knob(default, help: str, **cli):
    """A field of the config and its command-line option in one place (``baselines/plantclef/_cli/options.py``
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
        if self.group_mode in ("union", "mean") and STRATEGIES[self.strategy].gives_lists:
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
        if self.min_score is not None and not strategy.gives_lists:
            reads.add("strict")
        if "threshold" not in reads and self.min_score is None and not strategy.gives_lists:
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
