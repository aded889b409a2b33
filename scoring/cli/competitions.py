"""``agrieval competitions [show NAME]``."""

from __future__ import annotations

import click


@click.group(invoke_without_command=True)
@click.pass_context
def competitions(ctx: click.Context) -> None:
    """List the shipped competition definitions."""
    if ctx.invoked_subcommand is None:
        from scoring.authoring.definitions import available_competitions, load_competition

        for name in available_competitions():
            d = load_competition(name)
            click.echo(f"{name:<20}{d.task:<12}primary={d.primary_metric:<18}{d.title}")


@competitions.command()
@click.argument("name")
def show(name: str) -> None:
    """Print one definition (the TOML as shipped, or your file)."""
    import sys
    from pathlib import Path

    from scoring.authoring.definitions import TOML_DIR, available_competitions, load_competition
    from scoring.runtime.problems import HostError

    try:
        d = load_competition(name)
    except HostError as exc:
        click.echo(f"error [{exc.code}] {exc}", err=True)
        sys.exit(3)
    # A shipped competition is shown as its TOML source, not as the frozen JSON the runtime reads.
    source = TOML_DIR / f"{name}.toml" if name in available_competitions() else Path(d.source_path)
    click.echo(f"# {source}")
    click.echo(source.read_text(encoding="utf-8"))
