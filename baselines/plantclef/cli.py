"""``agrieval baselines plantclef``: predict, aggregate, sweep, recipes, tiles, demo.

Exit codes: 0 done; 1 the validator rejected the submission we built (report
it: it is a bug or a class mapping outside the vocabulary); 2 a usage or input
problem (missing checkpoint, bad option, unreadable image...); 3 a host-side
problem (bad competition definition or solution).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from scoring.cli.errors import CommandError, error_line, report
from scoring.cli.group import ContractGroup, document

from baselines.plantclef.aggregate import STRATEGIES, TIE_RULES, TILE_TRANSFORMS, AggregationConfig
from baselines.plantclef.geometry import BORDERS
from baselines.plantclef.jpeg import SUBSAMPLINGS
from baselines.plantclef.pooling import MODES as POOL_MODES
from baselines.plantclef.pooling import ORDERS as POOL_ORDERS
from baselines.plantclef.preprocess import JPEG_STAGES, TILE_POLICIES
from baselines.plantclef.recipes import RECIPES, get_recipe
from baselines.plantclef.tie_rules import parse_specs as parse_tie_specs
from baselines.plantclef.transects import RULES


class InputProblem(click.ClickException):
    """A usage or input problem of this command: ``error [code] message``, exit 2."""

    exit_code = 2

    def __init__(self, message: str, code: str = "bad_input"):
        super().__init__(message)
        self.code = code


# Known error class -> the stable code of its one line.
_CODES = {"CheckpointError": "checkpoint_invalid", "MappingError": "class_mapping_invalid",
          "ImageListError": "images_invalid", "PriorError": "prior_invalid", "TileScoresError": "tile_scores_invalid", "StatsError": "stats_invalid",
          "ResumeError": "resume_mismatch", "FileExistsError": "output_exists", "DeviceError": "device_unavailable",
          "ValueError": "bad_option"}


def _guard(fn):
    """Known errors -> one clean line and the documented exit code, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from baselines.device import DeviceError
        from baselines.plantclef.classes import MappingError
        from baselines.plantclef.loader import ImageListError
        from baselines.plantclef.model import CheckpointError
        from baselines.plantclef.predict import ResumeError
        from baselines.plantclef.submission import SubmissionFailsValidation
        from baselines.plantclef.image_stats import StatsError
        from baselines.plantclef.tile_scores import TileScoresError
        from scoring.writing.policy import OutputRefused
        from scoring.runtime.problems import HostError

        try:
            return fn(*args, **kwargs)
        except SubmissionFailsValidation as exc:
            click.echo(error_line("submission_rejected", str(exc)), err=True)
            sys.exit(1)
        except (HostError, OutputRefused, CommandError) as exc:
            sys.exit(report(exc, "agrieval baselines plantclef"))
        except (CheckpointError, MappingError, ImageListError, TileScoresError, StatsError, ResumeError,
                FileExistsError, DeviceError, ValueError) as exc:
            raise InputProblem(str(exc), _CODES.get(type(exc).__name__, "bad_input")) from None

    return wrapper


def _shard(text):
    from baselines.plantclef.shards import from_environment, parse_shard

    try:
        return parse_shard(text) if text is not None else from_environment()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--shard") from None


def _genus(path):
    from baselines.plantclef.genus import load_genus

    return load_genus(path) if path is not None else None


def _definition(name: str):
    from scoring.cli.competition_option import load_definition as competition

    return competition(name)


