"""Run huggingface/competitions' own evaluation (``competitions/evaluate.py`` ``run`` -> ``compute_metrics.py``) on an
agrieval HF bundle.

    python hf_competitions.py COMPETITIONS_REPO BUNDLE_DIR UPLOAD [UPLOAD ...]

COMPETITIONS_REPO is the fetched repository (bare git dir or checkout); BUNDLE_DIR is what ``agrieval bundle hf``
wrote. Run it under the Space's Python (3.10) with the Space's pins (``requirements.txt``: huggingface_hub
0.24.6, pandas 2.2.2, pydantic 2.8.2, scikit-learn 1.5.1, loguru 0.7.2). Prints one JSON report.

Each UPLOAD is stored as ``submissions/{team_id}-{submission_id}.{ext}``, ``ext`` being what follows the last dot
of the uploaded file's name (``competitions/submissions.py`` ~276-284), ``submission_id`` a uuid4 (~262). The
competition repository ``agrieval-org/plantclef-demo`` (metric.py, solution.csv, submission_info/) is laid out as
a Hub cache (``HF_HOME``, ``refs/main``, ``snapshots/<commit>/`` links to ``blobs/``) and the real
``hf_hub_download`` serves it with ``HF_HUB_OFFLINE=1``: offline, a missing file raises
``LocalEntryNotFoundError`` where the Hub answers ``EntryNotFoundError``. Stubbed: ``HfApi`` in
``competitions.utils`` (``upload_file`` records the submission_info JSON the platform would store, after its own
``json.dumps``), ``huggingface_hub.HfApi.list_repo_files`` (answers
from the cache: offline it would raise) and the ``fastapi`` module (``utils.py`` imports ``Request`` from it;
unused here).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import types
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetched  # noqa: E402

REPO_ID = "agrieval-org/plantclef-demo"
TEAM = "5f1c2d9e-team"
COMMIT = "0" * 40
UPLOADED: list = []


def hub_cache(hf_home: Path, files: dict) -> None:
    """``files`` (path in repo -> bytes) as huggingface_hub's cache of the dataset repository at COMMIT."""
    repo = hf_home / "hub" / ("datasets--" + REPO_ID.replace("/", "--"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(COMMIT)
    for rel, data in files.items():
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = repo / "snapshots" / COMMIT / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(os.path.relpath(blob, link.parent))


class FakeHfApi:
    def __init__(self, token=None, **kw):
        pass

    def upload_file(self, path_or_fileobj, path_in_repo, repo_id, repo_type=None, **kw):
        data = path_or_fileobj.read() if hasattr(path_or_fileobj, "read") else path_or_fileobj
        UPLOADED.append((path_in_repo, json.loads(data)))


def main(argv: list) -> int:
    repo, bundle, *uploads = argv
    bundle = Path(bundle)
    scratch = Path(tempfile.mkdtemp(prefix="hf_check_"))
    os.environ.update(HF_HOME=str(scratch / "hf_home"), HF_HUB_OFFLINE="1")
    src = fetched.copy_to(repo, [f"competitions/{m}.py" for m in ("__init__", "compute_metrics", "enums",
                                                                   "evaluate", "params", "utils")], scratch / "src")
    sys.path.insert(0, str(src))
    sys.modules["fastapi"] = types.SimpleNamespace(Request=object)
    conf = json.loads((bundle / "conf.json").read_text())
    report = {"repo_commit": fetched.commit(repo), "python": sys.version.split()[0], "submissions": []}
    try:
        from competitions import evaluate, utils
        from competitions.params import EvalParams

        utils.HfApi = FakeHfApi
        import huggingface_hub

        snapshot = scratch / "hf_home" / "hub" / ("datasets--" + REPO_ID.replace("/", "--")) / "snapshots" / COMMIT
        # Offline, listing the repository would raise: answer from the cache (the metric lists it to find an
        # upload whose extension it does not know).
        huggingface_hub.HfApi.list_repo_files = lambda self, repo_id, repo_type=None, **kw: sorted(
            str(p.relative_to(snapshot)) for p in snapshot.rglob("*") if not p.is_dir())
        from loguru import logger

        log = []
        logger.add(lambda m: log.append(str(m)), level="ERROR")
        files = {name: (bundle / name).read_bytes() for name in ("metric.py", "solution.csv")}
        stored = []
        for upload in map(Path, uploads):
            sub_id = str(uuid.uuid4())
            ext = upload.name.split(".")[-1]  # submissions.py ~276
            files[f"submissions/{TEAM}-{sub_id}.{ext}"] = upload.read_bytes()
            stored.append((upload, sub_id, ext))
        files[f"submission_info/{TEAM}.json"] = json.dumps(
            {"id": TEAM, "submissions": [{"submission_id": s, "status": 0} for _u, s, _e in stored]}).encode()
        hub_cache(scratch / "hf_home", files)
        for upload, sub_id, ext in stored:
            UPLOADED.clear()
            log.clear()
            params = {"competition_id": REPO_ID, "competition_type": "generic", "metric": conf["EVAL_METRIC"],
                      "token": "hf_organizer_token", "team_id": TEAM, "submission_id": sub_id,
                      "submission_id_col": conf["SUBMISSION_ID_COLUMN"],
                      "submission_cols": conf["SUBMISSION_COLUMNS"].split(","),
                      "submission_rows": conf["SUBMISSION_ROWS"], "output_path": str(scratch / "out"),
                      "submission_repo": "", "time_limit": 60, "dataset": "",
                      "submission_filenames": ["submission.csv"]}
            # As evaluate.py's __main__ (~131-135); utils.monitor turns an exception into FAILED.
            evaluate.run(EvalParams(**params))
            # update_submission_score (utils.py ~220-228) stores the scores with status "done"; the final
            # update_submission_status re-reads submission_info, here the cached one without them.
            scored = [s for _p, info in UPLOADED for s in info["submissions"]
                      if s["submission_id"] == sub_id and "public_score" in s]
            entry = scored[-1] if scored else {}
            report["submissions"].append({
                "upload": upload.name, "stored_as": f"submissions/{TEAM}-<uuid>.{ext}",
                "status_updates": [next(s["status"] for s in info["submissions"] if s["submission_id"] == sub_id)
                                   for _p, info in UPLOADED],
                "public_score": entry.get("public_score"), "private_score": entry.get("private_score"),
                "scoring_metric": conf["SCORING_METRIC"],
                "error_log": [line.splitlines()[-1] for line in log][-2:]})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
