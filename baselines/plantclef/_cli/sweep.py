"""``sweep``: score many aggregation settings of saved tile scores against a labelled solution."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agrieval.baselines.plantclef._cli.errors import guard
from agrieval.baselines.plantclef._cli.options import competition_definition, parse_floats
from agrieval.baselines.plantclef._pooling import MODES as POOL_MODES
from agrieval.baselines.plantclef.aggregation_config import STRATEGIES, TIE_RULES, TILE_TRANSFORMS
from agrieval.baselines.plantclef.transects import RULES
from agrieval.data_tools._progress import Progress
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.text.tables import csv_text, json_number
from agrieval.scoring.writing.policy import OutputPlan

# Imported inside functions, so that importing this module loads only what it needs: baselines.plantclef.sweep,
# baselines.plantclef.tile_scores (they load pyarrow, ssl).


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


@click.command()
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
@click.option("--group-modes", "--transect-modes", "group_modes", default="none", show_default=True,
              help=f"none or any of {', '.join(POOL_MODES)} (aggregate's --group-mode)")
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
@guard
def sweep(tile_scores, solution, competition, strategies, top_ks, thresholds, min_votes, z_thresholds, scale_weights,
          max_species, group_modes, transect_rule, pool_k, pool_min_images, tie_rules, target_means,
          tile_transforms, min_species, out_csv, overwrite, as_json):
    """Score aggregation settings of TILE_SCORES (several files: their ensemble) against --solution; print them
    best first. Settings the saved scores cannot give exactly are listed with the reason."""
    from agrieval.baselines.plantclef.sweep import OVERFIT_WARNING, SweepGrid, render_table, run_sweep
    from agrieval.baselines.plantclef.tile_scores import load_scores

    if out_csv:
        OutputPlan(overwrite=overwrite, inputs=[*tile_scores, solution]).claim(out_csv, what="--out-csv")

    modes = tuple(None if m is None or m == "none" else m
                  for m in _choices(group_modes, ("none", *POOL_MODES), "group mode", "--group-modes"))
    transforms = tuple("none" if t is None else t
                       for t in _choices(tile_transforms, TILE_TRANSFORMS, "tile transform", "--tile-transforms"))
    grid = SweepGrid(strategies=_choices(strategies, tuple(STRATEGIES), "strategy", "--strategies"),
                     top_k=_split(top_ks, int), thresholds=_split(thresholds, float), min_votes=_split(min_votes, int),
                     z_thresholds=_split(z_thresholds, float),
                     scale_weights=tuple(parse_floats(w) for w in scale_weights.split(";")),
                     max_species=_split(max_species, int), group_modes=modes, pool_k=pool_k,
                     pool_min_images=pool_min_images,
                     tie_rules=_choices(tie_rules, TIE_RULES, "tie rule", "--tie-rules"),
                     target_means=_split(target_means, float), tile_transforms=transforms, min_species=min_species)
    if len(set(transforms)) > 1 and len(tile_scores) > 1:
        raise click.BadParameter("an ensemble is z-scored file by file: sweep one --tile-transforms value at a time",
                                 param_hint="--tile-transforms")
    definition = competition_definition(competition)
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
