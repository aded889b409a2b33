"""Participant messages that cannot reveal the public/private split.

Kaggle calls a metric once with the public rows and once with the private rows
(``docs/facts/platforms.md``). Whatever such a call says about rows — a line
number, a count of bad rows, an echoed cell, even *which* problem code fired —
tells the participant something about which of their rows that split holds: a
float planted on row 7 and an unknown species on row 9 would name the split of
each row through the code alone. So, for such platforms:

* problems of the header (``HEADER_CODES``) are kept: the header is the same in
  every call; their messages talk about column names only, and lose positions;
* every other problem becomes one constant ``rows_invalid`` message, which names
  no row, count, cell or code and points to the starting kit's ``validate.py`` (or ``agrieval validate``) for
  details;
* warnings are dropped (they are row-level too); metrics are kept.
"""

from __future__ import annotations

from dataclasses import replace

from .report import ReportProblem
from .result import GradeResult

HEADER_CODES = ("wrong_delimiter", "missing_column", "extra_column", "duplicate_column")

ROWS_INVALID_MESSAGE = (
    "at least one row of the submission breaks the competition's format; this grader never says which rows or "
    "why, since it is handed one part of the test set at a time: run `python validate.py SUBMISSION.csv` (the "
    "competition's data holds validate.py; Python and numpy are all it needs) or `agrieval validate "
    "SUBMISSION.csv --competition {competition}` locally to see every problem with its line and column")


def split_independent(result: GradeResult) -> GradeResult:
    """``result`` with participant-visible text that depends on nothing but the header."""
    header = sorted({(e.code, e.message) for e in result.errors if e.code in HEADER_CODES})
    errors = [ReportProblem(code=code, message=message) for code, message in header]
    if any(e.code not in HEADER_CODES for e in result.errors) and result.status == "rejected":
        errors.append(ReportProblem(code="rows_invalid",
                                    message=ROWS_INVALID_MESSAGE.format(competition=result.competition)))
    if result.status == "error":
        errors = list(result.errors)  # the generic host-failure message: already row-free
    return replace(result, report=replace(result.report, errors=errors, warnings=[], n_rows=0))
