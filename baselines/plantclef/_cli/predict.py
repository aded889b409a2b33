"""``predict``: quadrat images -> tile scores and a validated submission; ``merge-tiles`` joins its shards."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from agrieval.baselines.plantclef._cli.errors import InputProblem, guard
from agrieval.baselines.plantclef._cli.options import (
    aggregation_config,
    aggregation_options,
    apply_recipe,
    competition_definition,
    load_genus,
    tiling_options,
)
from agrieval.baselines.plantclef._jpeg import SUBSAMPLINGS
from agrieval.baselines.plantclef._shards import from_environment, merge_tile_scores, parse_shard
from agrieval.baselines.plantclef._tie_rules import parse_specs as parse_tie_specs
from agrieval.baselines.plantclef._weights import MissingInput, check_inputs
from agrieval.baselines.plantclef.geometry import parse_border, parse_level
from agrieval.baselines.plantclef.preprocess import JPEG_STAGES, PreprocessConfig
from agrieval.scoring.writing.policy import OutputPlan

# Imported inside functions, so that importing this module loads only what it needs: baselines.plantclef.model,
# baselines.plantclef.predict (they load asyncio, email, http); baselines.plantclef.full_probs,
# baselines.plantclef.image_stats (they load pyarrow, ssl).


def _shard(text):
    try:
        return parse_shard(text) if text is not None else from_environment()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--shard") from None


def _model_side():
    """The model presets and the predictor: the modules that import torch and timm (seconds), loaded only once the
    inputs are checked."""
    from agrieval.baselines.plantclef.model import PRESETS, parse_model_kwargs
    from agrieval.baselines.plantclef.predict import RunOptions, run_predict

    return PRESETS, parse_model_kwargs, RunOptions, run_predict


@click.command()
@click.argument("images", type=click.Path(exists=True, path_type=Path))
@click.option("--checkpoint", type=click.Path(path_type=Path), default=None,
              help="model_best.pth.tar or .safetensors of the organisers' pretrained ViT.")
@click.option("--class-mapping", type=click.Path(path_type=Path), default=None,
              help="class_mapping.txt (line index = output index) or species_ids.csv; required, it comes with "
                   "the checkpoint.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("submission.csv"), show_default=True, help='Submission CSV to write (validated before it is written).')
@click.option("--competition", default="plantclef2025", show_default=True,
              help="plantclef2025 (Kaggle format), plantclef2024 (HF format) or a definition .toml.")
@click.option("--preset", type=click.Choice(["plantclef2024", "tiny"]), default="plantclef2024", show_default=True,
              help="Model preset; --model/--img-size/--model-kwargs override its fields.")
@click.option("--model", "model_name", default=None, help="timm model name.")
@click.option("--img-size", type=click.IntRange(min=14), default=None, help="Model input size (px).")
@click.option("--model-kwargs", multiple=True, metavar="KEY=VALUE", help="Extra timm.create_model kwargs.")
@click.option("--random-init", is_flag=True, help="No checkpoint: random weights (plumbing checks only).")
@tiling_options
@click.option("--resize-filter", type=click.Choice(["lanczos", "bicubic", "bilinear"]), default="lanczos",
              show_default=True, help="Resampling filter of the tile resize (Pillow's).")
@click.option("--resize-backend", type=click.Choice(["pil", "wand"]), default="pil", show_default=True,
              help="What resizes the whole image for resized:N levels: PIL's Lanczos, or ImageMagick's through Wand "
                   "(the winner's; needs pip install wand and the system MagickWand library).")
@click.option("--jpeg-quality", type=click.IntRange(1, 100), default=None,
              help="Recompress in memory at this JPEG quality (see --jpeg-stage).")
@click.option("--subsampling", type=click.Choice(list(SUBSAMPLINGS)), default="4:2:2", show_default=True,
              help="Chroma subsampling of the recompression (4:1:1 needs simplejpeg).")
@click.option("--jpeg-stage", type=click.Choice(list(JPEG_STAGES)), default="tile", show_default=True,
              help="tile: each tile after its resize (the 2025 winner); image: the whole quadrat before tiling.")
@aggregation_options
@click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda, cuda:1...")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True, help="Tiles per forward.")
@click.option("--workers", type=click.IntRange(min=0), default=None, help="Decoding workers (default: auto).")
@click.option("--save-top-k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Scores kept per tile (union, vote and pairs can use at most these).")
@click.option("--save-ties", default=None, metavar="RULE:K[,RULE:K]",
              help="argsort:K and/or topk:K: each tile's top K as numpy argsort()[-K:] (DS@GT) or torch.topk(p, K) "
                   "(organisers, Chlorophyll Crew) pick it on the full vector, for --tie-rule argsort|topk.")
@click.option("--score-scale", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="Scores = softmax x this before the top-k (DS@GT: 100; it can merge probabilities 1 ulp apart).")
@click.option("--prior", type=click.Path(path_type=Path), default=None,
              help="Parquet image_name, prior_probabilities (DS@GT's cluster prior): multiplied into every tile's "
                   "scores, in float64, before the top-k.")
@click.option("--save-full-probs", "save_full", is_flag=True,
              help="Also write <tiles>.full.parquet: every class of every tile, dense (what --strategy zmerge reads).")
@click.option("--shard", default=None, metavar="I/N",
              help="Predict images I, I+N, ... only and write <tiles>.shard-I-of-N.parquet (SLURM arrays; torchrun "
                   "ranks get RANK/WORLD_SIZE); join them with merge-tiles.")
@click.option("--image-stats", type=click.Choice(["image", "level", "none"]), default="image", show_default=True,
              help="Per-image max/sum/BMA over every class, next to --save-tile-scores (exact max, mean, bma): per "
                   "image, per image and tiling level (needed by --scale-weights), or none.")
@click.option("--flip-tta", is_flag=True, help="Average with the horizontally flipped tile.")
@click.option("--no-amp", is_flag=True, help="Disable bf16 autocast on CUDA.")
@click.option("--no-channels-last", is_flag=True, help='Keep the NCHW memory layout (channels-last is faster on GPUs).')
@click.option("--compile", "compile_model", is_flag=True,
              help="torch.compile the model; every batch is padded to --batch-size so it compiles once.")
@click.option("--save-tile-scores", type=click.Path(path_type=Path), default=None,
              help="Parquet of per-tile top-k (and <name>.stats.parquet), for `aggregate` and `sweep`.")
@click.option("--resume", is_flag=True, help="Continue an interrupted run; skip images already predicted.")
@click.option("--skip-unreadable", is_flag=True, help="Leave out an image that cannot be decoded (a broken file, a decompression bomb) instead of stopping with images_invalid; the files are listed in the run's settings (tile scores' skipped_unreadable) and counted on stderr, and their quadrats get no species.")
@click.option("--overwrite", is_flag=True, help="Replace existing outputs.")
@click.option("--quiet", is_flag=True, help="No progress output.")
@click.pass_context
@guard
def predict(ctx, images, checkpoint, class_mapping, out, competition, preset, model_name, img_size, model_kwargs,
            random_init, device, batch_size, workers, image_stats, no_amp, no_channels_last, compile_model,
            save_tile_scores, resume, skip_unreadable, overwrite, quiet, **kw):
    """Predict the species of every quadrat image in IMAGES and write a validated submission."""

    # The two files come in one download: whichever is missing, the first message says where to get both,
    # before torch and timm are imported (seconds on a small machine).

    try:
        check_inputs(images, checkpoint, class_mapping, random_init=random_init)
    except MissingInput as exc:
        raise InputProblem(str(exc), exc.code) from None
    apply_recipe(ctx, kw)
    agg, genus_file = aggregation_config(ctx, kw)
    PRESETS, parse_model_kwargs, RunOptions, run_predict = _model_side()
    spec = PRESETS[preset]
    spec = replace(spec, name=model_name or spec.name, img_size=img_size or spec.img_size,
                   kwargs={**spec.kwargs, **parse_model_kwargs(model_kwargs)})
    border, percent = parse_border(kw["crop_border"])
    preprocess = PreprocessConfig(levels=tuple(parse_level(t) for t in kw["tiling"]), input_size=spec.img_size,
                                  resize_filter=kw["resize_filter"], jpeg_quality=kw["jpeg_quality"],
                                  resize_backend=kw["resize_backend"],
                                  subsampling=kw["subsampling"], jpeg_stage=kw["jpeg_stage"],
                                  tile_policy=kw["tile_policy"], border_mode=kw["border_mode"], border=border,
                                  border_percent=percent, centre_crop=kw["centre_crop"])
    try:
        save_ties = parse_tie_specs(kw["save_ties"])
        for rule, k in save_ties:
            if k > kw["save_top_k"]:
                raise ValueError(f"{rule}:{k} needs --save-top-k {k} or more (the rule's classes are stored on the "
                                 f"tile's saved rows; --save-top-k is {kw['save_top_k']})")
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--save-ties") from None
    opts = RunOptions(device=device, batch_size=batch_size, workers=workers, save_top_k=kw["save_top_k"],
                      save_ties=save_ties, score_scale=kw["score_scale"], prior=kw["prior"], shard=_shard(kw["shard"]),
                      save_full=kw["save_full"],
                      flip_tta=kw["flip_tta"], amp=not no_amp, channels_last=not no_channels_last,
                      compile=compile_model, progress=not quiet, image_stats=image_stats,
                      skip_unreadable=skip_unreadable)
    genus = load_genus(genus_file)  # read before the model runs: a bad file fails first
    result = run_predict(images, out, checkpoint=None if random_init else checkpoint, class_mapping=class_mapping,
                         spec=spec, preprocess=preprocess, agg=agg, definition=competition_definition(competition),
                         opts=opts,
                         save_tile_scores=save_tile_scores, resume=resume,
                         overwrite=overwrite, genus=genus)
    m = result.model_info
    backend = preprocess.describe().get("resize_backend")
    if backend:
        click.echo(f"whole-image resize (resized:N levels): {backend}")
    click.echo(f"model: {m['model']} @ {m['img_size']} px, {m['num_classes']} classes, weights: {m['weights']}"
               + (f" ({m['checkpoint']})" if m["checkpoint"] else ""))
    click.echo(f"predicted {result.n_images} quadrats ({result.n_resumed} resumed), {result.n_tiles} tiles, "
               f"{result.seconds:.1f} s; aggregation: {agg.label()}")
    for w in result.warnings:
        click.echo(f"warning: {w.render()}", err=True)
    for message in result.skipped:
        click.echo(f"skipped: {message}", err=True)
    if result.skipped:
        click.echo(f"warning: {len(result.skipped)} unreadable image(s) left out (--skip-unreadable); their quadrats "
                   "have no species; the list is in the run's settings (skipped_unreadable)", err=True)
    if result.tile_scores:
        click.echo(f"tile scores: {result.tile_scores}")
    if result.submission is None:
        click.echo("a shard: no submission; join the shards with merge-tiles, then aggregate")
        return
    click.echo(f"submission (validated): {result.submission}")



@click.command("merge-tiles")
@click.argument("shards", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Merged tile scores (.parquet).")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
@guard
def merge_tiles(shards, out, overwrite):
    """Join the tile-score files of every shard of predict --shard I/N (and their image stats) into the file
    one process would have written."""
    from agrieval.baselines.plantclef._full_probs import full_path
    from agrieval.baselines.plantclef._image_stats import stats_path

    plan = OutputPlan(overwrite=overwrite, inputs=list(shards))
    plan.claim(out, what="--out tile scores")
    plan.claim(stats_path(out), what="image stats")
    plan.claim(full_path(out), what="full probabilities")
    n_images, n_tiles = merge_tile_scores(list(shards), out, overwrite=overwrite)
    click.echo(f"merged {len(shards)} shards: {n_images} quadrats, {n_tiles} tiles -> {out}")
