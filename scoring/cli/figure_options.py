"""``--format`` and ``--dpi``: the options of every command that draws figures (``--plots``)."""

from __future__ import annotations

import click

from agrieval.scoring.writing.figures import DEFAULT_DPI, FORMATS, FigureFormat


def figure_options(f):
    """Add ``--format png|svg|pdf`` and ``--dpi N``; the command receives ``figure_format`` (a FigureFormat)."""
    f = click.option("--dpi", type=click.IntRange(20, 2400), default=DEFAULT_DPI, show_default=True,
                     help="Resolution of the figures (dots per inch; a journal asks for 300). Vector formats "
                          "use it for their raster parts only.")(f)
    f = click.option("--format", "figure_format", type=click.Choice(FORMATS), default="png", show_default=True,
                     help="File format of the figures (svg and pdf scale without loss, for a paper).")(f)
    return f


def chosen(figure_format: str, dpi: int, plots: bool) -> FigureFormat:
    """The FigureFormat asked for; refuses --format/--dpi given without --plots (they would do nothing)."""
    ctx = click.get_current_context()
    given = [name for name in ("figure_format", "dpi")
             if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
    if given and not plots:
        flags = " and ".join("--format" if n == "figure_format" else "--dpi" for n in given)
        raise click.UsageError(f"{flags} {'apply' if len(given) > 1 else 'applies'} only with --plots")
    return FigureFormat(figure_format, dpi)
