"""``recipes``: the named team configurations, and the aggregation options each strategy reads."""

from __future__ import annotations

import click

from agrieval.baselines.plantclef._cli.recipe_table import options_table, recipe_table


@click.command()
@click.option("--markdown", is_flag=True, help="As the Markdown tables of docs/plantclef.md.")
@click.option("--options", "show_options", is_flag=True,
              help="The aggregation options instead: default, the strategies that read them, help.")
def recipes(markdown, show_options):
    """List the named recipes (--recipe NAME) with their option values, their sources' other settings and
    their sources."""
    click.echo(options_table(markdown) if show_options else recipe_table(markdown), nl=False)
