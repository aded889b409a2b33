"""GPU baselines: Cross-Team Validation training runs (``agrieval.baselines.ctv``) and the
PlantCLEF DINOv2 tiling predictor (``agrieval.baselines.plantclef``). Needs the
``baselines`` extra (torch, timm)."""
