"""PlantCLEF DINOv2 tiling predictor: quadrat images -> tiles -> ViT -> per-tile
top-k -> aggregation -> a validated submission.

Where things live (one concept per module):

=================  ==========================================================
``geometry``       tile boxes of an image (pure function, property-tested)
``preprocess``     JPEG recompression, border crop, resize filter, tile crops
``classes``        output index -> species id (class_mapping.txt / CSV)
``model``          timm model presets and checkpoint loading (EMA first)
``loader``         dataset of quadrats decoded and tiled in loader workers
``inference``      batched forward pass, top-k on the device, flip TTA
``tile_scores``    Parquet of per-tile top-k (re-aggregation without a GPU)
``aggregate``      named aggregation strategies (union, max, mean, vote)
``transects``      sharing predictions across the images of one transect
``submission``     validated writing through ``scoring.writer``
``predict``        the end-to-end run, resumable
``sweep``          scoring many aggregation settings against a solution
``synthetic``      synthetic quadrats with planted species (demo, tests)
``demo``           ``agrieval baselines plantclef demo``
=================  ==========================================================
"""
