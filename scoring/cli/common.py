"""Options and exit handling shared by the commands that read a submission."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable

import click

from scoring.authoring.definitions import load_competition
from scoring.runtime.definition import CompetitionDefinition
from scoring.runtime.problems import HostError

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_HOST = 0, 1, 2, 3

competition_option = click.option(
    "--competition", "-c", required=True, metavar="NAME_OR_TOML",
    help="A shipped competition (see `agrieval competitions`) or a path to your own TOML definition.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout, nothing else.")


def load_definition(name: str) -> CompetitionDefinition:
    return load_competition(name)


def run_guarded(competition: str, as_json: bool, body: Callable[[], int]) -> None:
    """Run ``body``; map host-side problems and crashes to exit code 3 with one JSON object if asked."""
    try:
        code = body()
    except HostError as exc:
        _host_failure(competition, as_json, exc.code, str(exc))
        code = EXIT_HOST
    except click.exceptions.Exit:
        raise
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_OK)
    except Exception as exc:  # an internal error must still produce the promised output
        _host_failure(competition, as_json, "internal_error", f"internal error: {type(exc).__name__}: {exc}")
        traceback.print_exc(file=sys.stderr)
        code = EXIT_HOST
    sys.exit(code)


def _host_failure(competition: str, as_json: bool, code: str, message: str) -> None:
    if as_json:
        from scoring.runtime.report import SCHEMA_VERSION

        click.echo(json.dumps({"schema_version": SCHEMA_VERSION, "competition": competition, "status": "error",
                               "n_rows": 0, "metrics": {"public": {}}, "warnings": [],
                               "errors": [{"code": code, "message": message}]}, indent=2))
    click.echo(f"error [{code}] {message}", err=True)
