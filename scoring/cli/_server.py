"""``agrieval server ...``: the own grading server's store (init, select, void, rescore, board, export, import).

Uploads are graded by ``agrieval grade UPLOAD --team T --store DB``; everything else an organizer does with
the competition is here. Each command opens the store through ``scoring/_server/store.py`` (the path resolved
once, a regular file) and prints the competition's timeline with what it did. See docs/own_server.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.timeline import YEARS, Timeline, now_utc, parse_utc, utc_text
from agrieval.scoring.cli._failures import CommandError
from agrieval.scoring.cli.group import ContractGroup, document
from agrieval.scoring.text.terminal import one_line
from agrieval.scoring.writing.policy import OutputPlan

# Imported inside functions, so that importing this module loads only what it needs: scoring.server.store,
# scoring.server.settings, scoring.server.intake, scoring.server.boards, scoring.server.export,
# scoring.server.migrate_log (they load sqlite3); scoring.server.rescore (it loads concurrent, concurrent.futures,
# multiprocessing); scoring.leaderboard.team_board (it loads concurrent, concurrent.futures, pandas).

STORE = click.argument("store", metavar="DB", type=click.Path(path_type=Path, dir_okay=True))


def _time(ctx, param, value):
    if value is None:
        return None
    try:
        return parse_utc(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO 8601 time between the years {YEARS[0]} and {YEARS[1]} "
                                 "(e.g. 2026-05-01T12:30:00Z)") from None


def time_option(*names: str, help: str):
    return click.option(*names, callback=_time, default=None, metavar="ISO_TIME", help=help)


def _echo(payload: dict, as_json: bool = True) -> None:
    click.echo(json.dumps(payload, indent=2, sort_keys=True, allow_nan=False))


def _open(store: Path):
    from agrieval.scoring._server.store import open_store

    return open_store(store)


@click.group("server", cls=ContractGroup)
def server() -> None:
    """The own grading server's store: one SQLite database per competition (see docs/own_server.md)."""


