"""A stand-in for the huggingface_hub calls of the HF metric, answering as the real ones do (stdlib only: it also
runs under the platform venvs, which hold no huggingface_hub).

- ``hf_hub_download(repo_id, filename, repo_type, token)`` returns the cache's ``snapshots/<commit>/<filename>``,
  a symbolic link to ``blobs/<sha256>``: huggingface_hub 0.24.6 (the version huggingface/competitions
  ``requirements.txt`` pins for the Space image), ``file_download.py`` ``_hf_hub_download_to_cache_dir``. A file
  the repository lacks raises ``EntryNotFoundError``.
- ``HfApi(token=...).list_repo_files(repo_id, repo_type)`` lists the repository's files.

Checked against the real library and the platform's own ``competitions/evaluate.py``: docs/platform_checks.md.
"""

from __future__ import annotations

import hashlib
import os
import types
from pathlib import Path

COMMIT = "0" * 40


class EntryNotFoundError(Exception):
    pass


def hub_module(repo_dir: Path, cache_dir: Path, served_id: str, calls: list | None = None) -> types.ModuleType:
    """A ``huggingface_hub`` module serving the files of ``repo_dir`` as the dataset repository ``served_id``;
    each call is appended to ``calls`` as (repo_id, filename or "<list>", repo_type, token)."""
    repo_dir, calls = Path(repo_dir), calls if calls is not None else []
    cache = Path(cache_dir) / ("datasets--" + served_id.replace("/", "--"))

    def hf_hub_download(repo_id: str, filename: str, repo_type: str | None = None, token: str | None = None) -> str:
        calls.append((repo_id, filename, repo_type, token))
        src = repo_dir / filename
        if repo_id != served_id or repo_type != "dataset" or not src.is_file():
            raise EntryNotFoundError(f"404 Client Error: Entry Not Found for url: .../{repo_id}/{filename}")
        # The Hub names a blob by its content's hash; any hash will do here, and a hard link spares copying the
        # corpus's 200 MB file.
        blob = cache / "blobs" / hashlib.sha256(filename.encode()).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        if blob.exists():
            blob.unlink()
        try:
            os.link(src, blob)
        except OSError:
            blob.write_bytes(src.read_bytes())
        pointer = cache / "snapshots" / COMMIT / filename
        pointer.parent.mkdir(parents=True, exist_ok=True)
        if pointer.is_symlink():
            pointer.unlink()
        pointer.symlink_to(os.path.relpath(blob, pointer.parent))
        return str(pointer)

    class HfApi:
        def __init__(self, token: str | None = None, **_kw):
            self.token = token

        def list_repo_files(self, repo_id: str, repo_type: str | None = None, **_kw) -> list:
            calls.append((repo_id, "<list>", repo_type, self.token))
            return sorted(str(p.relative_to(repo_dir)) for p in repo_dir.rglob("*") if p.is_file())

    module = types.ModuleType("huggingface_hub")
    module.hf_hub_download, module.HfApi, module.EntryNotFoundError = hf_hub_download, HfApi, EntryNotFoundError
    return module
