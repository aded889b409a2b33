"""Hugging Face ``competitions`` custom metric: ``compute(params) -> {"public_score": {...}, "private_score": {...}}``.

Convention followed (huggingface/competitions ``compute_metrics.py`` and
``params.py``): with ``metric = "custom"`` the platform imports ``metric.py``
from the competition repository and calls ``compute(params)``, where
``params`` is an ``EvalParams`` (competition_id, competition_type, metric,
token, team_id, submission_id, submission_id_col, submission_cols,
submission_rows, output_path, submission_repo, time_limit, and in some
versions dataset and submission_filename). The solution is ``solution.csv``
with a ``split`` column (``public``/``private``); a submission is
``submissions/{team_id}-{submission_id}.csv`` in the competition repository
(or ``submission.csv`` in ``output_path`` for script competitions). Both
returned dicts must have the same keys.

The platform's own metric downloads those files with ``hf_hub_download``;
this one reads local paths only (no network, no token): ``competition_id``
must be a local folder holding the competition repository (e.g. from
``huggingface-cli download <id> --repo-type dataset --local-dir DIR``).

In the competition repository's ``metric.py``::

    from scoring.hooks.hf_competitions import make_compute
    compute = make_compute("plantclef2024")
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scoring.hooks.guard import grade
from scoring.hooks.result import SubmissionRejected  # noqa: F401  (part of this hook's API)
from scoring.problems import HostError


def make_compute(competition: str | Path) -> Callable[[Any], dict]:
    def compute(params: Any) -> dict:
        return _compute(competition, params)

    compute.__doc__ = f"Hugging Face competitions compute() for competition {str(competition)!r}."
    return compute


def compute(params: Any) -> dict:
    """Entry point for the competition named by ``$AGRIEVAL_COMPETITION``."""
    competition = os.environ.get("AGRIEVAL_COMPETITION")
    if not competition:
        raise HostError("definition_invalid", "set AGRIEVAL_COMPETITION or use make_compute(<competition>)")
    return _compute(competition, params)


def _param(params: Any, name: str, default: Any = None) -> Any:
    if isinstance(params, dict):
        return params.get(name, default)
    return getattr(params, name, default)


def local_paths(params: Any) -> tuple[Path, Path]:
    """(solution, submission) on local disk, where the platform would have downloaded them."""
    repo = Path(str(_param(params, "competition_id", "")))
    if not repo.is_dir():
        raise HostError("internal_error", f"competition_id {str(repo)!r} is not a local folder; this metric reads "
                        "local files only: download the competition repository and pass its folder")
    solution = repo / "solution.csv"
    filename = _param(params, "submission_filename")
    if filename:
        submission = Path(filename) if Path(filename).is_absolute() else repo / filename
    elif _param(params, "competition_type") == "script":
        submission = Path(str(_param(params, "output_path", ""))) / "submission.csv"
    else:
        submission = repo / "submissions" / f"{_param(params, 'team_id')}-{_param(params, 'submission_id')}.csv"
    return solution, submission


def _compute(competition: str | Path, params: Any) -> dict:
    from scoring.definition import load_competition

    definition = load_competition(competition)
    id_col = _param(params, "submission_id_col")
    if id_col and id_col != definition.id_column:
        raise HostError("definition_invalid", f"submission_id_col {id_col!r} is not the id column "
                        f"{definition.id_column!r} of {definition.name}")
    solution, submission = local_paths(params)
    result = grade(submission, solution, definition, reveal_private=True)
    result.raise_unless_scored()
    public, private = result.metrics.public, result.metrics.private or {}
    if public.keys() != private.keys():
        raise HostError("solution_invalid", "solution.csv needs both public and private rows in its "
                        f"{definition.split.column!r} column: the platform requires identical keys")
    return {"public_score": dict(public), "private_score": dict(private)}
