"""``agrieval validate``: check a file before upload and list every problem."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agrieval.scoring.cli._failures import EXIT_OK, EXIT_REJECTED
from agrieval.scoring.cli._options import competition_option, json_option, load_definition
from agrieval.scoring.cli._options import load_solution_for as load_solution
from agrieval.scoring.cli._output import held
from agrieval.scoring.cli.group import epilog
from agrieval.scoring.runtime.report import SCHEMA_VERSION, ReportProblem
from agrieval.scoring.text.terminal import one_line

# Imported inside functions, so that importing this module loads only what it needs: scoring.runtime.validate,
# scoring.runtime.reading.id_list (they load numpy).


@click.command(epilog=epilog("agrieval validate reference_submissions/plantclef2025/submissions/malformed/float_labels.csv -c plantclef2025", 'Exit codes: 0 valid; 1 invalid (every problem listed, with file, line and column); 2 usage error (bad option, missing file, unknown competition); 3 host-side problem (bad --solution or definition, internal error).'))
@click.argument("submission", type=click.Path(exists=True, path_type=Path))
@competition_option
@click.option("--solution", "-s", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="With a solution, also check that the ids match the test set.")
@click.option("--ids", "ids_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Check the ids without the solution: the organizers' sample submission (a CSV with the id "
                   "column) or a list of the test ids, one per line.")
@json_option()
@held
def validate(submission: Path, competition: str, solution: Path | None, ids_file: Path | None,
             as_json: bool) -> int:
    """Check SUBMISSION's format (and its ids, given --solution or --ids) and list every problem."""
    from agrieval.scoring.runtime.validate import validate_and_say

    if solution and ids_file:
        raise click.UsageError("give --solution or --ids, not both")
    definition = load_definition(competition)
    sol = load_solution(solution, definition) if solution else None
    test_ids = _read_ids(ids_file, definition) if ids_file else None
    problems, ids_checked = validate_and_say(submission, definition, sol, test_ids=test_ids)
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity == "warning"]
    if as_json:
        click.echo(json.dumps({
            "schema_version": SCHEMA_VERSION, "competition": definition.name,
            "status": "rejected" if errors else "valid",
            "errors": [ReportProblem.of(p).to_dict() for p in errors],
            "warnings": [ReportProblem.of(p).to_dict() for p in warnings]}, indent=2))
    else:
        for p in problems:
            click.echo(one_line(p.render()))  # the file name is the participant's: one line
        name = one_line(submission.name)
        if (solution or ids_file) and not ids_checked:
            click.echo(f"{name}: ids not checked: no row could be read")
        verdict = (f"{name}: INVALID ({len(errors)} error(s), {len(warnings)} warning(s))" if errors
                   else f"{name}: valid for {definition.name} ({len(warnings)} warning(s))")
        if not (solution or ids_file):
            verdict += f"; {IDS_NOT_CHECKED}"
        click.echo(verdict)
    return EXIT_REJECTED if errors else EXIT_OK


# Said in the verdict when no test ids were given: a file missing ids is otherwise "valid" here and refused
# by the grader, a second round for the participant.
IDS_NOT_CHECKED = ("ids not checked: add --ids sample_submission.csv (the organizers' sample submission, or a list "
                   "of the test ids) to check that every test id is there and no other")


def _read_ids(path: Path, definition) -> list[str]:
    from agrieval.scoring.runtime.reading.id_list import IdListError, read_id_list

    try:
        return read_id_list(path, definition)
    except IdListError as exc:
        raise click.BadParameter(str(exc), param_hint="'--ids'") from None
