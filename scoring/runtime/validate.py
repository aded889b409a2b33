"""Validate a submission before upload: format checks always, id checks given the test ids.

The ids are checked even when rows have problems, so that one run names every problem: a participant
fixes the file in one round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ._matching import id_problems_beside, in_report_order
from .definition import CompetitionDefinition
from .problems import Problem
from .reading._uploads import unpack
from .reading.solution import Solution
from .reading.submission import read_submission


def validate_file(path: str | Path | bytes, definition: CompetitionDefinition, solution: Solution | None = None,
                  *, filename: str | None = None, test_ids: Sequence[str] | None = None) -> list[Problem]:
    """Every problem of an upload (a CSV, a zip holding one, a folder holding one), as ``grade`` would find
    them, and the missing and unknown ids when the test ids are known (``solution``, or ``test_ids``: the
    sample submission's ids, ``reading.id_list``)."""
    problems, _ = validate_and_say(path, definition, solution, filename=filename, test_ids=test_ids)
    return problems


def validate_and_say(path: str | Path | bytes, definition: CompetitionDefinition, solution: Solution | None = None,
                     *, filename: str | None = None,
                     test_ids: Sequence[str] | None = None) -> tuple[list[Problem], bool]:
    """``validate_file``'s problems, and whether the ids were checked (False when no test ids were given or
    the rows could not be read)."""
    upload = unpack(path, definition.limits, filename=filename)
    if not upload.ok:
        return upload.problems, False
    sub = read_submission(upload.data, definition, filename=upload.filename)
    problems = list(upload.problems) + list(sub.problems)
    if solution is not None:
        test_ids = solution.ids
    if test_ids is None or not (sub.n_rows or sub.unread_ids):
        return problems, False
    file = problems[0].file if problems else (upload.filename or filename or (
        Path(path).name if not isinstance(path, bytes) else None))
    return in_report_order(problems + id_problems_beside(sub, test_ids, file)), True