def _weights(text: str | None) -> tuple[float, ...] | None:
    if text is None or text.strip().lower() in ("", "none"):
        return None
    try:
        return tuple(float(t) for t in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma list of numbers, e.g. 1,1,0.5") from None


def aggregation_options(fn):
    opts = [
        click.option("--recipe", type=click.Choice(sorted(RECIPES)), default=None,
                     help="A team's published configuration (see `recipes`); explicit flags override it."),
        click.option("--strategy", type=click.Choice(list(STRATEGIES)), default="union", show_default=True,
                     help="union: per-tile top-k above --threshold; max: max over tiles >= --threshold; "
                          "mean: mean over tiles, top --top-k; vote: in the top-k of >= --min-votes tiles; "
                          "pairs: DS@GT's first --top-k (tile, species) pairs; bma: Bayesian model averaging, "
                          "z-score > --z-threshold; multiscale: max over levels of --scale-weights x level max."),
        click.option("--top-k", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Per-tile k (union, vote), per-image k (mean) or number of pairs (pairs)."),
        click.option("--threshold", type=float, default=0.0, show_default=True,
                     help="Probability threshold (union, max, multiscale); a z-score with --tile-transform zscore."),
        click.option("--min-votes", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Tiles a species must be voted by (vote)."),
        click.option("--max-species", type=click.IntRange(min=1), default=None, help="Cap on species per quadrat."),
        click.option("--min-score", type=float, default=None,
                     help="Drop species whose best tile probability is below this."),
        click.option("--min-species", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Top up to this many species from the best tiles (0: empty lists are written)."),
        click.option("--tie-rule", type=click.Choice(list(TIE_RULES)), default="score", show_default=True,
                     help="score: ties by best probability then species id; first-seen: by first appearance in "
                          "tile order (Counter.most_common); argsort / topk: each tile's top-k as numpy "
                          "argsort()[-k:] / torch.topk(p, k) pick it (predict --save-ties), first-seen order."),
        click.option("--strict/--inclusive", "strict", default=False, show_default=True,
                     help="Thresholds and --min-score pass on > (the organisers', the winner's) or >=."),
        click.option("--z-threshold", type=float, default=0.0, show_default=True, help="bma: z-score to beat."),
        click.option("--scale-weights", default=None,
                     help="multiscale/max: one weight per tiling level, e.g. 1,1,0.5."),
        click.option("--target-mean", type=click.FloatRange(min=0, min_open=True), default=None,
                     help="Bisect the threshold so the mean number of species per quadrat is this (calc_seuil)."),
        click.option("--tile-transform", type=click.Choice(list(TILE_TRANSFORMS)), default="none", show_default=True,
                     help="zscore: per-tile z-scores over the classes before aggregating."),
        click.option("--transect-mode", type=click.Choice(["none", *POOL_MODES]), default="none",
                     show_default=True, help="Share predictions across the images of one transect (pooling)."),
        click.option("--transect-rule", type=click.Choice(list(RULES)), default=None,
                     help="Id -> transect rule (default: the competition's); none is official."),
        click.option("--pool-k", type=click.IntRange(min=1), default=10, show_default=True,
                     help="count-topk: species per transect."),
        click.option("--pool-min-images", type=click.IntRange(min=1), default=2, show_default=True,
                     help="min-images: images of the transect that must predict a species."),
        click.option("--one-per-genus", "genus_file", type=click.Path(path_type=Path), default=None,
                     help="CSV species_id,genus: keep the best species of each genus (Chlorophyll Crew's filter_genus)."),
        click.option("--image-order", type=click.Choice(list(POOL_ORDERS)), default="id", show_default=True,
                     help="Order of a transect's images for first-seen ties: by id, or by file name with .jpg "
                          "(DS@GT's orderBy(image_name))."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _apply_recipe(ctx: click.Context, kw: dict) -> None:
    """Recipe values for every option left at its default (explicit flags win)."""
    name = kw.pop("recipe", None)
    if name is None:
        return
    from click.core import ParameterSource

    for key, value in get_recipe(name).values.items():
        if key in kw and ctx.get_parameter_source(key) in (ParameterSource.DEFAULT, None):
            if key == "scale_weights" and value is not None:
                value = ",".join(f"{w:g}" for w in value)
            kw[key] = tuple(value) if isinstance(value, list) else value


def _agg_config(kw: dict) -> AggregationConfig:
    return AggregationConfig(strategy=kw.pop("strategy"), top_k=kw.pop("top_k"), threshold=kw.pop("threshold"),
                             min_votes=kw.pop("min_votes"), max_species=kw.pop("max_species"),
                             min_score=kw.pop("min_score"), min_species=kw.pop("min_species"),
                             group_mode=None if (m := kw.pop("transect_mode")) == "none" else m,
                             pool_k=kw.pop("pool_k"), pool_min_images=kw.pop("pool_min_images"),
                             tie_rule=kw.pop("tie_rule"), z_threshold=kw.pop("z_threshold"),
                             scale_weights=_weights(kw.pop("scale_weights")), target_mean=kw.pop("target_mean"),
                             tile_transform=kw.pop("tile_transform"), strict=kw.pop("strict"),
                             image_order=kw.pop("image_order"), one_per_genus=kw.get("genus_file") is not None)


@click.group(cls=ContractGroup)
def plantclef() -> None:
    """DINOv2 tiling predictor for PlantCLEF quadrats: images -> validated submission."""


def tiling_options(fn):
    opts = [
        click.option("--tiling", multiple=True, default=("grid:4",), show_default=True,
                     help="grid:N, grid:COLSxROWS, window:SIZE[:STRIDE], cover:SIZE, square:N, floor:N or full; "
                          "repeat for several scales."),
        click.option("--tile-policy", type=click.Choice(list(TILE_POLICIES)), default="crop", show_default=True,
                     help="A tile that is not square: crop its centred square (timm eval transform), pad it "
                          "(letterbox on black) or stretch it to the square input."),
        click.option("--border", "border_mode", type=click.Choice(list(BORDERS)), default="snap",
                     show_default=True, help="Windows at the edge: snap inside the image, pad with zeros past the far edge, or centre the "
                          "zero padding (kornia's compute_padding)."),
        click.option("--crop-border", default="0", show_default=True, help="Border removed from each side: px or N%."),
        click.option("--centre-crop", type=click.FloatRange(0, 1, max_open=True), default=0.0, show_default=True,
                     help="Keep the centred int(w x (1-P)) x int(h x (1-P)) (Chlorophyll Crew's crop_side_percent, "
                          "torchvision CenterCrop)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


@plantclef.command()
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
@click.option("--overwrite", is_flag=True, help="Replace existing outputs.")
@click.option("--quiet", is_flag=True, help="No progress output.")
@click.pass_context
@_guard
def predict(ctx, images, checkpoint, class_mapping, out, competition, preset, model_name, img_size, model_kwargs,
            random_init, device, batch_size, workers, image_stats, no_amp, no_channels_last, compile_model,
            save_tile_scores, resume, overwrite, quiet, **kw):
    """Predict the species of every quadrat image in IMAGES and write a validated submission."""
    from dataclasses import replace

    from baselines.plantclef.geometry import parse_border, parse_level
    from baselines.plantclef.model import PRESETS, parse_model_kwargs
    from baselines.plantclef.predict import RunOptions, run_predict
    from baselines.plantclef.preprocess import PreprocessConfig

    _apply_recipe(ctx, kw)
    transect_rule = kw.pop("transect_rule")
    agg = _agg_config(kw)
    # The two files come in one download: whichever is missing, the first message says where to get both.
    from baselines.plantclef.classes import DOWNLOAD_HINT

    if checkpoint is None and not random_init:
        raise InputProblem(f"--checkpoint is required: {DOWNLOAD_HINT}", "checkpoint_missing")
    if class_mapping is None:
        raise InputProblem(f"--class-mapping is required: {DOWNLOAD_HINT}", "class_mapping_missing")
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
                      compile=compile_model, progress=not quiet, image_stats=image_stats)
    genus = _genus(kw.get("genus_file"))  # read before the model runs: a bad file fails first
    result = run_predict(images, out, checkpoint=None if random_init else checkpoint, class_mapping=class_mapping,
                         spec=spec, preprocess=preprocess, agg=agg, definition=_definition(competition), opts=opts,
                         save_tile_scores=save_tile_scores, transect_rule=transect_rule, resume=resume,
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
    if result.tile_scores:
        click.echo(f"tile scores: {result.tile_scores}")
    if result.submission is None:
        click.echo("a shard: no submission; join the shards with merge-tiles, then aggregate")
        return
    click.echo(f"submission (validated): {result.submission}")


@plantclef.command("merge-tiles")
@click.argument("shards", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Merged tile scores (.parquet).")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
@_guard
def merge_tiles(shards, out, overwrite):
    """Join the tile-score files of every shard of predict --shard I/N (and their image stats) into the file
    one process would have written."""
    from baselines.plantclef.image_stats import stats_path
    from baselines.plantclef.full_probs import full_path
    from baselines.plantclef.shards import merge_tile_scores
    from scoring.writing.policy import OutputPlan

    plan = OutputPlan(overwrite=overwrite, inputs=list(shards))
    plan.claim(out, what="--out tile scores")
    plan.claim(stats_path(out), what="image stats")
    plan.claim(full_path(out), what="full probabilities")
    n_images, n_tiles = merge_tile_scores(list(shards), out, overwrite=overwrite)
    click.echo(f"merged {len(shards)} shards: {n_images} quadrats, {n_tiles} tiles -> {out}")


@plantclef.command("aggregate")
@click.argument("tile_scores", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("submission.csv"), show_default=True, help='Submission CSV to write (validated before it is written).')
@click.option("--competition", default="plantclef2025", show_default=True, help='Competition whose format and vocabulary the submission must pass.')
@aggregation_options
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
@click.pass_context
@_guard
def aggregate_cmd(ctx, tile_scores, out, competition, overwrite, **kw):
    """Re-run only the aggregation from saved TILE_SCORES (no model, no GPU). Several files: the ensemble
    (mean of the models' probabilities over the same tiles)."""
    from baselines.plantclef.predict import predictions
    from baselines.plantclef.submission import write_validated
    from baselines.plantclef.tile_scores import load_scores

    from scoring.writing.policy import OutputPlan

    OutputPlan(overwrite=overwrite, inputs=list(tile_scores)).claim(out, what="--out submission")
    _apply_recipe(ctx, kw)
    transect_rule = kw.pop("transect_rule")
    agg = _agg_config(kw)
    definition = _definition(competition)
    members = dense = None
    if agg.strategy == "zmerge":  # the notebook's float32 ensemble of every class, not the kit's ensemble
        from baselines.plantclef.full_probs import full_path, read_full
        from baselines.plantclef.tile_scores import read_tile_scores

        read = [read_tile_scores(p) for p in tile_scores]
        members, n_classes, stats = [f for f, _ in read], read[0][1].get("n_classes"), None
        frame = members[0]
        if all(full_path(p).is_file() for p in tile_scores):
            dense = [read_full(full_path(p), expect_meta=m) for p, (_, m) in zip(tile_scores, read)]
    else:
        frame, stats, n_classes = load_scores(list(tile_scores), agg.tile_transform)
    ids = sorted(set(frame["image_id"]))
    labels = predictions(frame, ids, agg, definition, transect_rule, stats=stats, n_classes=n_classes,
                         members=members, genus=_genus(kw.pop("genus_file")), dense=dense)
    warnings = write_validated(out, ids, labels, definition, overwrite=overwrite)
    for w in warnings:
        click.echo(f"warning: {w.render()}", err=True)
    source = f"the ensemble of {len(tile_scores)} files" if len(tile_scores) > 1 else "1 file"
    click.echo(f"aggregated {len(ids)} quadrats from {source} ({agg.label()}); submission (validated): {out}")


def _split(text: str, cast):
    out = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        if item.lower() == "none":
            out.append(None)
            continue
        try:
            out.append(cast(item))
        except ValueError:
            raise click.BadParameter(f"{item!r} is not a {cast.__name__}") from None
    if not out:
        raise click.BadParameter("empty list")
    return tuple(out)


def _choices(text: str, allowed, what: str, hint: str) -> tuple:
    items = _split(text, str)
    bad = [s for s in items if s is not None and s not in allowed]
    if bad:
        raise click.BadParameter(f"unknown {what} {bad[0]!r}; choose from {', '.join(allowed)}", param_hint=hint)
    return items


@plantclef.command()
@click.argument("tile_scores", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--solution", type=click.Path(path_type=Path), required=True,
              help="Labelled validation set (or pseudo-solution) in the competition's solution format.")
@click.option("--competition", default="plantclef2025", show_default=True, help='Competition of --solution (format, vocabulary, grouping).')
@click.option("--strategies", default="union,max,mean,vote", show_default=True,
              help=f"Any of {', '.join(STRATEGIES)}.")
@click.option("--top-k", "top_ks", default="1,3,5", show_default=True, help='Comma-separated top-k values to try.')
@click.option("--thresholds", default="0.05,0.1,0.2", show_default=True, help='Comma-separated probability thresholds to try.')
@click.option("--min-votes", "min_votes", default="1,2", show_default=True, help='Comma-separated minimum tile votes to try.')
@click.option("--z-thresholds", default="2", show_default=True, help="bma")
@click.option("--scale-weights", "scale_weights", default="none", show_default=True,
              help="multiscale: weight lists separated by ';', e.g. 'none;1,1,0.5'")
@click.option("--max-species", "max_species", default="none", show_default=True, help="e.g. none,10,20")
@click.option("--transect-modes", default="none", show_default=True, help=f"none or any of {', '.join(POOL_MODES)}")
@click.option("--transect-rule", type=click.Choice(list(RULES)), default=None, help="Transect rule for transect F1 (default: the competition's).")
@click.option("--pool-k", type=click.IntRange(min=1), default=10, show_default=True, help='Pooling: species kept per image before pooling across a transect.')
@click.option("--pool-min-images", type=click.IntRange(min=1), default=2, show_default=True, help='Pooling: a species needs this many images of the transect.')
@click.option("--tie-rules", default="score", show_default=True, help="score,first-seen")
@click.option("--target-means", default="none", show_default=True, help="e.g. none,4.2,10")
@click.option("--tile-transforms", default="none", show_default=True, help="none,zscore")
@click.option("--min-species", type=click.IntRange(min=0), default=0, show_default=True, help='Species every quadrat keeps at least (top ones), 0 for none.')
@click.option("--out-csv", type=click.Path(path_type=Path), default=None, help="Also write the table as CSV.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out-csv.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON records.")
@_guard
def sweep(tile_scores, solution, competition, strategies, top_ks, thresholds, min_votes, z_thresholds, scale_weights,
          max_species, transect_modes, transect_rule, pool_k, pool_min_images, tie_rules, target_means,
          tile_transforms, min_species, out_csv, overwrite, as_json):
    """Score aggregation settings of TILE_SCORES (several files: their ensemble) against --solution; print them
    best first. Settings the saved scores cannot give exactly are listed with the reason."""
    from baselines.plantclef.progress import Progress
    from baselines.plantclef.sweep import OVERFIT_WARNING, SweepGrid, render_table, run_sweep
    from baselines.plantclef.tile_scores import load_scores
    from scoring.text.tables import csv_text, json_number
    from scoring.writing.policy import OutputPlan
    from scoring.runtime.atomic import write_text

    if out_csv:
        OutputPlan(overwrite=overwrite, inputs=[*tile_scores, solution]).claim(out_csv, what="--out-csv")

    modes = tuple(None if m is None or m == "none" else m
                  for m in _choices(transect_modes, ("none", *POOL_MODES), "transect mode", "--transect-modes"))
    transforms = tuple("none" if t is None else t
                       for t in _choices(tile_transforms, TILE_TRANSFORMS, "tile transform", "--tile-transforms"))
    grid = SweepGrid(strategies=_choices(strategies, tuple(STRATEGIES), "strategy", "--strategies"),
                     top_k=_split(top_ks, int), thresholds=_split(thresholds, float), min_votes=_split(min_votes, int),
                     z_thresholds=_split(z_thresholds, float),
                     scale_weights=tuple(_weights(w) for w in scale_weights.split(";")),
                     max_species=_split(max_species, int), group_modes=modes, pool_k=pool_k,
                     pool_min_images=pool_min_images,
                     tie_rules=_choices(tie_rules, TIE_RULES, "tie rule", "--tie-rules"),
                     target_means=_split(target_means, float), tile_transforms=transforms, min_species=min_species)
    if len(set(transforms)) > 1 and len(tile_scores) > 1:
        raise click.BadParameter("an ensemble is z-scored file by file: sweep one --tile-transforms value at a time",
                                 param_hint="--tile-transforms")
    definition = _definition(competition)
    frame, stats, n_classes = load_scores(list(tile_scores), transforms[0])
    settings = grid.settings()
    bar = Progress(len(settings), "sweep", unit="setting", enabled=not as_json)
    table = run_sweep(frame, solution, definition, settings, transect_rule, progress=bar, stats=stats,
                      n_classes=n_classes)
    bar.close()
    if out_csv:
        write_text(out_csv, csv_text(list(table.columns), table.itertuples(index=False)))
    if as_json:
        records = [{k: (json_number(v) if isinstance(v, float) else v) for k, v in r.items()}
                   for r in table.to_dict("records")]
        click.echo(json.dumps({"warning": OVERFIT_WARNING, "primary_metric": definition.primary_metric,
                               "settings": records}, indent=1))
        return
    click.echo(f"{len(table)} settings scored on {solution} ({definition.primary_metric}, public split), best first:")
    click.echo(render_table(table, definition.primary_metric), nl=False)
    click.echo(OVERFIT_WARNING)


@plantclef.command()
@click.option("--markdown", is_flag=True, help="The README's table.")
def recipes(markdown):
    """List the named recipes (--recipe NAME) with their option values and sources."""
    from baselines.plantclef.recipes import recipe_table

    click.echo(recipe_table(markdown), nl=False)


@plantclef.command()
@click.argument("image", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@tiling_options
@click.option("--recipe", type=click.Choice(sorted(RECIPES)), default=None, help="Take the recipe's tiling.")
@click.option("--input-size", type=click.IntRange(min=1), default=518, show_default=True,
              help="Model input, for the tile count and scale note.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("tiles.png"), show_default=True, help='Drawing to write (PNG, or JPEG for .jpg).')
@click.option("--max-side", type=click.IntRange(min=64), default=1200, show_default=True,
              help="Longest side of the drawing (the image is scaled down to it).")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
@click.pass_context
@_guard
def tiles(ctx, image, out, input_size, max_side, overwrite, **kw):
    """Draw the tiles of IMAGE (boxes, the part the model sees, padding) into --out (PNG, or JPEG for .jpg)."""
    from baselines.plantclef.draw import draw_tiles
    from baselines.plantclef.geometry import parse_border, parse_level
    from baselines.plantclef.preprocess import PreprocessConfig, load_rgb

    _apply_recipe(ctx, kw)
    border, percent = parse_border(kw["crop_border"])
    cfg = PreprocessConfig(levels=tuple(parse_level(t) for t in kw["tiling"]), input_size=input_size,
                           tile_policy=kw["tile_policy"], border_mode=kw["border_mode"], border=border,
                           border_percent=percent, centre_crop=kw["centre_crop"])
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} already exists; pass --overwrite to replace it")
    try:
        picture = load_rgb(image)
    except (OSError, ValueError) as exc:
        raise InputProblem(f"{image}: cannot be decoded as an image ({exc})") from None
    summary = draw_tiles(picture, cfg, out, max_side=max_side)
    click.echo(summary)
    click.echo(f"drawing: {out}")


@plantclef.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("plantclef-demo"), show_default=True, help='Folder for the synthetic images, checkpoint, submission and scores.')
@click.option("--competition", default="plantclef2025", show_default=True, help='Competition the demo submission is validated and scored for.')
@click.option("--quiet", is_flag=True, help='No progress output.')
@_guard
def demo(out, competition, quiet):
    """Synthetic quadrats + tiny random-init checkpoint -> predict -> validate -> score, on the CPU."""
    from baselines.plantclef.demo import run_demo

    res = run_demo(out, _definition(competition), progress=not quiet)
    r = res.result
    click.echo(f"predicted {r.n_images} synthetic quadrats ({r.n_tiles} tiles) in {r.seconds:.1f} s with a "
               f"random-init {r.model_info['model']} ({r.model_info['weights']} of {res.files['checkpoint'].name})")
    click.echo(f"submission validated; {res.primary_metric} against the planted species: {res.score:.4f} "
               "(random weights: near chance is expected)")
    for name, path in res.files.items():
        click.echo(f"  {name:<14} {path}")
    click.echo("same run from the command line:")
    click.echo(f"  {res.command}")
    click.echo(f"score it:  agrieval score {res.files['submission']} --solution {res.files['solution']} "
               f"--competition {competition}")


document(plantclef, {name: (example, "Exit codes: 0 done; 1 the submission built was rejected by the validator (report it); 2 usage or input problem (bad option, missing file or checkpoint, unreadable image, a device that is not there); 3 host-side problem (bad definition or solution, missing 'baselines' extra).") for name, example in {
    "": "agrieval baselines plantclef demo --out plantclef-demo --quiet",
    "predict": "agrieval baselines plantclef predict test_images/ --checkpoint model.pth.tar --class-mapping class_mapping.txt --out submission.csv",
    "aggregate": "agrieval baselines plantclef aggregate plantclef-demo/tile_scores.parquet --recipe dsgt-2025-vote --out vote.csv",
    "sweep": "agrieval baselines plantclef sweep plantclef-demo/tile_scores.parquet --solution plantclef-demo/solution.csv",
    "merge-tiles": "agrieval baselines plantclef merge-tiles shard0/tile_scores.parquet shard1/tile_scores.parquet --out tile_scores.parquet",
    "recipes": "agrieval baselines plantclef recipes --markdown",
    "tiles": "agrieval baselines plantclef tiles quadrat.jpg --tiling grid:4 --out tiles.jpg",
    "demo": "agrieval baselines plantclef demo --out plantclef-demo --quiet",
}.items()})
