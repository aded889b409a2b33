"""``demo``: synthetic quadrats and a random-init model through predict, validate and score, on the CPU."""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.baselines.plantclef._cli.errors import guard
from agrieval.baselines.plantclef._cli.options import competition_definition
from agrieval.scoring.text.terminal import cell, one_line

# Imported inside functions, so that importing this module loads only what it needs: baselines.plantclef.demo (it
# loads PIL, asyncio, email).


@click.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("plantclef-demo"), show_default=True, help='Folder for the synthetic images, checkpoint, submission and scores.')
@click.option("--competition", default="plantclef2025", show_default=True, help='Competition the demo submission is validated and scored for.')
@click.option("--quiet", is_flag=True, help='No progress output.')
@guard
def demo(out, competition, quiet):
    """Synthetic quadrats + tiny random-init checkpoint -> predict -> validate -> score, on the CPU."""
    from agrieval.baselines.plantclef.demo import run_demo

    res = run_demo(out, competition_definition(competition), progress=not quiet)
    r = res.result
    click.echo(f"predicted {r.n_images} synthetic quadrats ({r.n_tiles} tiles) in {r.seconds:.1f} s with a "
               f"random-init {r.model_info['model']} ({r.model_info['weights']} of {res.files['checkpoint'].name})")
    click.echo(f"submission validated; {res.primary_metric} against the planted species: {res.score:.4f} "
               "(random weights: near chance is expected)")
    for name, path in res.files.items():
        click.echo(f"  {cell(name, 14)} {one_line(path)}")
    click.echo("same run from the command line:")
    click.echo(f"  {res.command}")
    click.echo(f"score it:  agrieval score {res.files['submission']} --solution {res.files['solution']} "
               f"--competition {competition}")
