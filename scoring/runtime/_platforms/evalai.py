"""EvalAI evaluation script: ``evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs)``.

What the worker does (``docs/facts/platforms.md``, read from Cloud-CV/EvalAI
``scripts/workers/submission_worker.py``): it unzips ``evaluation_script.zip``,
pip-installs its ``requirements.txt``, imports the package (``__init__.py``
does ``from .main import evaluate``) and calls ``evaluate`` with stdout and
stderr going to the submission's log files. ``result`` is a list of
``{split_codename: {metric: value}}``, each codename linked to the phase in
``challenge_config.yaml``; ``submission_result`` is saved as the participant's
"Result file", so it holds the public split only. An exception fails the
submission and its traceback is appended to the participant's stderr.

So: the phase -> split mapping comes from the definition (``[split] phases``);
a ``public`` phase returns the ``public`` split, a ``private`` phase both
(EvalAI keeps the private leaderboard host-only until the host publishes it).
A rejection first prints the participant-safe message to stderr, then raises
with as few frames as possible; a host-side failure says it is not the
participant's fault and names only the problem's code.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..definition import CompetitionDefinition, load_definition
from ..guard import grade
from ..problems import HostError
from ..result import HOST_FAILURE_LINE, SubmissionRejected


def make_evaluate(competition: str | Path | CompetitionDefinition):
    """An ``evaluate`` bound to one competition definition (a frozen ``.json`` path or a shipped name)."""

    def evaluate(test_annotation_file: str, user_submission_file: str, phase_codename: str, **kwargs) -> dict:
        return evaluate_files(competition, test_annotation_file, user_submission_file, phase_codename)

    evaluate.__doc__ = f"EvalAI evaluate() for competition {str(competition)!r}."
    return evaluate


def evaluate_files(competition: str | Path | CompetitionDefinition, annotations: str, submission: str,
                   phase: str) -> dict:
    definition = load_definition(competition)
    phases = definition.split.phases
    if phase not in phases:
        print(f"{HOST_FAILURE_LINE}: [definition_invalid]", file=sys.stderr)
        raise HostError("definition_invalid", f"phase codename {phase!r} has no split in {definition.name}'s "
                        f"[split] phases ({', '.join(sorted(phases)) or 'none declared'})")
    split = phases[phase]
    result = grade(submission, annotations, definition, reveal_private=(split == "private"))
    if result.status == "rejected":
        message = result.participant_message()
        print(message, file=sys.stderr)
        raise SubmissionRejected(message) from None
    if result.status == "error":
        codes = ", ".join(d.code for d in result.host.diagnostics) or "internal_error"
        print(f"{HOST_FAILURE_LINE}: [{codes}]", file=sys.stderr)
        raise HostError(codes.split(", ")[0], f"host-side problem [{codes}]; run `agrieval grade` with the same "
                        "files to see its cause") from None
    splits = [{"public": dict(result.metrics.public)}]
    if split == "private":
        splits.append({"private": dict(result.metrics.private or {})})
    return {"result": splits, "submission_result": {"public": dict(result.metrics.public)}}
