"""``agrieval audit LOG --solution S --competition C``: which teams' public scores fitting the public
split explains better than selection does (an organizer's tool: its output is host-only)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.audit.submission_log import read_log, read_store
from agrieval.scoring.cli._failures import CommandError, error_line, refuse_input
from agrieval.scoring.cli._options import load_definition
from agrieval.scoring.cli.group import epilog
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular
from agrieval.scoring.text.terminal import one_line

# Imported inside functions, so that importing this module loads only what it needs: scoring.audit.audit_report (it
# loads numpy); scoring.audit.scored_log, scoring.runtime.warm (they load multiprocessing); scoring.server.settings,
# scoring.server.store (they load sqlite3).


@click.command(epilog=epilog(
    "agrieval audit submissions/log.csv -s solution.csv -c plantclef2025 --json",
    "Exit codes: 0 audited (flagged teams are a finding, not a failure); 1 the log was rejected (the message "
    "names its line and column); 2 usage error (missing file, unknown competition); 3 host-side problem (bad "
    "solution or definition, a metric that is not a mean over units)."))
@click.argument("log", metavar="LOG_OR_DB", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--solution", "-s", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Ground truth CSV with the public/private split column (not with a store: it has its own).")
@click.option("--competition", "-c", default=None, metavar="NAME_OR_TOML",
              help="A shipped competition or a TOML definition (not with a store: it has its own).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, nothing else.")
@click.option("--alpha", default=0.01, show_default=True, type=click.FloatRange(0.0001, 0.5),
              help="Level of Holm's correction across teams: a team is flagged when its adjusted p-value is at "
                   "most this.")
@click.option("--permutations", default=2000, show_default=True, type=click.IntRange(min=99),
              help="Re-drawn public/private splits of the permutation test (the smallest p-value is "
                   "1 / (1 + this)).")
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=10),
              help="Bootstrap resamples of the private units for the rank movement.")
@click.option("--near-duplicate-rows", default=None, type=click.IntRange(min=0),
              help="Consecutive submissions differing in at most this many rows are near duplicates "
                   "[default: 1% of the solution's rows].")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the permutations and resamples.")
def audit(log: Path, solution: Path, competition: str, as_json: bool, alpha: float, permutations: int,
          resamples: int, near_duplicate_rows: int | None, seed: int) -> None:
    """Audit a competition's submissions: per team, the public-private gap of its best public submission and
    a p-value for "this gap is larger than selecting among non-adaptive submissions explains".

    LOG_OR_DB is the own server's store (`agrieval server init`: its uploads, competition and solution are
    read from it) or a CSV with columns team,submitted_at,file (every submission the platform received; each file
    relative to the log's folder, submitted_at in ISO 8601). The public/private assignment is re-drawn
    --permutations times keeping its size and its groups; each team's best public submission and gap are
    recomputed on each, and the teams are flagged after Holm's correction at --alpha. Also reported: each
    team's private rank interval (bootstrap over private units) and runs of near-duplicate submissions.
    See docs/ladder.md.
    """
    from agrieval.scoring._server.settings import load_competition as load_stored
    from agrieval.scoring._server.store import open_store
    from agrieval.scoring.audit.audit_report import audit as run_audit
    from agrieval.scoring.audit.audit_report import to_text
    from agrieval.scoring.audit.scored_log import score_log
    from agrieval.scoring.runtime.warm import Grader

    if _is_store(log):
        if solution is not None or competition is not None:
            raise CommandError("bad_option", "a store has its own competition and solution: leave out -s and -c")
        store = open_store(log)
        stored = load_stored(store)  # the solution's fingerprint checked too: an edited truth is store_foreign
        definition, solution = stored.definition, Path(stored.settings.solution)
        entries = read_store(store, max_bytes=definition.limits.max_bytes)
    else:
        if solution is None or competition is None:
            raise click.UsageError("a CSV log needs --solution and --competition")
        definition = load_definition(competition)
        try:
            entries = read_log(log)
        except InputError as exc:
            refuse_input(exc, as_json)
    grader = Grader(solution, definition, reveal_private=True)
    progress = None if as_json else (lambda msg: click.echo(one_line(msg), err=True))
    scored = score_log(entries, grader, progress)
    if not scored.entries:
        click.echo(error_line("no_submissions", f"no submission of {log} could be scored"), err=True)
        raise SystemExit(1)
    result = run_audit(scored.values, scored.units, scored.split, [e.team for e in scored.entries],
                       [e.file for e in scored.entries], scored.keys, competition=definition.name,
                       metric=definition.primary_metric, unit=scored.unit, alpha=alpha, n_permutations=permutations,
                       seed=seed, n_resamples=resamples, near_duplicate_rows=near_duplicate_rows,
                       rejected=scored.rejected)
    click.echo(json.dumps(result.to_dict(), indent=2, allow_nan=False) if as_json else to_text(result))


def _is_store(path: Path) -> bool:
    """Whether ``path`` starts as an SQLite database does (the store), read through the opening rule."""
    try:
        with open_regular(path, max_bytes=1 << 62, what="audit log") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except (OSError, UntrustedFileError):
        return False
