"""A warning from a library (numpy's RuntimeWarning, a Pillow or matplotlib warning) is one line of ours.

``warning [library_warning] Category: message`` on stderr, never Python's two lines with the source line
that raised it; ``--debug`` leaves Python's own display.
"""

from __future__ import annotations

import contextlib
import warnings

import click

from agrieval.scoring.cli import errors


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    from agrieval.scoring.text.terminal import one_line

    text = one_line(f"warning [library_warning] {category.__name__}: {message}")
    try:
        click.echo(text, err=True)
    except (OSError, ValueError):
        pass


@contextlib.contextmanager
def library_warnings():
    """Inside: each warning Python would show (its filters decide, once per place by default) is one line
    of ours on stderr; the previous display and filters come back after."""
    with warnings.catch_warnings():
        python_display = warnings.showwarning

        def show(*args, **kwargs):  # --debug is known only once the root's options are parsed
            (python_display if errors.debug() else _warning_line)(*args, **kwargs)

        warnings.showwarning = show
        yield
