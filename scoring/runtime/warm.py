"""Warm grading: load a competition and its solution once, then score many submissions.

For leaderboards and for grading servers that keep a process alive. Each
submission then costs only its own reading, checks and metrics: the definition
(vocabulary lookup), the solution (ids, labels, splits, transect codes) and the
imports are paid once. The verdicts are the one-shot path's by construction:
``Grader.score`` runs ``scorer._read_upload`` and ``scorer._score_aligned``, the
two steps of ``scorer.score_file``, and ``Grader.grade`` is ``guard.grade``
with the loaded objects.

Limits: like ``grade``, ``evaluate`` and ``score`` read and score each upload
in a child process (forked: the loaded solution is shared, not copied) killed
past ``limits.max_seconds`` and capped at ``limits.max_memory_mb`` more
memory; an upload over a limit is refused with ``time_limit_exceeded`` or
``memory_limit_exceeded`` and the caller's process is untouched. A warm
process is exactly what a grading server or a leaderboard of other people's
files keeps alive, so this is the default; ``limits=False`` reads in the
caller's process (trusted files, or a caller with limits of its own).

    grader = Grader("solution.csv", "plantclef2025", reveal_private=True)
    for path in sorted(folder.glob("*.csv")):
        report = grader.score(path)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import numpy as np

from ._time_limit import run_with_time_limit
from .definition import CompetitionDefinition, load_definition
from .guard import grade, limit_breach, over_limit_problem, problems_near_the_start
from .problems import HostError
from .reading.solution import Solution, load_solution
from .reading.submission import Submission
from .report import ScoreReport
from .result import GradeResult
from .scorer import _read_upload, _score_aligned, prepare

_SOLUTION_IDS = "solution ids"  # stands for the solution's CheckedIds in a child's answer (sent back, not copied)


@dataclass
class _Graded:
    """One scored (or rejected) upload, with what a leaderboard needs beyond the report."""
    report: ScoreReport
    submission: Optional[Submission]  # None when the upload itself was refused (size, zip, several files...)
    order: Optional[np.ndarray]  # the submission row of each solution row; None unless scored


class Grader:
    """A competition definition and its solution, loaded once; ``score`` and ``grade`` any number of uploads.

    ``solution``: a path, the CSV's bytes, or an already loaded ``Solution``;
    ``competition``: a shipped name, a frozen JSON path, or a ``CompetitionDefinition``.
    A problem with either raises ``HostError`` here, once, instead of on every submission.
    """

    def __init__(self, solution: Union[str, Path, bytes, Solution],
                 competition: Union[str, Path, CompetitionDefinition], *, reveal_private: bool = False,
                 limits: bool = True):
        self.definition = load_definition(competition)
        self.solution = solution if isinstance(solution, Solution) else load_solution(solution, self.definition)
        self.reveal_private = reveal_private
        self.limits = limits
        # the caches every submission reads, filled now rather than by the first submission
        self.definition.int_label_lookup
        self.definition.int_label_codes
        self.solution.group_codes
        prepare(self.solution, self.definition, reveal_private=reveal_private)  # split rows, metrics' true side

    def evaluate(self, submission: Union[str, Path, bytes], *, filename: Optional[str] = None) -> _Graded:
        """Score one upload (a CSV, a zip holding one, a folder holding one, or bytes): the report and the rows.

        Under the competition's time and memory limits unless ``limits=False`` (module docstring).
        """
        if not self.limits:
            return self._evaluate(submission, filename)
        limits = self.definition.limits
        outcome = run_with_time_limit(_evaluate_in_child, (self, submission, filename), seconds=limits.max_seconds,
                                      memory_bytes=limits.max_memory_mb * 2**20)
        breach = limit_breach(outcome, self.definition)
        if breach is not None:
            errors = [over_limit_problem(*breach)]
            if outcome.kind == "timeout":
                errors.extend(problems_near_the_start(submission, self.definition, filename))
            return _Graded(ScoreReport(competition=self.definition.name, status="rejected",
                                      primary_metric=self.definition.primary_metric, errors=errors), None, None)
        if outcome.kind == "raised" and outcome.error_type == "HostError":
            raise HostError(outcome.value["code"] or "internal_error", outcome.value["message"])
        if outcome.kind != "ok":
            raise HostError("internal_error", f"grading {filename or submission!r} failed: {outcome.error_type}: "
                            f"{outcome.error_text}")
        graded = outcome.value
        if graded.submission is not None and graded.submission.id_order is not None \
                and isinstance(graded.submission.id_order[0], str):
            graded.submission.id_order = (self.solution.checked_ids, graded.submission.id_order[1])
        return graded

    def _evaluate(self, submission: Union[str, Path, bytes], filename: Optional[str]) -> _Graded:
        sub, refused = _read_upload(submission, self.solution.checked_ids, self.definition, filename=filename)
        if refused is not None:
            return _Graded(refused, None, None)
        report, order = _score_aligned(sub, self.solution, self.definition, reveal_private=self.reveal_private)
        return _Graded(report, sub, order)

    def score(self, submission: Union[str, Path, bytes], *, filename: Optional[str] = None) -> ScoreReport:
        """What ``scorer.score_file`` returns for this upload."""
        return self.evaluate(submission, filename=filename).report

    def grade(self, submission: Union[str, Path, bytes], *, filename: Optional[str] = None,
              split_safe: bool = False, ladder: Optional[Union[str, Path]] = None) -> GradeResult:
        """What ``guard.grade`` returns for this upload: read and scored in a child process under the limits.
        ``ladder``: the team's Ladder state file (``ladder.py``), as ``agrieval grade --ladder``."""
        return grade(submission, self.solution, self.definition, reveal_private=self.reveal_private,
                     filename=filename, split_safe=split_safe, ladder=ladder)


def _evaluate_in_child(grader: Grader, submission: Union[str, Path, bytes], filename: Optional[str]) -> _Graded:
    """Runs in the child: ``Grader._evaluate``, the solution's own ids replaced by a marker for the way back."""
    graded = grader._evaluate(submission, filename)
    sub = graded.submission
    if sub is not None and sub.id_order is not None and sub.id_order[0] is grader.solution.checked_ids:
        sub.id_order = (_SOLUTION_IDS, sub.id_order[1])
    return graded
