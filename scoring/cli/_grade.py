"""``agrieval grade``: grade one upload for a home-grown server; always one JSON object on stdout.

The in-process twin is ``agrieval.scoring.runtime.guard.grade`` (same ``GradeResult``; this
command prints its ``to_dict()``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click

from agrieval.scoring._server.submission_log import check_team
from agrieval.scoring._server.timeline import YEARS, parse_utc
from agrieval.scoring.cli._failures import CommandError, error_line
from agrieval.scoring.cli._options import check_solution_pair
from agrieval.scoring.cli._options import load_definition as load_competition
from agrieval.scoring.cli._output import COMPETITION_NAME
from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.runtime.untrusted import read_bytes

# Imported inside functions, so that importing this module loads only what it needs: scoring.runtime.guard (it loads
# multiprocessing); scoring.server.intake, scoring.server.settings, scoring.server.store (they load sqlite3).


@click.command()
@click.argument("submission", type=click.Path(path_type=Path))
@click.option("--solution", "-s", default=None, type=click.Path(path_type=Path),
              help="Ground truth CSV (id, labels, Usage or split column, optional transect_id / team).")
@click.option("--competition", "-c", default=None, metavar="NAME_OR_TOML",
              help="A shipped competition (see `agrieval competitions`) or a path to your own TOML definition "
                   "(required without --store).")
@click.option("--reveal-private", is_flag=True, help="Also compute and print the private split (organizers only).")
@click.option("--participant-only", is_flag=True,
              help="Leave out the host key: print only what may be forwarded to the participant.")
@click.option("--ladder", "ladder_state", type=click.Path(path_type=Path, dir_okay=False), metavar="STATE",
              help="The team's Ladder state file (created if absent; one per team): metrics.public then shows "
                   "the team's released submission (Blum & Hardt's parameter-free Ladder), this one's raw "
                   "values go under host.details.ladder. See docs/ladder.md.")
@click.option("--team", default=None, metavar="TEAM",
              help="The uploading team (one printable line): with --store, the upload is counted against the "
                   "competition's limits and kept in the store.")
@click.option("--store", "store_path", type=click.Path(path_type=Path, dir_okay=True), metavar="DB",
              help="The competition's store (`agrieval server init`): the competition, solution, limits, timeline "
                   "and Ladder come from it; the upload, its score and the Ladder's update are one row of it. "
                   "Needs --team; -s and -c are then not given.")
@click.option("--log", "log_path", hidden=True, default=None,
              help="Gone: the submission log became the store (`agrieval server import`).")
@click.option("--time-limit", "time_limit", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds one grading may take [default: the definition's limits.max_seconds].")
@click.option("--now", "now_text", default=None, metavar="ISO_TIME",
              help="With --store: the time of the upload (ISO 8601, UTC without a zone) instead of the clock: "
                   "for replays and tests.")
def grade(submission: Path, solution: Path | None, competition: str | None, reveal_private: bool,
          participant_only: bool, ladder_state: Path | None, team: str | None, store_path: Path | None,
          log_path: str | None, time_limit: float | None, now_text: str | None) -> None:
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

    With --team T --store DB (the own server): an upload over the store's limits is refused, not graded
    (status rejected, code submission_limit_reached, or rejected_rate_reached for too many rejected uploads
    in an hour, exit 1; the message says when the next one is accepted), as is one before the start or
    after the deadline (competition_not_started, competition_closed); otherwise it is graded outside any
    lock and its row, score and Ladder update committed at once; "details.submission" is its number (scored
    uploads only). See docs/own_server.md.

    Exit codes: 0 scored; 1 rejected (forward "errors" as they are); 2 usage error (missing file, unknown
    competition: the JSON object is still printed); 3 host-side problem (bad solution or definition, crash).
    """
    from agrieval.scoring.runtime.guard import grade as grade_upload

    exit_code = None
    try:
        if log_path is not None:
            raise CommandError("bad_option", "--log is gone: the own server keeps its competition in a store. Make "
                                             "one with `agrieval server init`, bring the log in with `agrieval "
                                             "server import DB --log LOG.csv`, then grade with --store DB")
        if not submission.exists():
            raise CommandError("file_not_found", f"the submission {str(submission)!r} does not exist")
        if store_path is not None:
            return _graded_in_store(submission, store_path, team, now_text, reveal_private, participant_only,
                                    solution, competition, ladder_state)
        if team is not None or now_text is not None:
            raise CommandError("bad_option", "--team and --now need --store (the competition they count in)")
        if solution is None or competition is None:
            raise CommandError("bad_option", "--solution and --competition are required without --store")
        definition = load_competition(competition)  # a TOML is validated here; the runtime reads frozen ones
        if not solution.exists():
            raise CommandError("file_not_found", f"the solution {str(solution)!r} does not exist")
        if ladder_state is not None and not ladder_state.parent.is_dir():
            raise CommandError("folder_not_found", f"the folder of the --ladder file {str(ladder_state)!r} does not "
                                                   "exist; create it first", exit_code=3, file=str(ladder_state))
        if time_limit is not None:
            definition = dataclasses.replace(definition, limits=dataclasses.replace(definition.limits,
                                                                                    max_seconds=time_limit))
        check_solution_pair(solution, definition)
    except CodedError as exc:  # CommandError, HostError
        result = _failed(competition, exc)
        exit_code = getattr(exc, "exit_code", 3)
    else:
        result = grade_upload(submission, solution, definition, reveal_private=reveal_private, ladder=ladder_state)
    _answer(result, participant_only, exit_code)


