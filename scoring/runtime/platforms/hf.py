"""Hugging Face ``competitions`` custom metric: ``compute(params) -> {"public_score": ..., "private_score": ...}``.

What the platform does (``shared/platforms.md``, read from huggingface/competitions
``compute_metrics.py``, ``params.py``, ``submissions.py``, ``evaluate.py``): with
``EVAL_METRIC = "custom"`` it downloads only ``metric.py`` from the competition's
dataset repository (``params.competition_id``, a Hub repo id such as
``org/name``), imports it and calls ``compute(params)``. Everything else the
metric needs it fetches itself: ``solution.csv`` from the same repository, and
the upload, stored as ``submissions/{team_id}-{submission_id}.{ext}`` with the
uploaded file's own extension (a zip stays ``.zip``). Both returned dicts must
have identical keys; the leaderboard sorts on ``SCORING_METRIC``.

``competition_id`` may also be a local folder laid out like the repository
(``solution.csv``, ``submissions/``): then nothing is downloaded (tests, dry runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..definition import CompetitionDefinition, load_definition
from ..guard import grade
from ..problems import HostError
from ..result import SubmissionRejected

# Extensions tried for the upload, after those of the competition's SUBMISSION_FILENAMES.
_UPLOAD_EXTENSIONS = ("csv", "zip")


def make_compute(competition: str | Path | CompetitionDefinition):
    """A ``compute`` bound to one competition definition (a frozen ``.json`` path or a shipped name)."""

    def compute(params: Any) -> dict:
        return compute_scores(competition, params)

    compute.__doc__ = f"Hugging Face competitions compute() for competition {str(competition)!r}."
    return compute


def _param(params: Any, name: str, default: Any = None) -> Any:
    if isinstance(params, dict):
        return params.get(name, default)
    return getattr(params, name, default)


def _extensions(params: Any) -> list:
    names = _param(params, "submission_filenames") or []
    found = [str(n).rsplit(".", 1)[-1].lower() for n in names if "." in str(n)]
    return list(dict.fromkeys(found + list(_UPLOAD_EXTENSIONS)))


def fetch_files(params: Any) -> tuple:
    """(solution, submission) as local paths: from the Hub as the platform's own metric does, or a local folder."""
    repo = str(_param(params, "competition_id", ""))
    stem = f"submissions/{_param(params, 'team_id')}-{_param(params, 'submission_id')}"
    if Path(repo).is_dir():
        root = Path(repo)
        for ext in _extensions(params):
            if (root / f"{stem}.{ext}").is_file():
                return root / "solution.csv", root / f"{stem}.{ext}"
        raise HostError("internal_error", f"no {stem}.* in the local folder {repo!r}")
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise HostError("internal_error", "huggingface_hub is not installed and competition_id "
                        f"{repo!r} is not a local folder") from None
    token = _param(params, "token")

    def download(filename: str) -> Path:
        return Path(hf_hub_download(repo_id=repo, filename=filename, repo_type="dataset", token=token))

    solution = download("solution.csv")
    for ext in _extensions(params):
        try:
            return solution, download(f"{stem}.{ext}")
        except Exception as exc:  # noqa: BLE001 - the class moved between huggingface_hub versions
            if "EntryNotFound" not in type(exc).__name__:
                raise
    raise HostError("internal_error", f"no upload {stem}.{{{','.join(_extensions(params))}}} in {repo}")


def compute_scores(competition: str | Path | CompetitionDefinition, params: Any) -> dict:
    definition = load_definition(competition)
    id_col = _param(params, "submission_id_col")
    if id_col and id_col != definition.id_column:
        raise HostError("definition_invalid", f"SUBMISSION_ID_COLUMN {id_col!r} is not the id column "
                        f"{definition.id_column!r} of {definition.name}")
    solution, submission = fetch_files(params)
    result = grade(submission, solution, definition, reveal_private=True)
    if result.status == "rejected":
        raise SubmissionRejected(result.participant_message())
    if result.status == "error":
        codes = ", ".join(d.code for d in result.host.diagnostics) or "internal_error"
        raise HostError(codes.split(", ")[0], "; ".join(d.message for d in result.host.diagnostics) or codes)
    public, private = result.metrics.public, result.metrics.private or {}
    if set(public) != set(private):
        raise HostError("solution_invalid", "solution.csv needs both public and private rows in its "
                        f"{definition.split.column!r} column: the platform requires identical keys")
    keys = [definition.primary_metric] + sorted(k for k in public if k != definition.primary_metric)
    return {"public_score": {k: float(public[k]) for k in keys},
            "private_score": {k: float(private[k]) for k in keys}}
