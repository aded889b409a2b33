"""``agrieval grade``: grade one upload for a home-grown server; always one JSON object on stdout.

The in-process twin is ``agrieval.scoring.runtime.guard.grade`` (same ``GradeResult``; this
command prints its ``to_dict()``).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from agrieval.scoring.cli.options import competition_option


@click.command()
@click.argument("submission", type=click.Path(path_type=Path))
@click.option("--solution", "-s", required=True, type=click.Path(path_type=Path),
              help="Ground truth CSV (id, labels, Usage or split column, optional transect_id / team).")
@competition_option
@click.option("--reveal-private", is_flag=True, help="Also compute and print the private split (organizers only).")
@click.option("--participant-only", is_flag=True,
              help="Leave out the host key: print only what may be forwarded to the participant.")
@click.option("--ladder", "ladder_state", type=click.Path(path_type=Path, dir_okay=False), metavar="STATE",
              help="The team's Ladder state file (created if absent; one per team): metrics.public then shows "
                   "the team's released submission (Blum & Hardt's parameter-free Ladder), this one's raw "
                   "values go under host.details.ladder. See docs/ladder.md.")
def grade(submission: Path, solution: Path, competition: str, reveal_private: bool, participant_only: bool,
          ladder_state: Path | None) -> None:
    """Grade SUBMISSION (a CSV, a zip holding one CSV, or a folder holding one file).

    Prints one JSON object: status, metrics (public; private only with --reveal-private), warnings and errors
    (safe to show the participant), and host-only diagnostics under "host". Limits (bytes, rows, labels per
    row, seconds) come from the definition.

    \b
    Example:
      agrieval grade reference_submissions/plantclef2025/submissions/partial.csv \\
        -s reference_submissions/plantclef2025/solution.csv -c plantclef2025 --participant-only

    With --ladder STATE a corrupt state file, or one made for another competition or solution, is a host
    error (exit 3: ladder_state_corrupt, ladder_state_foreign) and is left as it is.

    Exit codes: 0 scored; 1 rejected (forward "errors" as they are); 2 usage error (missing file, unknown
    competition: the JSON object is still printed); 3 host-side problem (bad solution or definition, crash).
    """
    from agrieval.scoring.cli.failures import CommandError, error_line
    from agrieval.scoring.cli.options import check_solution_pair
    from agrieval.scoring.cli.options import load_definition as load_competition
    from agrieval.scoring.runtime.guard import grade as grade_upload
    from agrieval.scoring.runtime.guard import host_failure
    from agrieval.scoring.runtime.problems import HostError

    exit_code = None
    try:
        for what, path in (("submission", submission), ("solution", solution)):
            if not path.exists():
                raise CommandError("file_not_found", f"the {what} {str(path)!r} does not exist")
        definition = load_competition(competition)  # a TOML is validated here; the runtime reads frozen ones
        check_solution_pair(solution, definition)
    except (CommandError, HostError) as exc:
        # Still one JSON object on stdout (a server parses it); the line on stderr is for the operator.
        result = host_failure(competition, exc.code, str(exc))
        exit_code = getattr(exc, "exit_code", 3)
        click.echo(error_line(exc.code, str(exc)), err=True)
    else:
        result = grade_upload(submission, solution, definition, reveal_private=reveal_private, ladder=ladder_state)
    payload = result.participant_view() if participant_only else result.to_dict()
    click.echo(json.dumps(payload, indent=2, allow_nan=False))
    raise SystemExit(result.exit_code if exit_code is None else exit_code)
