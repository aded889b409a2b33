"""PlantCLEF DINOv2 tiling predictor: quadrat images -> tiles -> ViT -> per-tile
top-k and per-image stats -> aggregation -> a validated submission.

Where things live (one concept per module):

====================  ==========================================================
``geometry``          tile boxes of an image (grid, window, cover, square, floor)
``jpeg``              JPEG encode/decode with a named chroma subsampling (4:1:1)
``preprocess``        border crop, tile policy, resize, JPEG stage, tile crops
``classes``           output index -> species id (class_mapping.txt / CSV)
``model``             timm model presets and checkpoint loading (EMA first)
``loader``            dataset of quadrats decoded and tiled in loader workers
``inference``         batched forward pass, top-k and group stats on the device
``bma``               Bayesian model averaging weights over tiles (NEUON)
``tile_scores``       Parquet of per-tile top-k (re-aggregation without a GPU)
``image_stats``       per-image max / sum / BMA over every class (exactness)
``aggregation_config`` the aggregation settings (``AggregationConfig``) and the strategy table
``aggregate``         how each named strategy (union, max, mean, vote, pairs, bma,
                      multiscale) computes, exact or refused, tie rules
``ensemble``          mean of several models' tiles; per-tile z-scores
``threshold_search``  the threshold for a target mean species count (calc_seuil)
``pooling``           sharing predictions across the images of one transect
``transects``         image id -> transect rules (the scoring core's)
``recipes``           named, registered team configurations (--recipe)
``submission``        validated writing through ``agrieval.scoring.writing.submission``
``predict``           the end-to-end run, resumable
``sweep``             scoring many aggregation settings against a solution
``draw``              a picture of the tiles on a quadrat (``tiles`` command)
``synthetic``         synthetic quadrats (planted species; a field quadrat)
``demo``              ``agrieval baselines plantclef demo``
====================  ==========================================================

Public (``__all__``, imported on first use): ``run_predict``, ``RunOptions`` and ``PredictResult`` (the
end-to-end run), ``AggregationConfig`` and the module ``aggregate`` (``aggregate.aggregate``), ``Recipe``,
``get_recipe`` and ``register``, ``read_tile_scores`` and ``write_tile_scores``, ``load_class_mapping``,
``build_model`` and ``ModelSpec``, ``TileScorer``, ``PreprocessConfig``, ``tile_boxes``, ``transect_map``,
``run_sweep`` and ``SweepGrid``, ``run_demo``. (The submission writer both baselines use is
``agrieval.baselines.write_validated``.)

Internal (may change without notice): ``awkward_logits``, ``bma``, ``cli``, ``draw``, ``ensemble``,
``exactness``, ``fidelity``, ``full_probs``, ``genus``, ``image_stats``, ``jpeg``, ``loader``, ``pooling``,
``prior``, ``shards``, ``slurm``, ``smoke``, ``synthetic``, ``threshold_search``, ``tie_rules``,
``weights`` (where the organisers' model comes from; the inputs checked before torch loads), ``zmerge``.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["run_predict", "RunOptions", "PredictResult", "AggregationConfig", "aggregate", "Recipe", "get_recipe",
           "register", "read_tile_scores", "write_tile_scores", "load_class_mapping", "build_model", "ModelSpec",
           "TileScorer", "PreprocessConfig", "tile_boxes", "transect_map", "run_sweep",
           "SweepGrid", "run_demo"]

_HOME = {"run_predict": "predict", "RunOptions": "predict", "PredictResult": "predict",
         "AggregationConfig": "aggregation_config", "aggregate": "aggregate", "Recipe": "recipes", "get_recipe": "recipes",
         "register": "recipes", "read_tile_scores": "tile_scores", "write_tile_scores": "tile_scores",
         "load_class_mapping": "classes", "build_model": "model", "ModelSpec": "model", "TileScorer": "inference",
         "PreprocessConfig": "preprocess", "tile_boxes": "geometry", "transect_map": "transects",
         "run_sweep": "sweep", "SweepGrid": "sweep", "run_demo": "demo"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