def _failed(competition, exc):
    """Still one JSON object on stdout (a server parses it); the line on stderr is for the operator."""
    from agrieval.scoring.runtime.guard import host_failure

    click.echo(error_line(exc.code, str(exc)), err=True)
    # the definition's name once it was read (never the path to a TOML the organizer gave)
    name = click.get_current_context().meta.get(COMPETITION_NAME) or competition
    return host_failure(name or "", exc.code, str(exc))


def _answer(result, participant_only: bool, exit_code) -> None:
    if exit_code is None and result.status == "error" and result.host.diagnostics:
        first = result.host.diagnostics[0]  # the operator's line: a host failure is never silent on stderr
        click.echo(error_line(first.code, first.message.splitlines()[0] if first.message else ""), err=True)
    payload = result.participant_view() if participant_only else result.to_dict()
    click.echo(json.dumps(payload, indent=2, allow_nan=False))
    raise SystemExit(result.exit_code if exit_code is None else exit_code)


def _graded_in_store(submission: Path, store_path: Path, team, now_text, reveal_private: bool,
                     participant_only: bool, solution, competition, ladder_state) -> None:
    """``grade --store``: the upload read once through the opening rule, graded through the store."""
    from agrieval.scoring._server.intake import grade_stored
    from agrieval.scoring._server.settings import load_competition as load_stored
    from agrieval.scoring._server.store import open_store

    name = None
    try:
        if solution is not None or competition is not None or ladder_state is not None:
            raise CommandError("bad_option", "with --store the competition, solution and Ladder come from the "
                                             "store: leave out -s, -c and --ladder")
        if team is None:
            raise CommandError("bad_option", "--store needs --team (whose upload this is)")
        check_team(team)
        now = None
        if now_text is not None:
            try:
                now = parse_utc(now_text)
            except ValueError:
                raise CommandError("bad_option", f"--now {now_text!r} is not an ISO 8601 time between the years "
                                                 f"{YEARS[0]} and {YEARS[1]} (e.g. 2026-05-01T12:30:00Z)") from None
        store = open_store(store_path)
        comp = load_stored(store)
        name = comp.definition.name
        if submission.is_dir():
            raise CommandError("bad_option", "the store keeps one file per upload (a CSV or a zip), not a folder")
        # one byte past the cap: the grader then refuses it as too large, with its own participant message
        data = read_bytes(submission, max_bytes=comp.definition.limits.max_bytes + 1, what="upload")
        result = grade_stored(store, data, submission.name, team, now=now, reveal_private=reveal_private,
                              competition=comp)
    except CodedError as exc:  # CommandError, the store's StoreError, LogError, HostError, UntrustedFileError
        _answer(_failed(name, exc), participant_only, getattr(exc, "exit_code", 3))
    _answer(result, participant_only, None)
