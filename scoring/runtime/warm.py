"""Warm grading: load a competition and its solution once, then score many submissions.

For leaderboards and for grading servers that keep a process alive. Each
submission then costs only its own reading, checks and metrics: the definition
(vocabulary lookup), the solution (ids, labels, splits, transect codes) and the
imports are paid once. The verdicts are the one-shot path's by construction:
``Grader.score`` runs ``scorer.read_upload`` and ``scorer.score_aligned``, the
two steps of ``scorer.score_file``, and ``Grader.grade`` is ``guard.grade``
with the loaded objects (time and memory limits included).

    grader = Grader("solution.csv", "plantclef2025", reveal_private=True)
    for path in sorted(folder.glob("*.csv")):
        report = grader.score(path)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .definition import CompetitionDefinition, load_definition
from .guard import grade
from .reading.solution import Solution, load_solution
from .reading.submission import Submission
from .report import ScoreReport
from .result import GradeResult
from .scorer import read_upload, score_aligned


@dataclass
class Graded:
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
                 competition: Union[str, Path, CompetitionDefinition], *, reveal_private: bool = False):
        self.definition = load_definition(competition)
        self.solution = solution if isinstance(solution, Solution) else load_solution(solution, self.definition)
        self.reveal_private = reveal_private
        # the caches every submission reads, filled now rather than by the first submission
        self.definition.int_label_lookup
        self.definition.int_label_codes
        self.solution.group_codes

    def evaluate(self, submission: Union[str, Path, bytes], *, filename: Optional[str] = None) -> Graded:
        """Score one upload (a CSV, a zip holding one, a folder holding one, or bytes): the report and the rows."""
        sub, refused = read_upload(submission, self.solution, self.definition, filename=filename)
        if refused is not None:
            return Graded(refused, None, None)
        report, order = score_aligned(sub, self.solution, self.definition, reveal_private=self.reveal_private)
        return Graded(report, sub, order)

    def score(self, submission: Union[str, Path, bytes], *, filename: Optional[str] = None) -> ScoreReport:
        """What ``scorer.score_file`` returns for this upload."""
        return self.evaluate(submission, filename=filename).report

    def grade(self, submission: Union[str, Path, bytes], *, filename: Optional[str] = None,
              split_safe: bool = False) -> GradeResult:
        """What ``guard.grade`` returns for this upload: read and scored in a child process under the limits."""
        return grade(submission, self.solution, self.definition, reveal_private=self.reveal_private,
                     filename=filename, split_safe=split_safe)
