"""``agrieval select LOG --team T [SUBMISSION...]``: a team's final selection on the own server."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agrieval.scoring.cli.group import epilog


@click.command(epilog=epilog(
    "agrieval select submissions/log.csv --team team-a 3 7",
    "Exit codes: 0 recorded; 1 refused (a number the team has no scored submission for, or more than "
    "--selection-limit); 2 usage error; 3 the log cannot be read or written."))
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("submissions", nargs=-1, type=click.IntRange(min=1))
@click.option("--team", required=True, help="The team whose selection this is.")
@click.option("--selection-limit", default=2, show_default=True, type=click.IntRange(min=1),
              help="How many submissions a team may select (Kaggle's and Hugging Face's default: 2).")
@click.option("--now", "now_text", default=None, metavar="ISO_TIME", help="The time recorded instead of the clock.")
def select(log: Path, submissions: tuple[int, ...], team: str, selection_limit: int, now_text: str | None) -> None:
    """Record TEAM's final selection: the numbers of up to --selection-limit of its scored SUBMISSIONS (as
    `agrieval grade --log` numbers them: the submission column of LOG). No number clears the selection: the
    team's best public submissions count again. The latest selection of a team counts; `agrieval leaderboard
    LOG --per-team selected` ranks on it. Prints the recorded row as JSON.
    """
    from agrieval.scoring.cli.failures import CommandError
    from agrieval.scoring.server.intake import select as record
    from agrieval.scoring.server.submission_log import parse_utc, utc_text

    now = None
    if now_text is not None:
        try:
            now = parse_utc(now_text)
        except ValueError:
            raise CommandError("bad_option", f"--now {now_text!r} is not an ISO 8601 time") from None
    row = record(log, team, submissions, k=selection_limit, now=now)
    click.echo(json.dumps({"team": row.team, "selected_at": utc_text(row.submitted_at),
                           "selected": list(row.selected)}, sort_keys=True))
