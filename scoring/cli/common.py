"""Options and exit handling shared by the commands that read a submission."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import click

from scoring.cli import contract
from scoring.runtime.definition import CompetitionDefinition
from scoring.runtime.problems import HostError
from scoring.cli.contract import EXIT_HOST, EXIT_OK, EXIT_REJECTED, EXIT_USAGE  # noqa: F401 (the commands import them from here)
from scoring.cli.solution_pair import check_solution_pair, load_solution_for  # noqa: F401 (likewise)

competition_option = click.option(
    "--competition", "-c", required=True, metavar="NAME_OR_TOML",
    help="A shipped competition (see `agrieval competitions`) or a path to your own TOML definition.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, nothing else.")


def load_definition(name: str) -> CompetitionDefinition:
    return contract.competition(name)


def run_guarded(competition: str, as_json: bool, body: Callable[[], int]) -> None:
    """Run ``body`` (it returns the exit code) under the contract; ``--json`` still gets one JSON object.

    stdout is held until ``body`` has decided (``contract.emit``), so a reader that
    goes away early (``| head -1``) never turns a rejection into exit code 0.
    """
    try:
        code = contract.emit(body)
    except (click.exceptions.Exit, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001
        code = failed(competition, as_json, exc)
    sys.exit(code)


def failed(competition: str, as_json: bool, exc: BaseException) -> int:
    """What ``run_guarded`` does when ``body`` raised: the JSON object (with ``--json``), the error line, the
    exit code."""
    if as_json and not isinstance(exc, (click.UsageError, BrokenPipeError)):
        _json_failure(competition, getattr(exc, "code", "internal_error"), str(exc))
    return contract.report(exc, "agrieval")


def _json_failure(competition: str, code: str, message: str) -> None:
    from scoring.runtime.report import SCHEMA_VERSION

    try:
        click.echo(json.dumps({"schema_version": SCHEMA_VERSION, "competition": competition, "status": "error",
                               "n_rows": 0, "metrics": {"public": {}}, "warnings": [],
                               "errors": [{"code": code, "message": message}]}, indent=2))
    except BrokenPipeError:
        pass
