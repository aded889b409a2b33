"""Hugging Face ``competitions`` custom metric: ``compute(params) -> {"public_score": ..., "private_score": ...}``.

What the platform does (``docs/facts/platforms.md``, read from huggingface/competitions
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

import csv
import dataclasses
from pathlib import Path
from typing import Any

from ..definition import CompetitionDefinition, load_definition
from ..guard import grade
from ..problems import HostError
from ..result import SubmissionRejected

# Imported inside functions, so that importing this module loads only what it needs: huggingface_hub (heavy or optional).

# Extensions tried for the upload by name, after those of the competition's SUBMISSION_FILENAMES: the platform
# keeps the uploaded file's own extension, case included (submissions.py ~276-281), so the usual spellings are
# fetched directly; only another one needs the repository listing.
_UPLOAD_EXTENSIONS = ("csv", "zip", "CSV", "ZIP", "txt", "TXT", "tsv", "TSV", "Csv", "Zip")
# The solution's split column in the platform's own convention (its built-in metrics) and in Kaggle's.
_CONVENTIONS = (("split", "public", "private", None), ("Usage", "Public", "Private", "Ignored"))


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
    found = [str(n).rsplit(".", 1)[-1] for n in names if "." in str(n)]
    found += [e.lower() for e in found]
    return list(dict.fromkeys(found + list(_UPLOAD_EXTENSIONS)))


def _upload_name(names: list, stem: str, params: Any) -> str | None:
    """The one ``stem.EXT`` among ``names``: the known extensions first, then any other (the platform keeps what
    follows the uploaded file's last dot, case included: huggingface/competitions submissions.py ~276-281)."""
    present = [n for n in (f"{stem}.{ext}" for ext in _extensions(params)) if n in names]
    if present:
        return present[0]
    others = sorted(n for n in names if n.startswith(stem + ".") and "/" not in n[len(stem):])
    return others[0] if len(others) == 1 else None


def fetch_files(params: Any) -> tuple:
    """(solution, upload, the upload's name in the repository) as local files: from the Hub as the platform's own
    metric does, or from a local folder laid out like the repository."""
    try:
        from huggingface_hub import HfApi, hf_hub_download
    except ImportError:  # a local folder needs no Hub
        HfApi = hf_hub_download = None
    repo = str(_param(params, "competition_id", ""))
    stem = f"submissions/{_param(params, 'team_id')}-{_param(params, 'submission_id')}"
    if Path(repo).is_dir():
        root = Path(repo)
        names = sorted(f"submissions/{p.name}" for p in (root / "submissions").iterdir()) \
            if (root / "submissions").is_dir() else []
        name = _upload_name(names, stem, params)
        if name is None:
            raise HostError("internal_error", f"no {stem}.* in the local folder {repo!r}")
        return root / "solution.csv", root / name, name
    if hf_hub_download is None:
        raise HostError("internal_error", "huggingface_hub is not installed and competition_id "
                        f"{repo!r} is not a local folder")
    token = _param(params, "token")

    def download(filename: str) -> Path:
        # hf_hub_download answers the cache's snapshots/<commit>/<filename>, a symbolic link to blobs/<hash>
        # (huggingface_hub file_download.py, _hf_hub_download_to_cache_dir). The upload reader refuses links, so
        # the blob itself is read; messages name the file as the repository does.
        return Path(hf_hub_download(repo_id=repo, filename=filename, repo_type="dataset", token=token)).resolve()

    solution = download("solution.csv")
    for ext in _extensions(params):
        try:
            return solution, download(f"{stem}.{ext}"), f"{stem}.{ext}"
        except Exception as exc:  # noqa: BLE001 - the class moved between huggingface_hub versions
            if "EntryNotFound" not in type(exc).__name__:
                raise
    # An upload named e.g. `sub.CSV` or `preds.txt` is stored with that extension: look it up in the listing.
    name = _upload_name(list(HfApi(token=token).list_repo_files(repo_id=repo, repo_type="dataset")), stem, params)
    if name is None:
        raise HostError("internal_error", f"no upload {stem}.* in {repo}")
    return solution, download(name), name


def compute_scores(competition: str | Path | CompetitionDefinition, params: Any) -> dict:
    definition = load_definition(competition)
    id_col = _param(params, "submission_id_col")
    if id_col and id_col != definition.id_column:
        raise HostError("definition_invalid", f"SUBMISSION_ID_COLUMN {id_col!r} is not the id column "
                        f"{definition.id_column!r} of {definition.name}")
    solution, submission, stored_as = fetch_files(params)
    definition = solution_convention(definition, solution)
    result = grade(submission, solution, definition, reveal_private=True, filename=Path(stored_as).name)
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


def solution_convention(definition: CompetitionDefinition, solution: Path) -> CompetitionDefinition:
    """The definition with the split column ``solution.csv`` really has: the definition's own, else the
    platform's lowercase ``split`` (``public``/``private``), else Kaggle's ``Usage`` (``Public``/``Private``)."""
    with open(solution, newline="", encoding="utf-8-sig") as fh:
        header = next(csv.reader([fh.readline()], delimiter=definition.delimiter), [])
    if definition.split.column in header:
        return definition
    for column, public, private, ignored in _CONVENTIONS:
        if column in header:
            split = dataclasses.replace(definition.split, column=column, public=public, private=private,
                                        ignored=ignored)
            return dataclasses.replace(definition, split=split)
    raise HostError("solution_invalid", f"solution.csv has no split column: neither {definition.split.column!r} "
                    "nor the platform's 'split' (public/private) nor 'Usage' (Public/Private)")
