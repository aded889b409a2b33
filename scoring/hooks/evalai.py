"""EvalAI evaluation script: ``evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs)``.

Convention followed (EvalAI docs, "Writing an Evaluation Script", and the
EvalAI-Starters ``evaluation_script/main.py``): the worker imports
``evaluate`` from the challenge's ``evaluation_script`` package and calls it
with local paths and the phase's codename; it returns
``{"result": [{<split codename>: {<metric>: value}}, ...], "submission_result": ...}``
and "if there is a problem with the submission, raise an Exception with an
appropriate message" (the worker shows it in the submission's stderr).

The phase -> split mapping comes from the competition definition
(``[split] phases = { dev = "public", test = "private" }``). A phase mapped to
``public`` returns the ``public`` split; a phase mapped to ``private`` returns
``public`` and ``private`` (EvalAI hides a split's leaderboard until the host
makes it public). Name the dataset splits ``public`` and ``private`` in
``challenge_config.yaml``.

In ``evaluation_script/main.py``::

    from scoring.hooks.evalai import make_evaluate
    evaluate = make_evaluate("plantclef2025")     # or a path to your TOML
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from scoring.hooks.guard import grade
from scoring.hooks.result import SubmissionRejected  # noqa: F401  (part of this hook's API)
from scoring.problems import HostError


def make_evaluate(competition: str | Path) -> Callable[..., dict]:
    """An ``evaluate`` bound to one competition definition."""

    def evaluate(test_annotation_file: str, user_submission_file: str, phase_codename: str, **kwargs) -> dict:
        return _evaluate(competition, test_annotation_file, user_submission_file, phase_codename)

    evaluate.__doc__ = f"EvalAI evaluate() for competition {str(competition)!r}."
    return evaluate


def evaluate(test_annotation_file: str, user_submission_file: str, phase_codename: str, **kwargs) -> dict:
    """EvalAI entry point for the competition named by ``$AGRIEVAL_COMPETITION`` (or a ``competition`` kwarg)."""
    competition = kwargs.get("competition") or os.environ.get("AGRIEVAL_COMPETITION")
    if not competition:
        raise HostError("definition_invalid", "set AGRIEVAL_COMPETITION or use make_evaluate(<competition>)")
    return _evaluate(competition, test_annotation_file, user_submission_file, phase_codename)


def _evaluate(competition: str | Path, annotations: str, submission: str, phase: str) -> dict:
    from scoring.definition import load_competition

    definition = load_competition(competition)
    phases = definition.split.phases
    if phase not in phases:
        raise HostError("definition_invalid", f"phase codename {phase!r} has no split in {definition.name}'s "
                        f"[split] phases ({', '.join(sorted(phases)) or 'none declared'})")
    split = phases[phase]
    result = grade(submission, annotations, definition, reveal_private=(split == "private"))
    result.raise_unless_scored()
    splits = [{"public": result.metrics.public}]
    if split == "private":
        splits.append({"private": result.metrics.private or {}})
    return {"result": splits, "submission_result": splits[-1][split]}
