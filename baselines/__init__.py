"""GPU baselines: Cross-Team Validation training runs (``baselines.ctv``) and the
PlantCLEF DINOv2 tiling predictor (``baselines.plantclef``). Needs the
``baselines`` extra (torch, timm)."""
