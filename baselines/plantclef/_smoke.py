"""GPU smoke check: ``python -m agrieval.baselines.plantclef._smoke --device cuda``.

One line per check: the 518 px model with 7,806 random-init classes builds and
runs a forward pass; the image stats computed on the device match the same
probabilities reduced on the host; then tiles/s end to end (decode, 4x4 tiling, inference,
aggregation) on a few synthetic quadrats. Exit 1 if a check fails.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from agrieval.baselines._device import device_or_exit
from agrieval.baselines.plantclef._bma import bma_vectors
from agrieval.baselines.plantclef._synthetic import make_quadrats
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.geometry import parse_level
from agrieval.baselines.plantclef.inference import TileScorer
from agrieval.baselines.plantclef.model import PRESETS, build_model, normalisation
from agrieval.baselines.plantclef.predict import RunOptions, run_predict
from agrieval.baselines.plantclef.preprocess import PreprocessConfig
from agrieval.scoring.authoring.definitions import load_competition


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--images", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)

    ok = True
    device = device_or_exit(args.device)  # a missing GPU: error [device_unavailable], exit 2
    definition = load_competition("plantclef2025")
    species = np.asarray(sorted(definition.labels))
    t0 = time.perf_counter()
    try:
        model, info = build_model(PRESETS["plantclef2024"], len(species), None)
        model = model.to(device)
        x = torch.zeros(2, 3, 518, 518, device=device)
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda"):
            out = model(x)
        assert out.shape == (2, len(species)), out.shape
        print(f"ok   model build {info['model']} @ 518 px, {len(species)} classes, random-init, forward {tuple(out.shape)} "
              f"on {device} ({time.perf_counter() - t0:.1f} s)", flush=True)
    except Exception as exc:  # report and go on to the next check
        print(f"FAIL model build: {type(exc).__name__}: {exc}", flush=True)
        return 1
    ok = check_group_stats(model, device, len(species)) and ok
    with tempfile.TemporaryDirectory() as tmp:
        ids = [f"SMOKE-{i:04d}-20240601" for i in range(args.images)]
        make_quadrats(Path(tmp) / "images", ids, 16, grid=4, width=2048, height=1536)
        pre = PreprocessConfig(levels=(parse_level("grid:4"),), input_size=518, jpeg_quality=95, subsampling="4:2:2")
        try:
            t1 = time.perf_counter()
            res = run_predict(Path(tmp) / "images", Path(tmp) / "submission.csv", checkpoint=None, class_mapping=None,
                              species=species, spec=PRESETS["plantclef2024"], preprocess=pre,
                              agg=AggregationConfig(strategy="union", top_k=1), definition=definition,
                              opts=RunOptions(device=str(device), batch_size=args.batch_size, workers=args.workers,
                                              progress=False), model=model)
            dt = time.perf_counter() - t1
            print(f"ok   end to end {res.n_images} quadrats 2048x1536, grid:4, JPEG 4:2:2 recompression, Lanczos: "
                  f"{res.n_tiles} tiles in {dt:.2f} s = {res.n_tiles / dt:.0f} tiles/s (includes warm-up)", flush=True)
        except Exception as exc:
            print(f"FAIL end to end: {type(exc).__name__}: {exc}", flush=True)
            ok = False
    return 0 if ok else 1


def check_group_stats(model, device, n_classes: int, size: int = 518) -> bool:
    """The device-side image stats (scatter max, index_add, BMA) against the same probabilities reduced here."""
    try:
        mean, std = normalisation(model)
        scorer = TileScorer(model, device, min(10, n_classes), mean, std, batch_size=4)
        tiles = torch.randint(0, 256, (10, size, size, 3), dtype=torch.uint8)
        group = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2, 1])
        out = scorer.score(tiles, group, 3)
        with torch.inference_mode():
            p = scorer._full_probs(tiles).cpu()
        for g in range(3):
            assert torch.allclose(out.group_max[g], p[group == g].max(0).values, atol=1e-6)
            assert torch.allclose(out.group_sum[g], p[group == g].sum(0), atol=1e-5)
        assert torch.allclose(out.group_bma, bma_vectors(p, group, 3), atol=1e-5)
        assert out.group_max.shape == (3, n_classes)
        print(f"ok   image stats on {device}: max, sum and BMA over {n_classes} classes match", flush=True)
        return True
    except Exception as exc:
        print(f"FAIL image stats: {type(exc).__name__}: {exc}", flush=True)
        return False


if __name__ == "__main__":
    sys.exit(main())
