"""What ``agrieval score`` does once its command line is read: one function for the click command
(``scoring.cli.score``) and for the plain path of ``scoring.cli.entry``, which imports no click."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from scoring.cli.exit_codes import EXIT_OK, EXIT_REJECTED


def score_body(submission: Path, solution: Path, definition_of: Callable, as_json: bool, reveal_private: bool,
               own_team: str | None, val_accuracy: float | None, echo: Callable[..., None]) -> int:
    """Score and print the report (``echo(text)``; ``echo(text, err=True)`` for the solution's warnings);
    return the exit code. ``definition_of()`` gives the competition's definition."""
    from scoring.cli.solution_pair import load_solution_for
    from scoring.runtime.scorer import read_both, score

    definition = definition_of()
    # (the solution loads in a second thread while the submission is read)
    sol, sub, refused = read_both(submission, solution, definition, load=load_solution_for)
    from scoring.authoring.solution_order import order_warnings

    # about the solution: for whoever holds it, on stderr (never in the report a participant may be shown)
    for warning in list(sol.warnings) + order_warnings(sol, definition):
        echo(warning.render(), err=True)
    report = refused if refused is not None else score(sub, sol, definition, reveal_private=reveal_private,
                                                       own_team=own_team, val_accuracy=val_accuracy)
    if as_json:
        echo(report.to_json())
    else:
        from scoring.cli.render import render_report  # (not for --json)

        echo(render_report(report, submission=submission.name))
    return EXIT_OK if report.status == "scored" else EXIT_REJECTED
