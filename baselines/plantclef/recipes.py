"""Named recipes: every option of one team's published configuration under one name.

timm style: a recipe is a name for a set of flag values, registered with
:func:`register`; ``--recipe NAME`` sets them and any flag given explicitly on
the command line wins. ``agrieval baselines plantclef recipes`` lists them.
Keys are the options' names (for aggregation: the fields of
``AggregationConfig``) and values what the option gives (``tiling`` a list of
levels, a bool for an on/off flag). Where a team's source does not fix a value,
the recipe says so in ``choices`` and the kit's default stands; ``variants`` are
the source's other settings, as the options that reproduce them. The table of
``recipes`` and of the docs is rendered from these by ``cli/recipe_table.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from agrieval.baselines.plantclef.aggregation_config import AggregationConfig

_PREPROCESS_KEYS = ("tiling", "tile_policy", "border_mode", "resize_filter", "jpeg_quality", "subsampling",
                   "jpeg_stage", "crop_border", "resize_backend", "centre_crop")
_PREDICT_KEYS = ("save_top_k", "flip_tta", "save_ties", "score_scale", "save_full")
_AGGREGATION_KEYS = tuple(f.name for f in fields(AggregationConfig))


@dataclass(frozen=True)
class Recipe:
    """A named set of option values (a published pipeline's settings) with their source and a summary, and the
    variants that change some of them."""

    name: str
    values: dict
    source: str
    choices: str = ""  # values the source does not fix, chosen by the kit
    summary: str = ""
    variants: tuple[tuple[str, str], ...] = ()  # (options, the source's setting they reproduce)

    def __post_init__(self) -> None:
        unknown = set(self.values) - set(_PREPROCESS_KEYS + _PREDICT_KEYS + _AGGREGATION_KEYS)
        if unknown:
            raise ValueError(f"recipe {self.name}: unknown option(s) {sorted(unknown)}")

    def aggregation_values(self) -> dict:
        return {k: v for k, v in self.values.items() if k in _AGGREGATION_KEYS}


RECIPES: dict[str, Recipe] = {}


def register(recipe: Recipe) -> Recipe:
    """Add ``recipe`` to the registry under its ``name`` (a name registered twice is a ``ValueError``) and return it,
    so that it can decorate or wrap a definition."""
    if recipe.name in RECIPES:
        raise ValueError(f"recipe {recipe.name!r} is already registered")
    RECIPES[recipe.name] = recipe
    return recipe


def get_recipe(name: str) -> Recipe:
    """The registered recipe called ``name``; ``ValueError`` naming the registered ones if there is none."""
    if name not in RECIPES:
        raise ValueError(f"recipe {name!r} is not one of {', '.join(sorted(RECIPES))}")
    return RECIPES[name]


_ORGANISERS = "PlantCLEF 2024/2025 organisers' tiling notebook (518 px windows, stride 259, kornia zero padding)"
_DSGT = ("dsgt-arc/plantclef-2025: plantclef/classification/transform.py (_split_into_grid, timm eval transform, "
         "top-10 per tile, pairs sorted by probability) and submission.py (top_k=5, grid_size=3 defaults)")
_WINNER = ("2025 winner (mirrored in yunijeong5/PlantCLEF2026 paper1_preprocessing/): src/lib_dataset.rs "
           "(shorter side to s*518, Lanczos, centre square, per-tile JPEG), src/lib.rs (max over all tiles of all "
           "scales), src/lib_soumission.rs (top-k, minimum score); pipeline/compression.py (4:2:2 q85, 4:1:1 q94)")
_CHLORO = ("geranium12/plant-clef-2025: src/data.py (MultitileDataset: scales/overlaps, kornia compute_padding, "
           "bilinear float stretch), config/config.yaml (prediction.tiling), "
           "src/prediction.py "
           "(top_k_tile_prediction, combine_same_plot_threshold), predictions/merge.ipynb (top-1 per tile, "
           "bisection to a mean of 4.2 species)")

register(Recipe(
    "organisers-tiling",
    {"tiling": ["window:518:259"], "border_mode": "centre", "tile_policy": "crop", "jpeg_quality": None,
     "save_ties": "topk:2", "strategy": "union", "top_k": 2, "threshold": 0.1, "strict": True,
     "tie_rule": "topk", "min_species": 0},
    _ORGANISERS,
    choices="border centre: kornia 0.8.0's compute_padding (the notebook's environment, uv.lock of "
            "geranium12/plant-clef-2025) splits the padding, the odd pixel at the far side",
    summary="union of every tile's torch.topk(p, 2) above 0.1 (strict), in tile order (what the notebook's buggy "
            "max amounts to); [] when none"))
register(Recipe(
    "dsgt-2025-grid",
    {"tiling": ["floor:3"], "tile_policy": "timm", "resize_filter": "bicubic", "jpeg_quality": None,
     "save_top_k": 10, "score_scale": 100.0, "strategy": "pairs", "top_k": 5, "min_species": 0},
    _DSGT,
    summary="3x3 floor grid (column-major), timm's eval transform per tile, first 5 (tile, species) pairs of "
            "torch.topk(p x 100, 10), de-duplicated",
    variants=(("--prior FILE", "transform.py's cluster prior: multiplied into every tile's scores before the "
                               "top-k (float64)"),)))
register(Recipe(
    "dsgt-2025-vote",
    {"tiling": ["floor:3"], "tile_policy": "timm", "resize_filter": "bicubic", "jpeg_quality": None,
     "save_ties": "argsort:1", "strategy": "vote", "top_k": 1, "min_votes": 1, "max_species": 10,
     "tie_rule": "argsort", "min_species": 0},
    "DS@GT 2025 NMS notebook: top-1 per tile, Counter.most_common(10); tiling as " + _DSGT,
    choices="tiling (the notebook's grid is taken from dsgt-2025-grid); the notebook's rows come in Spark order "
            "after repartition, the kit's in tile order",
    summary="top-1 per tile as np.argsort()[-1:] picks it, the 10 most voted species, ties first-seen "
            "(Counter.most_common)"))
register(Recipe(
    "dsgt-2025-transect",
    {"tiling": ["floor:3"], "tile_policy": "timm", "resize_filter": "bicubic", "jpeg_quality": None,
     "save_top_k": 10, "score_scale": 100.0, "strategy": "pairs", "top_k": 5, "min_species": 0, "group_mode": "count-topk",
     "pool_k": 10, "transect_rule": "five-pattern", "image_order": "file-name"},
    "dsgt-arc/plantclef-2025 plantclef/classification/aggregation.py (extract_base_quadrat_id, union_agg_topk); "
    + _DSGT,
    choices="pool_k 10 (union_agg_topk's top_k is a call argument)",
    summary="dsgt-2025-grid, then each transect gets its 10 species predicted by the most images"))
def _winner(quality: int, subsampling: str) -> dict:
    return {"tiling": [f"resized:{s}" for s in range(1, 10)], "tile_policy": "crop", "resize_filter": "lanczos",
            "jpeg_quality": quality, "subsampling": subsampling, "jpeg_stage": "tile", "strategy": "multiscale",
            "threshold": 0.0, "strict": True, "max_species": 10, "min_species": 0, "group_mode": "contains"}


_CHLORO_VALUES = {"tiling": ["scale:1:0", "scale:2:0.5", "scale:5:0.25"], "jpeg_quality": None,
                  "save_full": True, "strategy": "zmerge", "target_mean": 4.2, "max_species": 9, "min_species": 1}

register(Recipe(
    "winner-2025",
    _winner(85, "4:2:2"),
    _WINNER,
    choices="scales 1..9 (the overview's nine sizes), top-k 10 and minimum score 0 (lib_soumission.rs takes both "
            "as arguments; 10 is its target_nb_species); resize with PIL Lanczos, not ImageMagick's (pixels differ "
            "by the filter's implementation); per-tile JPEG 4:2:2 q85 from the 2026 Python port: the Rust "
            "write_image_blob('jpeg') leaves quality and sampling to ImageMagick's defaults",
    summary="nine scales, the whole image resized to s x 518 (PIL Lanczos, not ImageMagick) and cut in native "
            "518 px tiles (285 tiles), per-tile JPEG 4:2:2 q85, max over all tiles of all scales, top 10 above 0 "
            "(strict). Groups by id containment (--group-mode contains, lib.rs s.contains(id)): an image also "
            "takes the tiles of every image whose id contains its id (A-1 those of A-10); aggregate and predict "
            "warn when test ids contain one another",
    variants=(("--target-mean 10", "lib_soumission.rs calc_seuil: the threshold bisected to a mean of 10 species "
                                   "per quadrat instead of the top 10"),
              ("--resize-backend wand", "the Rust's own resize, ImageMagick's Lanczos (needs Wand and the "
                                        "MagickWand library)"))))
register(Recipe(
    "winner-2025-411",
    _winner(94, "4:1:1"),
    _WINNER,
    choices="as winner-2025; 4:1:1 needs the simplejpeg package",
    summary="winner-2025 with per-tile JPEG 4:1:1 q94 (id-containment grouping as winner-2025)"))
register(Recipe(
    "chlorophyll-2025",
    _CHLORO_VALUES,
    _CHLORO,
    choices="a single model (their ensemble mean: pass several tile-score files to aggregate); every class saved "
            "(--save-full-probs: the merge z-scores and sums all of them); scales 1, 2, 5 / overlaps 0, 0.5, 0.25 "
            "from config/config.yaml (the merge notebook's inputs name scales 4, 5 with overlaps 0, 0 and a 10% "
            "crop: --tiling scale:4:0 --tiling scale:5:0 --centre-crop 0.1)",
    summary="merge.ipynb: ensemble mean, per-tile z (ddof 0), top-1 per tile >= a threshold bisected on "
            "[0.001, 100] to 4.2 species per quadrat, top-up to 1 and cap at 9 by column sums of z",
    variants=(("--no-use-z-score", "merge.ipynb with USE_Z_SCORE = False: each tile's top-1 probability against "
                                   "the threshold (recipe chlorophyll-2025-probs)"),
              ("--tiling scale:4:0 --tiling scale:5:0 --centre-crop 0.1", "the merge notebook's own inputs "
                                                                         "(scales 4, 5, overlaps 0, 10% crop)"))))
register(Recipe(
    "chlorophyll-2025-probs",
    {**_CHLORO_VALUES, "use_z": False},
    _CHLORO,
    choices="as chlorophyll-2025",
    summary="chlorophyll-2025 with merge.ipynb's USE_Z_SCORE = False: the probabilities themselves, not their "
            "per-tile z-scores, against the bisected threshold, and in the top-up and cap sums"))
register(Recipe(
    "chlorophyll-2025-tiles",
    {"tiling": ["scale:1:0", "scale:2:0.5", "scale:5:0.25"], "jpeg_quality": None, "save_ties": "topk:2",
     "strategy": "union", "top_k": 2, "threshold": 0.1, "strict": True, "tie_rule": "topk", "min_species": 1},
    "geranium12/plant-clef-2025: src/prediction.py top_k_tile_prediction (~50-107: torch.topk(p, 2), > 0.1, "
    "the species' best probability, bottom_n 1 when nothing passes) with config/config.yaml prediction "
    "(method top_k_tile, k 2, min_score 0.1, top_n -1, bottom_n 1); tiling as chlorophyll-2025",
    choices="the top-up of an empty quadrat takes the best saved tile probability, ties by species id (theirs: "
            "topk(1) of all tiles' flattened probabilities); the 3x3 kernel (~316-361) is not applied by their "
            "code (final_probs is never used), so it is left out",
    summary="their predict pipeline: every tile's torch.topk(p, 2) above 0.1 (strict), tile order, the best "
            "species when none passes",
    variants=(("--one-per-genus FILE", "src/prediction.py filter_genus (~394-407): the best species of each genus"),)))
register(Recipe(
    "chlorophyll-2025-plot",
    {**_CHLORO_VALUES, "group_mode": "min-images", "pool_min_images": 2, "transect_rule": "chlorophyll-plot"},
    _CHLORO,
    choices="N = 2 images (combine_same_plot_threshold is a config value)",
    summary="chlorophyll-2025, then a species is kept when >= 2 images of the plot predict it",
    variants=(("--transect-rule chlorophyll-plot-year", "extract_plot_name with group_same_plot_by_year "
                                                        "(~422-437): plots split by year"),)))
