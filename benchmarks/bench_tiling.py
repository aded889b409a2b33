"""Tiles per second of the PlantCLEF tiling predictor: model alone and end to end.

    python benchmarks/bench_tiling.py                 # CPU: tiny preset (56 px), synthetic quadrats
    python benchmarks/bench_tiling.py --device cuda   # GPU: plantclef2024 preset (ViT-B/14 @ 518 px, 7,806 classes)
    python benchmarks/bench_tiling.py --device cuda --compile   # the same with torch.compile
    python benchmarks/bench_tiling.py --jpeg-stages   # how far each recompression stage moves the model input

End to end = decode, JPEG 4:2:2 recompression (``--jpeg-stage``, per tile by default),
grid tiling, Lanczos resize, inference, top-k and image stats (``--no-image-stats``
to time without them), aggregation, validated submission. The reference in the same
run is the naive loop (one tile per forward pass, float32, full softmax copied
back to the host). Target on one H100/H200: >= 1,500 tiles/s end to end at 518 px
(2,105 quadrats x 16 tiles = 33,680 tiles in under a minute).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from scoring.cli.extras import exit_unless_installed

# Before the imports below: a missing extra is one line naming its pip install, not a traceback.
exit_unless_installed("python benchmarks/bench_tiling.py", "torch", "timm", "PIL")

import numpy as np  # noqa: E402
import torch  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--preset", default=None, help="default: tiny on CPU, plantclef2024 on CUDA")
    ap.add_argument("--images", type=int, default=None)
    ap.add_argument("--grid", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=None)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (the warm-up batch compiles it)")
    ap.add_argument("--naive-tiles", type=int, default=None, help="tiles timed for the naive reference")
    ap.add_argument("--repeats", type=int, default=5, help="model-alone passes before and after end to end (best)")
    ap.add_argument("--jpeg-stage", default="tile", choices=["tile", "image"])
    ap.add_argument("--no-image-stats", action="store_true")
    ap.add_argument("--jpeg-stages", action="store_true", help="only compare the recompression stages (CPU)")
    args = ap.parse_args()
    if args.jpeg_stages:
        jpeg_stage_report()
        return

    from baselines.plantclef.aggregate import AggregationConfig
    from baselines.plantclef.geometry import parse_level
    from baselines.plantclef.inference import TileScorer
    from baselines.plantclef.model import PRESETS, build_model, normalisation
    from baselines.plantclef.predict import RunOptions, run_predict
    from baselines.plantclef.preprocess import PreprocessConfig, load_rgb, quadrat_tiles
    from baselines.plantclef.synthetic import make_quadrats
    from scoring.authoring.definitions import load_competition

    from baselines.device import device_or_exit

    device = device_or_exit(args.device)  # a missing GPU: error [device_unavailable], exit 2
    cuda = device.type == "cuda"
    preset = args.preset or ("plantclef2024" if cuda else "tiny")
    n_images = args.images or (128 if cuda else 16)
    batch = args.batch_size or (256 if cuda else 64)
    naive_tiles = args.naive_tiles or (64 if cuda else 32)
    spec = PRESETS[preset]
    definition = load_competition("plantclef2025")
    species = np.asarray(sorted(definition.labels))
    n_classes = len(species) if preset == "plantclef2024" else 100
    species = species[:n_classes]
    torch.manual_seed(0)
    model, info = build_model(spec, n_classes, None)
    mean, std = normalisation(model)
    size = spec.img_size
    w, h = (2048, 1536) if cuda else (448, 336)
    print(f"device {device} ({torch.cuda.get_device_name(device) if cuda else f'{torch.get_num_threads()} threads'}), "
          f"{info['model']} {info['model_kwargs'] or ''} @ {size} px, {n_classes} classes, torch {torch.__version__}")

    with tempfile.TemporaryDirectory() as tmp:
        images = Path(tmp) / "images"
        ids = [f"BENCH-{i:04d}-20240601" for i in range(n_images)]
        make_quadrats(images, ids, 16, grid=args.grid, width=w, height=h)
        pre = PreprocessConfig(levels=(parse_level(f"grid:{args.grid}"),), input_size=size, jpeg_quality=95,
                               subsampling="4:2:2", jpeg_stage=args.jpeg_stage)

        # Model alone: uint8 tiles already in memory. It bounds the end-to-end rate from above, so it is the
        # best of several passes (taken before and after the end-to-end run): one pass on a shared machine can
        # land below the end-to-end rate by noise alone.
        scorer = TileScorer(model, device, 10, mean, std, batch_size=batch, compile=args.compile)
        tiles = torch.randint(0, 256, (batch * (4 if cuda else 2), size, size, 3), dtype=torch.uint8)
        scorer(tiles[:batch])  # warm-up (and compilation with --compile)

        def model_alone(repeats: int) -> float:
            best = float("inf")
            for _ in range(repeats):
                if cuda:
                    torch.cuda.synchronize()
                t = time.perf_counter()
                scorer(tiles)
                if cuda:
                    torch.cuda.synchronize()
                best = min(best, time.perf_counter() - t)
            return len(tiles) / best

        alone = model_alone(args.repeats)

        # Naive reference: one tile per forward pass, float32, full softmax to host.
        model_ref = model.to(device).float()
        first = quadrat_tiles(load_rgb(images / f"{ids[0]}.jpg"), pre)[0]
        m = torch.tensor(mean, device=device).view(1, 3, 1, 1)
        s = torch.tensor(std, device=device).view(1, 3, 1, 1)
        t = time.perf_counter()
        with torch.inference_mode():
            for i in range(naive_tiles):
                x = torch.from_numpy(first[i % len(first)]).to(device).permute(2, 0, 1)[None].float() / 255
                model_ref((x - m) / s).softmax(-1).cpu().numpy()
        dt_naive = time.perf_counter() - t
        print(f"naive reference (1 tile per forward, fp32, full softmax to host): {naive_tiles / dt_naive:,.0f} tiles/s")

        # End to end through predict (decoding in loader workers on CUDA).
        t = time.perf_counter()
        res = run_predict(images, Path(tmp) / "submission.csv", checkpoint=None, class_mapping=None, species=species,
                          spec=spec, preprocess=pre, agg=AggregationConfig(strategy="union", top_k=1),
                          definition=definition, opts=RunOptions(device=str(device), batch_size=batch,
                                                                 workers=args.workers, progress=False,
                                                                 compile=args.compile,
                                                                 image_stats="none" if args.no_image_stats
                                                                 else "image"),
                          model=model)
        dt = time.perf_counter() - t
        rate = res.n_tiles / dt
        alone = max(alone, model_alone(args.repeats))
        print(f"model alone (batched {batch}, top-k on device{', bf16, channels_last' if cuda else ''}"
              f"{', torch.compile' if args.compile else ''}; best of {2 * args.repeats} passes of {len(tiles)} "
              f"tiles, before and after end to end): {alone:,.0f} tiles/s")
        if alone < rate:  # cannot be: the end-to-end run does the model's work and more
            print(f"warning: model alone measured below end to end ({alone:,.0f} < {rate:,.0f} tiles/s): the "
                  "machine was busy; rerun with more --repeats")
        stats = "no image stats" if args.no_image_stats else "image stats"
        print(f"end to end ({n_images} quadrats {w}x{h}, grid:{args.grid}, 4:2:2 recompression per {args.jpeg_stage}, "
              f"Lanczos, {stats}, aggregation, validated CSV): {rate:,.0f} tiles/s, "
              f"{rate / (naive_tiles / dt_naive):.1f}x the naive "
              f"model-only loop")
        if cuda:
            print(f"projected 2,105 quadrats x 16 tiles: {33_680 / rate:.0f} s (target < 60 s, >= 1,500 tiles/s)")


def jpeg_stage_report(quality: int = 85, subsampling: str = "4:2:2") -> None:
    """Mean absolute pixel difference between the 518 px tiles of three pipelines on synthetic 3:2 field quadrats
    (square:3 tiles): none (no recompression), image (the quadrat recompressed before tiling) and tile (each tile
    recompressed after its resize, the winner's)."""
    from baselines.plantclef.geometry import parse_level
    from baselines.plantclef.preprocess import PreprocessConfig, quadrat_tiles
    from baselines.plantclef.synthetic import field_quadrat

    def tiles(image, **kw):
        cfg = PreprocessConfig(levels=(parse_level("square:3"),), input_size=518, **kw)
        return quadrat_tiles(image, cfg)[0].astype(np.int16)

    diffs = {"image vs none": [], "tile vs none": [], "image vs tile": []}
    for seed in range(3):
        image = field_quadrat(1536, 1024, seed=seed)
        none = tiles(image)
        per_image = tiles(image, jpeg_quality=quality, subsampling=subsampling, jpeg_stage="image")
        per_tile = tiles(image, jpeg_quality=quality, subsampling=subsampling, jpeg_stage="tile")
        diffs["image vs none"].append(np.abs(per_image - none).mean())
        diffs["tile vs none"].append(np.abs(per_tile - none).mean())
        diffs["image vs tile"].append(np.abs(per_image - per_tile).mean())
    print(f"JPEG {subsampling} q{quality}, square:3 -> 518 px tiles of 3 synthetic 1536x1024 quadrats, "
          "mean |difference| in 8-bit levels:")
    for name, values in diffs.items():
        print(f"  {name:<14} {np.mean(values):.3f}")


if __name__ == "__main__":
    main()
