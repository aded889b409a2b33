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

competition_option = click.option(
    "--competition", "-c", required=True, metavar="NAME_OR_TOML",
    help="A shipped competition (see `agrieval competitions`) or a path to your own TOML definition.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, nothing else.")


def load_definition(name: str) -> CompetitionDefinition:
    return contract.competition(name)


def load_solution_for(path, definition: CompetitionDefinition):
    """The solution, or a host error that says when the file belongs to another competition."""
    from scoring.runtime.reading.solution import load_solution

    try:
        return load_solution(path, definition)
    except HostError as exc:
        other = _competition_of_header(path, definition)
        if other is None:
            raise
        raise HostError(exc.code, _pair_message(path, other, definition)) from None


def check_solution_pair(path, definition: CompetitionDefinition) -> None:
    """Fail when the solution's header is another shipped competition's (a wrong --solution/--competition pair)."""
    other = _competition_of_header(path, definition)
    if other is not None:
        raise HostError("solution_invalid", _pair_message(path, other, definition))


def _pair_message(path, other: str, definition: CompetitionDefinition) -> str:
    columns = contract.competition(other).expected_columns
    return (f"{path} looks like a solution of {other!r} (its header has {', '.join(columns)}), not of "
            f"{definition.name!r} (which needs {', '.join(definition.expected_columns)}): check --competition "
            f"and --solution")


def _competition_of_header(path, definition: CompetitionDefinition) -> str | None:
    """The shipped competition whose id and prediction columns the file's header holds, if not ``definition``'s."""
    from scoring.authoring.definitions import available_competitions

    try:
        with open(path, "rb") as f:
            head = f.readline(65536).decode("utf-8-sig", "replace").strip()
    except OSError:
        return None
    for name in available_competitions():
        if name == definition.name:
            continue
        other = contract.competition(name)
        cells = [c.strip().strip('"') for c in head.split(other.delimiter)]
        if other.id_column in cells and other.prediction_column in cells:
            if definition.id_column not in cells or definition.prediction_column not in cells:
                return name
    return None


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
        if as_json and not isinstance(exc, (click.UsageError, BrokenPipeError)):
            _json_failure(competition, getattr(exc, "code", "internal_error"), str(exc))
        code = contract.report(exc, "agrieval")
    sys.exit(code)


def _json_failure(competition: str, code: str, message: str) -> None:
    from scoring.runtime.report import SCHEMA_VERSION

    try:
        click.echo(json.dumps({"schema_version": SCHEMA_VERSION, "competition": competition, "status": "error",
                               "n_rows": 0, "metrics": {"public": {}}, "warnings": [],
                               "errors": [{"code": code, "message": message}]}, indent=2))
    except BrokenPipeError:
        pass
