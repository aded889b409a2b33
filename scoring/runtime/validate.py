"""Validate a submission before upload: format checks always, id checks when a solution is given."""

from __future__ import annotations

from pathlib import Path

from .definition import CompetitionDefinition
from .matching import align
from .problems import Problem, ProblemLog
from .reading.solution import Solution
from .reading.submission import read_submission
from .reading.uploads import unpack


def validate_file(path: str | Path | bytes, definition: CompetitionDefinition, solution: Solution | None = None,
                  *, filename: str | None = None) -> list[Problem]:
    """Every problem of an upload (a CSV, a zip holding one, a folder holding one), as ``grade`` would find them."""
    upload = unpack(path, definition.limits, filename=filename)
    if not upload.ok:
        return upload.problems
    sub = read_submission(upload.data, definition, filename=upload.filename)
    problems = list(upload.problems) + list(sub.problems)
    if solution is not None and sub.ok:
        log = ProblemLog(file=problems[0].file if problems else (filename or (
            Path(path).name if not isinstance(path, bytes) else None)))
        align(sub, solution, log)
        problems += log.finish()
    return problems
