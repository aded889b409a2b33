"""``aggregate``: saved tile scores -> a validated submission, with no model and no GPU."""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.baselines.plantclef._cli.errors import guard
from agrieval.baselines.plantclef._cli.options import (
    aggregation_config,
    aggregation_options,
    apply_recipe,
    competition_definition,
    load_genus,
)
from agrieval.baselines.plantclef._pooling import containment_notes
from agrieval.baselines.plantclef.aggregation_config import STRATEGIES
from agrieval.baselines.submission import write_validated
from agrieval.scoring.writing.policy import OutputPlan

# Imported inside functions, so that importing this module loads only what it needs: baselines.plantclef.full_probs,
# baselines.plantclef.tile_scores (they load pyarrow, ssl); baselines.plantclef.predict (it loads asyncio, email,
# http).


@click.command("aggregate")
@click.argument("tile_scores", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("submission.csv"), show_default=True,
              help="Submission CSV to write (validated before it is written).")
@click.option("--competition", default="plantclef2025", show_default=True,
              help="Competition whose format and vocabulary the submission must pass.")
@aggregation_options
@click.option("--overwrite", is_flag=True, help="Replace an existing --out.")
@click.pass_context
@guard
def aggregate_cmd(ctx, tile_scores, out, competition, overwrite, **kw):
    """Re-run only the aggregation from saved TILE_SCORES (no model, no GPU). Several files: the ensemble
    (mean of the models' probabilities over the same tiles)."""
    from agrieval.baselines.plantclef._full_probs import full_path, read_full
    from agrieval.baselines.plantclef.predict import predictions
    from agrieval.baselines.plantclef.tile_scores import load_scores, read_tile_scores

    OutputPlan(overwrite=overwrite, inputs=list(tile_scores)).claim(out, what="--out submission")
    apply_recipe(ctx, kw)
    agg, genus_file = aggregation_config(ctx, kw)
    definition = competition_definition(competition)
    members = dense = None
    if STRATEGIES[agg.strategy].gives_lists:  # zmerge: the notebook's float32 ensemble of every class
        read = [read_tile_scores(p) for p in tile_scores]
        members, n_classes, stats = [f for f, _ in read], read[0][1].get("n_classes"), None
        frame = members[0]
        if all(full_path(p).is_file() for p in tile_scores):
            dense = [read_full(full_path(p), expect_meta=m) for p, (_, m) in zip(tile_scores, read)]
    else:
        frame, stats, n_classes = load_scores(list(tile_scores), agg.tile_transform)
    ids = sorted(set(frame["image_id"]))
    labels = predictions(frame, ids, agg, definition, stats=stats, n_classes=n_classes, members=members,
                         genus=load_genus(genus_file), dense=dense)
    warnings = write_validated(out, ids, labels, definition, overwrite=overwrite)
    for w in [*warnings, *containment_notes(ids, agg.group_mode)]:
        click.echo(f"warning: {w.render()}", err=True)
    source = f"the ensemble of {len(tile_scores)} files" if len(tile_scores) > 1 else "1 file"
    click.echo(f"aggregated {len(ids)} quadrats from {source} ({agg.label()}); submission (validated): {out}")
