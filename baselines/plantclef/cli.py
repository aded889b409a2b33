"""``agrieval baselines plantclef``: predict, aggregate, sweep, demo.

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

from baselines.plantclef.aggregate import STRATEGIES, AggregationConfig
from baselines.plantclef.transects import RULES


class InputProblem(click.ClickException):
    exit_code = 2


def _guard(fn):
    """Known errors -> one clean line and the documented exit code, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from baselines.plantclef.classes import MappingError
        from baselines.plantclef.loader import ImageListError
        from baselines.plantclef.model import CheckpointError
        from baselines.plantclef.predict import ResumeError
        from baselines.plantclef.submission import SubmissionRejected
        from baselines.plantclef.tile_scores import TileScoresError
        from scoring.output_policy import OutputRefused
        from scoring.runtime.problems import HostError

        try:
            return fn(*args, **kwargs)
        except SubmissionRejected as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)
        except HostError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(3)
        except (CheckpointError, MappingError, ImageListError, TileScoresError, ResumeError, FileExistsError,
                OutputRefused, ValueError) as exc:
            raise InputProblem(str(exc)) from None

    return wrapper


def _definition(name: str):
    from scoring.authoring.definitions import load_competition

    return load_competition(name)


def aggregation_options(fn):
    opts = [
        click.option("--strategy", type=click.Choice(sorted(STRATEGIES)), default="union", show_default=True,
                     help="union: per-tile top-k above --threshold; max: max over tiles >= --threshold; "
                          "mean: mean over tiles, top --top-k; vote: species in the top-k of >= --min-votes tiles."),
        click.option("--top-k", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Per-tile k (union, vote) or per-image k (mean)."),
        click.option("--threshold", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                     help="Probability threshold (union, max)."),
        click.option("--min-votes", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Tiles a species must be voted by (vote)."),
        click.option("--max-species", type=click.IntRange(min=1), default=None, help="Cap on species per quadrat."),
        click.option("--min-score", type=click.FloatRange(0, 1), default=None,
                     help="Drop species whose best tile probability is below this."),
        click.option("--min-species", type=click.IntRange(min=0), default=1, show_default=True,
                     help="Top up to this many species from the best tiles (0 allows empty predictions)."),
        click.option("--transect-mode", type=click.Choice(["none", "union", "mean"]), default="none",
                     show_default=True, help="Share predictions across the images of one transect."),
        click.option("--transect-rule", type=click.Choice(list(RULES)), default=None,
                     help="Id -> transect rule (default: the competition's); none is official."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _agg_config(kw: dict) -> AggregationConfig:
    return AggregationConfig(strategy=kw.pop("strategy"), top_k=kw.pop("top_k"), threshold=kw.pop("threshold"),
                             min_votes=kw.pop("min_votes"), max_species=kw.pop("max_species"),
                             min_score=kw.pop("min_score"), min_species=kw.pop("min_species"),
                             group_mode=None if (m := kw.pop("transect_mode")) == "none" else m)


@click.group()
def plantclef() -> None:
    """DINOv2 tiling predictor for PlantCLEF quadrats: images -> validated submission."""


@plantclef.command()
@click.argument("images", type=click.Path(path_type=Path))
@click.option("--checkpoint", type=click.Path(path_type=Path), default=None,
              help="model_best.pth.tar or .safetensors of the organisers' pretrained ViT.")
@click.option("--class-mapping", type=click.Path(path_type=Path), required=True,
              help="class_mapping.txt (line index = output index) or species_ids.csv.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("submission.csv"), show_default=True)
@click.option("--competition", default="plantclef2025", show_default=True,
              help="plantclef2025 (Kaggle format), plantclef2024 (HF format) or a definition .toml.")
@click.option("--preset", type=click.Choice(["plantclef2024", "tiny"]), default="plantclef2024", show_default=True,
              help="Model preset; --model/--img-size/--model-kwargs override its fields.")
@click.option("--model", "model_name", default=None, help="timm model name.")
@click.option("--img-size", type=click.IntRange(min=14), default=None, help="Model input size (px).")
@click.option("--model-kwargs", multiple=True, metavar="KEY=VALUE", help="Extra timm.create_model kwargs.")
@click.option("--random-init", is_flag=True, help="No checkpoint: random weights (plumbing checks only).")
@click.option("--tiling", multiple=True, default=("grid:4",), show_default=True,
              help="grid:N, window:SIZE[:STRIDE] or full; repeat for several scales.")
@click.option("--resize-filter", type=click.Choice(["lanczos", "bicubic", "bilinear"]), default="lanczos",
              show_default=True)
@click.option("--jpeg-quality", type=click.IntRange(1, 100), default=None,
              help="Recompress each quadrat in memory at this JPEG quality first.")
@click.option("--subsampling", type=click.Choice(["4:4:4", "4:2:2", "4:2:0"]), default="4:2:2", show_default=True,
              help="Chroma subsampling of the recompression.")
@click.option("--crop-border", default="0", show_default=True, help="Border removed from each side: px or N%.")
@aggregation_options
@click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda, cuda:1...")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True, help="Tiles per forward.")
@click.option("--workers", type=click.IntRange(min=0), default=None, help="Decoding workers (default: auto).")
@click.option("--save-top-k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Scores kept per tile (aggregation can use at most these).")
@click.option("--flip-tta", is_flag=True, help="Average with the horizontally flipped tile.")
@click.option("--no-amp", is_flag=True, help="Disable bf16 autocast on CUDA.")
@click.option("--no-channels-last", is_flag=True)
@click.option("--compile", "compile_model", is_flag=True,
              help="torch.compile the model; every batch is padded to --batch-size so it compiles once.")
@click.option("--save-tile-scores", type=click.Path(path_type=Path), default=None,
              help="Parquet of per-tile top-k, for `aggregate` and `sweep`.")
@click.option("--resume", is_flag=True, help="Continue an interrupted run; skip images already predicted.")
@click.option("--overwrite", is_flag=True, help="Replace existing outputs.")
@click.option("--quiet", is_flag=True, help="No progress output.")
@_guard
def predict(images, checkpoint, class_mapping, out, competition, preset, model_name, img_size, model_kwargs,
            random_init, tiling, resize_filter, jpeg_quality, subsampling, crop_border, device, batch_size, workers,
            save_top_k, flip_tta, no_amp, no_channels_last, compile_model, save_tile_scores, resume, overwrite, quiet,
            **agg_kw):
    """Predict the species of every quadrat image in IMAGES and write a validated submission."""
    from dataclasses import replace

    from baselines.plantclef.geometry import parse_border, parse_level
    from baselines.plantclef.model import PRESETS, parse_model_kwargs
    from baselines.plantclef.predict import RunOptions, run_predict
    from baselines.plantclef.preprocess import PreprocessConfig

    transect_rule = agg_kw.pop("transect_rule")
    agg = _agg_config(agg_kw)
    if checkpoint is None and not random_init:
        from baselines.plantclef.classes import DOWNLOAD_HINT

        raise InputProblem(f"--checkpoint is required: {DOWNLOAD_HINT}")
    spec = PRESETS[preset]
    spec = replace(spec, name=model_name or spec.name, img_size=img_size or spec.img_size,
                   kwargs={**spec.kwargs, **parse_model_kwargs(model_kwargs)})
    border, percent = parse_border(crop_border)
    preprocess = PreprocessConfig(levels=tuple(parse_level(t) for t in tiling), input_size=spec.img_size,
                                  resize_filter=resize_filter, jpeg_quality=jpeg_quality, subsampling=subsampling,
                                  border=border, border_percent=percent)
    opts = RunOptions(device=device, batch_size=batch_size, workers=workers, save_top_k=save_top_k,
                      flip_tta=flip_tta, amp=not no_amp, channels_last=not no_channels_last, compile=compile_model,
                      progress=not quiet)
    result = run_predict(images, out, checkpoint=None if random_init else checkpoint, class_mapping=class_mapping,
                         spec=spec, preprocess=preprocess, agg=agg, definition=_definition(competition), opts=opts,
                         save_tile_scores=save_tile_scores, transect_rule=transect_rule, resume=resume,
                         overwrite=overwrite)
    m = result.model_info
    click.echo(f"model: {m['model']} @ {m['img_size']} px, {m['num_classes']} classes, weights: {m['weights']}"
               + (f" ({m['checkpoint']})" if m["checkpoint"] else ""))
    click.echo(f"predicted {result.n_images} quadrats ({result.n_resumed} resumed), {result.n_tiles} tiles, "
               f"{result.seconds:.1f} s; aggregation: {agg.label()}")
    for w in result.warnings:
        click.echo(f"warning: {w.render()}", err=True)
    if result.tile_scores:
        click.echo(f"tile scores: {result.tile_scores}")
    click.echo(f"submission (validated): {result.submission}")


@plantclef.command("aggregate")
@click.argument("tile_scores", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("submission.csv"), show_default=True)
@click.option("--competition", default="plantclef2025", show_default=True)
@aggregation_options
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
@_guard
def aggregate_cmd(tile_scores, out, competition, overwrite, **agg_kw):
    """Re-run only the aggregation from saved TILE_SCORES (no model, no GPU)."""
    from baselines.plantclef.predict import predictions
    from baselines.plantclef.submission import write_validated
    from baselines.plantclef.tile_scores import read_tile_scores

    from scoring.output_policy import OutputPlan

    OutputPlan(overwrite=overwrite, inputs=[tile_scores]).claim(out, what="--out submission")
    transect_rule = agg_kw.pop("transect_rule")
    agg = _agg_config(agg_kw)
    definition = _definition(competition)
    frame, _ = read_tile_scores(tile_scores)
    ids = sorted(set(frame["image_id"]))
    labels = predictions(frame, ids, agg, definition, transect_rule)
    warnings = write_validated(out, ids, labels, definition, overwrite=overwrite)
    for w in warnings:
        click.echo(f"warning: {w.render()}", err=True)
    click.echo(f"aggregated {len(ids)} quadrats ({agg.label()}); submission (validated): {out}")


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


@plantclef.command()
@click.argument("tile_scores", type=click.Path(path_type=Path))
@click.option("--solution", type=click.Path(path_type=Path), required=True,
              help="Labelled validation set (or pseudo-solution) in the competition's solution format.")
@click.option("--competition", default="plantclef2025", show_default=True)
@click.option("--strategies", default="union,max,mean,vote", show_default=True)
@click.option("--top-k", "top_ks", default="1,3,5", show_default=True)
@click.option("--thresholds", default="0.05,0.1,0.2", show_default=True)
@click.option("--min-votes", "min_votes", default="1,2", show_default=True)
@click.option("--max-species", "max_species", default="none", show_default=True, help="e.g. none,10,20")
@click.option("--transect-modes", default="none", show_default=True, help="e.g. none,union,mean")
@click.option("--transect-rule", type=click.Choice(list(RULES)), default=None)
@click.option("--min-species", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--out-csv", type=click.Path(path_type=Path), default=None, help="Also write the table as CSV.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out-csv.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON records.")
@_guard
def sweep(tile_scores, solution, competition, strategies, top_ks, thresholds, min_votes, max_species,
          transect_modes, transect_rule, min_species, out_csv, overwrite, as_json):
    """Score aggregation settings of TILE_SCORES against --solution; print them best first."""
    from baselines.plantclef.progress import Progress
    from baselines.plantclef.sweep import OVERFIT_WARNING, SweepGrid, render_table, run_sweep
    from baselines.plantclef.tile_scores import read_tile_scores
    from scoring.formatting import csv_text, json_number
    from scoring.output_policy import OutputPlan
    from scoring.runtime.atomic import write_text

    if out_csv:
        OutputPlan(overwrite=overwrite, inputs=[tile_scores, solution]).claim(out_csv, what="--out-csv")
    modes = tuple(None if m is None or m == "none" else m for m in _split(transect_modes, str))
    bad = [s for s in _split(strategies, str) if s not in STRATEGIES]
    if bad:
        raise click.BadParameter(f"unknown strategy {bad[0]!r}; choose from {', '.join(STRATEGIES)}",
                                 param_hint="--strategies")
    grid = SweepGrid(strategies=_split(strategies, str), top_k=_split(top_ks, int),
                     thresholds=_split(thresholds, float), min_votes=_split(min_votes, int),
                     max_species=_split(max_species, int), group_modes=modes, min_species=min_species)
    definition = _definition(competition)
    frame, _ = read_tile_scores(tile_scores)
    settings = grid.settings()
    bar = Progress(len(settings), "sweep", unit="setting", enabled=not as_json)
    table = run_sweep(frame, solution, definition, settings, transect_rule, progress=bar)
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
@click.option("--out", type=click.Path(path_type=Path), default=Path("plantclef-demo"), show_default=True)
@click.option("--competition", default="plantclef2025", show_default=True)
@click.option("--quiet", is_flag=True)
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
