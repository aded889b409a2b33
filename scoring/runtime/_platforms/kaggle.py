"""Kaggle community metric: ``score(solution, submission, row_id_column_name) -> float``.

Calling convention followed (Kaggle's metric template, "Your metric must
satisfy the following constraints"): a function named ``score`` whose first
three arguments are ``solution`` and ``submission`` as pandas DataFrames and
``row_id_column_name``; extra arguments are allowed if type-annotated; it
returns one finite float; a problem the participant may read is raised as
``ParticipantVisibleError``, anything else stays host-visible. Kaggle calls the
metric once on the public rows and once on the private rows, and normally
strips the ``Usage`` column first; when ``Usage`` is still there, ``Ignored``
rows are not scored and every other row is scored as one split.

How to use it: ``agrieval bundle kaggle`` writes one file holding this runtime and the frozen
definition, whose ``score(solution, submission, row_id_column_name)`` calls this one.

Both frames go through the same strict reader as every other hook: the
submission frame is written back to CSV text in the competition's dialect
and graded by ``guard.grade`` with ``split_safe=True``: Kaggle hands over one
split at a time, so no message may depend on the rows a call holds
(``split_safe.py``).
"""

# No ``from __future__ import annotations``: Kaggle inspects ``score``'s annotations and wants real types.
import csv
import functools
import io
import math
from typing import Union

import pandas as pd

from .._split_safe import ROWS_INVALID_MESSAGE
from ..definition import CompetitionDefinition, load_definition
from ..guard import grade
from ..problems import HostError
from ..reading.solution import load_solution

DEFAULT_COMPETITION = "plantclef2025"
# More columns than this is refused before the frame is converted (a 20,000-column frame costs minutes).
MAX_COLUMNS = 64


class ParticipantVisibleError(Exception):
    """Kaggle shows this exception's message to the participant; every other exception stays hidden."""


def score(solution: pd.DataFrame, submission: pd.DataFrame, row_id_column_name: str,
          competition: Union[str, CompetitionDefinition] = DEFAULT_COMPETITION) -> float:
    """The competition's primary metric of ``submission`` on the rows of ``solution``.

    Raises ``ParticipantVisibleError`` for a rejected submission (the message is
    participant-safe) and ``HostError`` for a host-side problem (bad solution,
    wrong ``row_id_column_name``, unknown competition).
    """
    definition = competition if isinstance(competition, CompetitionDefinition) else _definition(competition)
    if row_id_column_name != definition.id_column:
        raise HostError("definition_invalid", f"row_id_column_name {row_id_column_name!r} is not the id column "
                        f"{definition.id_column!r} of competition {definition.name!r}")
    if solution.empty:
        raise HostError("solution_invalid", "the solution frame has no row")
    _check_shape(submission, definition)
    sol = load_solution(_solution_csv(solution, definition), definition)
    result = grade(_frame_csv(submission, definition), sol, definition, filename="submission.csv", split_safe=True)
    if result.status == "rejected":
        raise ParticipantVisibleError(result.participant_message())
    if result.status == "error":
        diag = "; ".join(d.message for d in result.host.diagnostics)
        raise HostError(result.host.diagnostics[0].code if result.host.diagnostics else "internal_error", diag)
    value = result.metrics.public[definition.primary_metric]
    if not math.isfinite(value):
        raise HostError("internal_error", f"the metric is not finite ({value})")
    return float(value)


@functools.lru_cache(maxsize=8)
def _definition(competition: str) -> CompetitionDefinition:
    return load_definition(competition)


def _check_shape(frame: pd.DataFrame, definition: CompetitionDefinition) -> None:
    """Refuse what the limits refuse before converting the frame (its shape is all that is looked at)."""
    if not isinstance(frame, pd.DataFrame):
        raise ParticipantVisibleError(f"the submission must be a table, got {type(frame).__name__}")
    n_rows, n_cols = frame.shape
    if n_cols > MAX_COLUMNS:
        raise ParticipantVisibleError(f"error [extra_column] the submission has {n_cols:,} columns; it must have exactly "
                                      f"{', '.join(definition.expected_columns)}")
    if n_rows > definition.limits.max_rows:
        raise ParticipantVisibleError("error [rows_invalid] " + ROWS_INVALID_MESSAGE.format(competition=definition.name))


def _solution_csv(frame: pd.DataFrame, definition: CompetitionDefinition) -> bytes:
    """The solution frame with every non-ignored row in one split: the one Kaggle is scoring now.

    ``Ignored`` rows stay: the submission must still have them (Kaggle checks every test id), they are
    just not scored.
    """
    frame = frame.copy()
    spec = definition.split
    usage = frame[spec.column].astype(str) if spec.column in frame.columns else None
    frame[spec.column] = spec.public
    if usage is not None and spec.ignored is not None:
        frame.loc[usage == spec.ignored, spec.column] = spec.ignored
    return _frame_csv(frame, definition)


def _frame_csv(frame: pd.DataFrame, definition: CompetitionDefinition) -> bytes:
    """The frame as the CSV text a participant would have uploaded, in the competition's dialect.

    Every cell is written as it reads (``str``), missing cells as empty fields,
    so the strict reader judges the values, not pandas: a float id stays
    ``1.0``, a NaN label stays empty and is reported as missing.
    """
    text = frame.astype(object).where(frame.notna(), "").astype(str)
    text.columns = [str(c) for c in text.columns]
    buf = io.StringIO()
    text.to_csv(buf, index=False, sep=definition.delimiter, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    return buf.getvalue().encode("utf-8", errors="surrogatepass")
