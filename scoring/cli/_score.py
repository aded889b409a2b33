"""``agrieval score``: score a submission against a solution."""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.scoring.cli._failures import EXIT_OK, EXIT_REJECTED
from agrieval.scoring.cli._options import competition_option, json_option, load_definition, load_solution_for
from agrieval.scoring.cli._output import held, render_report
from agrieval.scoring.cli.group import epilog

# Imported inside functions, so that importing this module loads only what it needs:
# scoring.authoring.solution_order, scoring.runtime.scorer (they load numpy).


@click.command(epilog=epilog("agrieval score reference_submissions/plantclef2025/submissions/partial.csv -s reference_submissions/plantclef2025/solution.csv -c plantclef2025", 'Exit codes: 0 scored; 1 submission rejected (the message is safe to show a participant); 2 usage error (bad option, missing file, unknown competition); 3 host-side problem (bad solution or definition, internal error).'))
@click.argument("submission", type=click.Path(exists=True, path_type=Path))
@click.option("--solution", "-s", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Ground truth CSV (id, labels, Usage or split column, optional transect_id / team).")
@competition_option
@json_option()
@click.option("--reveal-private", is_flag=True, help="Also compute the private split (organizers only).")
@click.option("--own-team", metavar="NAME", help="AgrI: also report accuracy on the other teams only.")
@click.option("--val-accuracy", type=float, metavar="X",
              help="AgrI: validation accuracy (fraction 0-1) to report the validation-test gap.")
@held
def score(submission: Path, solution: Path, competition: str, as_json: bool, reveal_private: bool,
          own_team: str | None, val_accuracy: float | None) -> int:
    """Score SUBMISSION against --solution and print every metric of the competition."""
    from agrieval.scoring.authoring.solution_order import order_warnings
    from agrieval.scoring.runtime.scorer import _read_both
    from agrieval.scoring.runtime.scorer import score as score_upload

    definition = load_definition(competition)
    sol, sub, refused = _read_both(submission, solution, definition, load=load_solution_for)

    # about the solution: for whoever holds it, on stderr (never in the report a participant may be shown)
    for warning in list(sol.warnings) + order_warnings(sol, definition):
        click.echo(warning.render(), err=True)
    report = refused if refused is not None else score_upload(
        sub, sol, definition, reveal_private=reveal_private, own_team=own_team, val_accuracy=val_accuracy)
    if as_json:
        click.echo(report.to_json())
    else:
        click.echo(render_report(report, submission=submission.name))
    return EXIT_OK if report.status == "scored" else EXIT_REJECTED
