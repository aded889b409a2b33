"""The options several commands share, and what they name: ``--competition``, ``--json``, ``--format``/``--dpi``,
and a ``--solution`` checked against ``--competition``.

``--competition NAME_OR_TOML`` names a shipped competition, a frozen ``.json`` or a person's ``.toml``
(validated on every run). A name that is neither shipped nor an existing file is a usage error (exit 2) whose
message suggests the nearest name; an invalid definition is host-side (exit 3). A solution whose header is
another shipped competition's is named as such (a wrong ``--solution``/``--competition`` pair).
"""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.scoring.authoring.definitions import available_competitions, load_competition
from agrieval.scoring.cli._failures import EXIT_USAGE, CommandError
from agrieval.scoring.cli._output import COMPETITION_NAME, promise_json
from agrieval.scoring.runtime.definition import shipped_competitions
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

# Imported inside functions, so that importing this module loads only what it needs: scoring.writing.figures
# (`agrieval score` does not need them); scoring.runtime.reading.solution (it loads numpy).

__all__ = ["competition_option", "load_definition", "json_option", "figure_options", "chosen_figure_format",
           "load_solution_for", "check_solution_pair"]

competition_option = click.option(
    "--competition", "-c", required=True, metavar="NAME_OR_TOML",
    help="A shipped competition (see `agrieval competitions`) or a path to your own TOML definition.")


def json_option(help: str = "Print one JSON object on stdout, nothing else."):
    """``--json``: the command promises one JSON object on stdout, also when it fails (``output.json_failure``)."""
    return click.option("--json", "as_json", is_flag=True, callback=promise_json, help=help)


def load_definition(name: str):
    """Load a competition named on the command line: unknown names are a usage error with a suggestion."""
    try:
        definition = load_competition(name)
    except HostError as exc:
        if name not in shipped_competitions() and not Path(name).exists():
            raise CommandError("unknown_competition", str(exc), EXIT_USAGE) from None
        raise
    ctx = click.get_current_context(silent=True)
    if ctx is not None:  # a failure's JSON names the competition as its definition does, not the path given
        ctx.meta[COMPETITION_NAME] = definition.name
    return definition


# --- --format and --dpi: the options of every command that draws figures (--plots) -----------------------------

def figure_options(f):
    """Add ``--format png|svg|pdf`` and ``--dpi N``; the command receives ``figure_format`` and ``dpi``
    (``chosen_figure_format`` makes them a FigureFormat)."""
    from agrieval.scoring.writing.figures import DEFAULT_DPI, FORMATS

    f = click.option("--dpi", type=click.IntRange(20, 2400), default=DEFAULT_DPI, show_default=True,
                     help="Resolution of the figures (dots per inch; a journal asks for 300). Vector formats "
                          "use it for their raster parts only.")(f)
    f = click.option("--format", "figure_format", type=click.Choice(FORMATS), default="png", show_default=True,
                     help="File format of the figures (svg and pdf scale without loss, for a paper).")(f)
    return f


# --- --resamples, --seed, --confidence: the bootstrap intervals of leaderboard and rank-agreement ----------------

def bootstrap_options(resamples_help: str, seed_help: str):
    """Add ``--resamples N``, ``--seed S`` and ``--confidence C`` (in that order in ``--help``); the command
    receives ``resamples``, ``seed`` and ``confidence``."""
    def add(f):
        f = click.option("--confidence", default=0.95, show_default=True, type=click.FloatRange(0.5, 0.999),
                         help="Coverage of the bootstrap intervals.")(f)
        f = click.option("--seed", default=0, show_default=True, type=int, help=seed_help)(f)
        return click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=0),
                            help=resamples_help)(f)
    return add


def chosen_figure_format(figure_format: str, dpi: int, plots: bool):
    """The FigureFormat asked for; refuses --format/--dpi given without --plots (they would do nothing)."""
    from agrieval.scoring.writing.figures import FigureFormat

    ctx = click.get_current_context()
    given = [name for name in ("figure_format", "dpi")
             if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
    if given and not plots:
        flags = " and ".join("--format" if n == "figure_format" else "--dpi" for n in given)
        raise click.UsageError(f"{flags} {'apply' if len(given) > 1 else 'applies'} only with --plots")
    return FigureFormat(figure_format, dpi)


# --- a --solution given with the wrong --competition: named as such ----------------------------------------

def load_solution_for(path, definition):
    """The solution, or a host error that says when the file belongs to another competition."""
    from agrieval.scoring.runtime.reading.solution import load_solution

    try:
        return load_solution(path, definition)
    except HostError as exc:
        other = _competition_of_header(path, definition)
        if other is None:
            raise
        raise HostError(exc.code, _pair_message(path, other, definition)) from None


def check_solution_pair(path, definition) -> None:
    """Fail when the solution's header is another shipped competition's (a wrong --solution/--competition pair)."""
    other = _competition_of_header(path, definition)
    if other is not None:
        raise HostError("solution_invalid", _pair_message(path, other, definition))


def _pair_message(path, other: str, definition) -> str:
    columns = load_competition(other).expected_columns
    return (f"{path} looks like a solution of {other!r} (its header has {', '.join(columns)}), not of "
            f"{definition.name!r} (which needs {', '.join(definition.expected_columns)}): check --competition "
            f"and --solution")


def _competition_of_header(path, definition) -> str | None:
    """The shipped competition whose id and prediction columns the file's header holds, if not ``definition``'s."""
    try:  # the participant's file: by the opening rule (a FIFO named like a submission never hangs the hint)
        with open_regular(path, max_bytes=definition.limits.max_bytes, what="submission") as f:
            head = f.readline(65536).decode("utf-8-sig", "replace").strip()
    except (OSError, UntrustedFileError):
        return None
    for name in available_competitions():
        if name == definition.name:
            continue
        other = load_competition(name)
        cells = [c.strip().strip('"') for c in head.split(other.delimiter)]
        if other.id_column in cells and other.prediction_column in cells:
            if definition.id_column not in cells or definition.prediction_column not in cells:
                return name
    return None
