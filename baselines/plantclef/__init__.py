"""PlantCLEF DINOv2 tiling predictor: quadrat images -> tiles -> ViT -> per-tile top-k and per-image stats ->
aggregation -> a validated submission.

The end-to-end run (resumable), the tile scores as Parquet (re-aggregation without a GPU), the named
aggregation strategies and team recipes, the model and its preprocessing, tile geometry, transect rules, the
sweep over aggregation settings and the demo. ``agrieval baselines plantclef ...`` is the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.baselines.plantclef import aggregate
    from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
    from agrieval.baselines.plantclef.classes import load_class_mapping
    from agrieval.baselines.plantclef.demo import run_demo
    from agrieval.baselines.plantclef.geometry import tile_boxes
    from agrieval.baselines.plantclef.inference import TileScorer
    from agrieval.baselines.plantclef.model import ModelSpec, build_model
    from agrieval.baselines.plantclef.predict import PredictResult, RunOptions, run_predict
    from agrieval.baselines.plantclef.preprocess import PreprocessConfig
    from agrieval.baselines.plantclef.recipes import Recipe, get_recipe, register
    from agrieval.baselines.plantclef.sweep import SweepGrid, run_sweep
    from agrieval.baselines.plantclef.tile_scores import read_tile_scores, write_tile_scores
    from agrieval.baselines.plantclef.transects import transect_map

__all__ = ["run_predict", "RunOptions", "PredictResult", "AggregationConfig", "aggregate", "Recipe", "get_recipe",
           "register", "read_tile_scores", "write_tile_scores", "load_class_mapping", "build_model", "ModelSpec",
           "TileScorer", "PreprocessConfig", "tile_boxes", "transect_map", "run_sweep", "SweepGrid", "run_demo"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