@server.command("init")
@STORE
@click.option("--competition", "-c", required=True, help="A shipped competition's name or a definition TOML.")
@click.option("--solution", "-s", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The ground truth CSV (its fingerprint is kept: a changed solution is refused later).")
@click.option("--per-day", type=click.IntRange(min=1), default=None, help="Scored submissions per team and UTC day.")
@click.option("--total", type=click.IntRange(min=1), default=None, help="Scored submissions per team in all.")
@click.option("--rejected-per-hour", type=click.IntRange(min=1), default=None,
              help="Rejected (or failed) uploads per team in any 60 minutes; more are refused ungraded.")
@time_option("--start", help="No upload is graded before this time (UTC).")
@time_option("--deadline", help="No upload is graded from this time on: competition_closed.")
@time_option("--selection-deadline", help="No final selection is recorded from this time on.")
@time_option("--reveal", help="The private board may be exported from this time on.")
@click.option("--selection-limit", type=click.IntRange(min=1), default=2, show_default=True,
              help="How many submissions a team may select for the private board.")
@click.option("--ladder", is_flag=True, help="Release public scores through the Ladder (docs/ladder.md).")
def init(store: Path, competition: str, solution: Path, per_day, total, rejected_per_hour, start, deadline,
         selection_deadline, reveal, selection_limit: int, ladder: bool) -> None:
    """Create the store DB (mode 0600; refused if DB exists) with the competition's settings, fixed once."""
    from agrieval.scoring._server.settings import new_settings, write_settings
    from agrieval.scoring._server.store import create_store

    try:
        timeline = Timeline(start, deadline, selection_deadline, reveal)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    settings = new_settings(competition, str(solution), SubmissionLimits(per_day, total, rejected_per_hour),
                            timeline, selection_limit, ladder)
    db = create_store(store)
    write_settings(db, settings, now_utc())
    _echo({"store": str(store), **settings.to_dict()})


@server.command("select")
@STORE
@click.argument("submissions", nargs=-1, type=click.IntRange(min=1))
@click.option("--team", required=True, help="The team whose final selection this is.")
@time_option("--now", help="The time of the selection instead of the clock (replays, tests).")
def select(store: Path, submissions, team: str, now) -> None:
    """Record TEAM's final selection: up to the store's selection limit of its scored SUBMISSIONS (the numbers
    `agrieval grade` answered); none clears it (the best public ones count again). The latest counts."""
    from agrieval.scoring._server.intake import select as record
    from agrieval.scoring._server.settings import read_settings

    db = _open(store)
    _echo({**record(db, team, submissions, now=now), "timeline": read_settings(db).timeline.texts()})


@server.command("void")
@STORE
@click.option("--team", required=True, help="The team (alone: the whole team is disqualified).")
@click.option("--submission", type=click.IntRange(min=1), default=None, help="The team's submission number to void.")
@click.option("--reason", required=True, help="Why (kept in the store, audited; not published).")
def void(store: Path, team: str, submission, reason: str) -> None:
    """Void one submission (--team T --submission N) or a whole team (--team T): kept, shown as voided, never
    ranked."""
    from agrieval.scoring._server.intake import void_submission, void_team

    db = _open(store)
    _echo(void_team(db, team, reason) if submission is None else void_submission(db, team, submission, reason))


@server.command("rescore")
@STORE
@click.option("--confirm", is_flag=True, help="Publish the new scores (without it nothing a board shows changes).")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Worker processes [default: os.cpu_count()].")
def rescore(store: Path, confirm: bool, jobs) -> None:
    """Re-grade every stored upload with the installed scorer into a new score version; list every rank that
    would change; publish only with --confirm."""
    from agrieval.scoring._server.rescore import rescore as run
    from agrieval.scoring._server.settings import load_competition

    db = _open(store)
    _echo(run(db, load_competition(db), confirm=confirm, jobs=jobs))


@server.command("board")
@STORE
@click.option("--rule", type=click.Choice(["best", "last", "selected"]), required=True,
              help="Which submission of a team counts (see docs/own_server.md).")
@click.option("--reveal-private", is_flag=True, help="The private board (refused before the timeline's reveal).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write leaderboard.csv/.json/.md/.html there.")
@click.option("--overwrite", is_flag=True, help="Replace the files of an earlier board in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (rows: team, rank, voided, ...).")
def board(store: Path, rule: str, reveal_private: bool, out_dir, overwrite: bool, as_json: bool) -> None:
    """The per-team board of the store under RULE (the published scores; voided submissions never count)."""
    from agrieval.scoring._server.boards import board_json, store_board
    from agrieval.scoring._server.settings import load_definition_of
    from agrieval.scoring._server.team_board import OUTPUT_NAMES, to_markdown, write_team_board

    db = _open(store)
    definition, settings = load_definition_of(db)
    _reveal_allowed(settings, reveal_private)
    made = store_board(db, definition, rule, reveal_private=reveal_private)
    if out_dir is not None:
        _claim(out_dir, OUTPUT_NAMES, overwrite, db)
        write_team_board(made, out_dir)
    if as_json:
        _echo(board_json(made, settings.timeline.texts()))
    else:
        click.echo(one_line(f"timeline: {settings.timeline.describe()}"))
        click.echo(to_markdown(made))


def _reveal_allowed(settings, reveal_private: bool) -> None:
    reveal = settings.timeline.reveal
    if reveal_private and reveal is not None and now_utc() < reveal:
        raise CommandError("bad_option", f"the private board is revealed at {utc_text(reveal)}, not before")


def _claim(out_dir: Path, names, overwrite: bool, db) -> None:
    plan = OutputPlan(overwrite=overwrite, sources=[], inputs=[Path(db.path)])
    plan.claim_all([plan.claim_dir(out_dir, what="--out folder") / n for n in names], what="exported file")


@server.command("export")
@STORE
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for leaderboard.* and submissions.* (CSV, JSON, Markdown, HTML).")
@click.option("--rule", type=click.Choice(["best", "last", "selected"]), default="selected", show_default=True,
              help="The leaderboard's rule.")
@click.option("--reveal-private", is_flag=True, help="The private board (refused before the timeline's reveal).")
@click.option("--overwrite", is_flag=True, help="Replace the files of an earlier export.")
def export(store: Path, out_dir: Path, rule: str, reveal_private: bool, overwrite: bool) -> None:
    """Write what an organizer publishes: the board and every submission (team names neutralised in CSV,
    escaped in Markdown and HTML)."""
    from agrieval.scoring._server.export import OUTPUT_NAMES
    from agrieval.scoring._server.export import export as run
    from agrieval.scoring._server.settings import load_definition_of

    db = _open(store)
    definition, settings = load_definition_of(db)
    _reveal_allowed(settings, reveal_private)
    _claim(out_dir, OUTPUT_NAMES, overwrite, db)
    written = run(db, definition, out_dir, rule=rule, reveal_private=reveal_private)
    _echo({"written": [str(p) for p in written], "timeline": settings.timeline.texts()})


@server.command("import")
@STORE
@click.option("--log", "log", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The former submission log (`agrieval grade --log`).")
@click.option("--ladder-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="The folder of the teams' Ladder states (<team>.json).")
def import_(store: Path, log: Path, ladder_dir) -> None:
    """Bring a competition in flight into the store DB (made by `server init` with the same competition and
    solution, still empty): the log's rows, the uploads still on disk, the selections, the Ladder states."""
    from agrieval.scoring._server.migrate_log import import_log
    from agrieval.scoring._server.settings import load_definition_of

    db = _open(store)
    definition, _ = load_definition_of(db)
    _echo(import_log(db, log, ladder_dir, max_bytes=definition.limits.max_bytes))


document(server, {
    "": "agrieval server init comp.db -c plantclef2025 -s solution.csv --total 100 --deadline 2026-06-01T00:00:00Z",
    "init": "agrieval server init comp.db -c plantclef2025 -s solution.csv --per-day 5 --deadline 2026-06-01",
    "select": "agrieval server select comp.db --team team-a 3 7",
    "void": "agrieval server void comp.db --team team-a --submission 4 --reason 'shared account'",
    "rescore": "agrieval server rescore comp.db            # then --confirm to publish",
    "board": "agrieval server board comp.db --rule selected --json",
    "export": "agrieval server export comp.db --out public/",
    "import": "agrieval server import comp.db --log server/log.csv --ladder-dir server/ladder",
})
