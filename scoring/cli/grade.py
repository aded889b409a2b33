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
@click.option("--team", default=None, metavar="TEAM",
              help="The uploading team (one printable line): with --log, the upload is counted against the "
                   "limits and logged.")
@click.option("--log", "log_path", type=click.Path(path_type=Path, dir_okay=False), metavar="LOG.csv",
              help="The competition's submission log (created if absent; one for all teams): team, time, file, "
                   "status, raw public and private values (host only). `agrieval leaderboard LOG --per-team` "
                   "builds the board from it. Needs --team.")
@click.option("--per-day", "per_day", type=click.IntRange(min=1), default=None,
              help="With --log: at most this many scored submissions per team and UTC day [default: no limit].")
@click.option("--total", "total", type=click.IntRange(min=1), default=None,
              help="With --log: at most this many scored submissions per team in all [default: no limit].")
@click.option("--time-limit", "time_limit", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds one grading may take [default: the definition's limits.max_seconds].")
@click.option("--now", "now_text", default=None, metavar="ISO_TIME",
              help="With --log: the time of the upload (ISO 8601, UTC without a zone) instead of the clock: "
                   "for replaying a log and for tests.")
def grade(submission: Path, solution: Path, competition: str, reveal_private: bool, participant_only: bool,
          ladder_state: Path | None, team: str | None, log_path: Path | None, per_day: int | None,
          total: int | None, time_limit: float | None, now_text: str | None) -> None:
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

    With --team T --log LOG (the own server): an upload over --per-day or --total is refused, not graded
    (status rejected, code submission_limit_reached, exit 1; the message says when the next one is
    accepted); otherwise it is graded and its row appended to LOG under a lock. Only scored submissions
    count; days are UTC days. See docs/own_server.md.

    Exit codes: 0 scored; 1 rejected (forward "errors" as they are); 2 usage error (missing file, unknown
    competition: the JSON object is still printed); 3 host-side problem (bad solution or definition, crash).
    """
    from agrieval.scoring.cli.failures import CommandError, error_line
    from agrieval.scoring.cli.options import check_solution_pair
    from agrieval.scoring.cli.options import load_definition as load_competition
    from agrieval.scoring.runtime.guard import grade as grade_upload
    from agrieval.scoring.runtime.guard import host_failure
    from agrieval.scoring.runtime.coded_error import CodedError

    exit_code = None
    try:
        for what, path in (("submission", submission), ("solution", solution)):
            if not path.exists():
                raise CommandError("file_not_found", f"the {what} {str(path)!r} does not exist")
        for what, path in (("--ladder", ladder_state), ("--log", log_path)):
            if path is not None and not path.parent.is_dir():
                raise CommandError("folder_not_found", f"the folder of the {what} file {str(path)!r} does not "
                                                       "exist; create it first", exit_code=3, file=str(path))
        server = _server_options(team, log_path, per_day, total, now_text)
        definition = load_competition(competition)  # a TOML is validated here; the runtime reads frozen ones
        if time_limit is not None:
            import dataclasses

            definition = dataclasses.replace(definition, limits=dataclasses.replace(definition.limits,
                                                                                    max_seconds=time_limit))
        check_solution_pair(solution, definition)
    except CodedError as exc:  # CommandError, HostError, the log's LogError
        # Still one JSON object on stdout (a server parses it); the line on stderr is for the operator.
        result = host_failure(competition, exc.code, str(exc))
        exit_code = getattr(exc, "exit_code", 3)
        click.echo(error_line(exc.code, str(exc)), err=True)
    else:
        if server is None:
            result = grade_upload(submission, solution, definition, reveal_private=reveal_private,
                                  ladder=ladder_state)
        else:
            from agrieval.scoring.server.intake import grade_logged

            limits, now = server
            result = grade_logged(submission, solution, definition, log=log_path, team=team, now=now,
                                  limits=limits, reveal_private=reveal_private, ladder=ladder_state)
    if exit_code is None and result.status == "error" and result.host.diagnostics:
        first = result.host.diagnostics[0]  # the operator's line: a host failure is never silent on stderr
        click.echo(error_line(first.code, first.message.splitlines()[0] if first.message else ""), err=True)
    payload = result.participant_view() if participant_only else result.to_dict()
    click.echo(json.dumps(payload, indent=2, allow_nan=False))
    raise SystemExit(result.exit_code if exit_code is None else exit_code)


def _server_options(team, log_path, per_day, total, now_text):
    """``(SubmissionLimits, now)`` for the own server's options, None without --log; usage errors raised."""
    from agrieval.scoring.cli.failures import CommandError
    from agrieval.scoring.server.limits import SubmissionLimits
    from agrieval.scoring.server.submission_log import check_team, parse_utc

    if log_path is None:
        if team is not None or per_day is not None or total is not None or now_text is not None:
            raise CommandError("bad_option", "--team, --per-day, --total and --now need --log (the submission log "
                                             "they count in)")
        return None
    if team is None:
        raise CommandError("bad_option", "--log needs --team (whose upload this is)")
    check_team(team)
    now = None
    if now_text is not None:
        try:
            now = parse_utc(now_text)
        except ValueError:
            raise CommandError("bad_option", f"--now {now_text!r} is not an ISO 8601 time "
                                             "(e.g. 2026-05-01T12:30:00Z)") from None
    return SubmissionLimits(per_day=per_day, total=total), now
