"""Options and exit handling shared by the commands that read a submission (``score``, ``validate``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import click

from agrieval.scoring.cli import errors
from agrieval.scoring.cli.competition_option import competition_option, load_definition  # noqa: F401 (the commands import them from here)
from agrieval.scoring.cli.exit_codes import EXIT_HOST, EXIT_OK, EXIT_REJECTED, EXIT_USAGE  # noqa: F401 (likewise)
from agrieval.scoring.cli.solution_pair import check_solution_pair, load_solution_for  # noqa: F401 (likewise)
from agrieval.scoring.cli.stdout import emit
from agrieval.scoring.runtime.whole_writes import OutputIncomplete

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, nothing else.")


def run_guarded(competition: str, as_json: bool, body: Callable[[], int]) -> None:
    """Run ``body`` (it returns the exit code) under the contract; ``--json`` still gets one JSON object.

    stdout is held until ``body`` has decided (``stdout.emit``), then written whole or the run fails (exit 3).
    """
    try:
        code = emit(body)
    except (click.exceptions.Exit, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001
        code = failed(competition, as_json, exc)
    sys.exit(code)


def failed(competition: str, as_json: bool, exc: BaseException) -> int:
    """What ``run_guarded`` does when ``body`` raised: the JSON object (with ``--json``; not where stdout is what
    failed), the error line, the exit code."""
    if as_json and not isinstance(exc, (click.UsageError, OutputIncomplete)):
        _json_failure(competition, getattr(exc, "code", "internal_error"), str(exc))
    return errors.report(exc, "agrieval")


def _json_failure(competition: str, code: str, message: str) -> None:
    from agrieval.scoring.runtime.report import SCHEMA_VERSION

    click.echo(json.dumps({"schema_version": SCHEMA_VERSION, "competition": competition, "status": "error",
                           "n_rows": 0, "metrics": {"public": {}}, "warnings": [],
                           "errors": [{"code": code, "message": message}]}, indent=2))
