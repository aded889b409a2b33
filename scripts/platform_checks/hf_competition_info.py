"""Hugging Face ``competitions``' own ``CompetitionInfo`` on the repository files of `agrieval bundle hf`, then its
``compute_metrics`` on the sample submission with the solution in both split conventions.

Usage (the Space's pins, as run_all.sh builds the venv):
    python hf_competition_info.py COMPETITIONS_REPO BUNDLE_DIR

What runs is theirs: ``competitions/info.py`` ``CompetitionInfo(competition_id, token)`` (downloads conf.json and
the four markdown pages with the **real** ``hf_hub_download`` from an offline hub cache laid out as the Hub's,
checks ``SCORING_METRIC``), then every property it offers is read, as the Space's pages read them; then
``competitions/compute_metrics.py`` ``compute_metrics(params)`` on the sample submission and on
``reference_submissions/plantclef2025/submissions/partial.csv`` (downloads ``metric.py`` by repo id, imports it,
calls ``compute``, checks the keys) once with ``solution.csv`` as written (the definition's ``Usage`` column) and
once with it rewritten in the platform's own convention (lowercase ``split`` with ``public``/``private``).

Stubbed: nothing of theirs; ``HF_HUB_OFFLINE=1`` with a local cache stands in for the Hub (offline, a missing
file raises ``LocalEntryNotFoundError`` where the Hub raises ``EntryNotFoundError``: both end in the same
``except Exception`` of info.py lines 44 and 55).
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetched  # noqa: E402
from hf_competitions import REPO_ID, TEAM, hub_cache  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
REPO_FILES = ("conf.json", "COMPETITION_DESC.md", "DATASET_DESC.md", "SUBMISSION_DESC.md", "RULES.md", "metric.py",
              "solution.csv")
PROPERTIES = ("submission_limit", "selection_limit", "end_date", "eval_higher_is_better", "competition_description",
              "submission_columns", "submission_columns_raw", "submission_description", "dataset_description",
              "logo_url", "competition_type", "metric", "submission_id_col", "submission_cols", "submission_rows",
              "time_limit", "hardware", "dataset", "submission_filenames", "scoring_metric", "rules")


def to_split_convention(solution: bytes) -> bytes:
    """The solution with ``Usage`` Public/Private replaced by the platform's ``split`` public/private."""
    rows = list(csv.reader(io.StringIO(solution.decode("utf-8"))))
    col = rows[0].index("Usage")
    rows[0][col] = "split"
    for row in rows[1:]:
        row[col] = {"Public": "public", "Private": "private"}[row[col]]
    buf = io.StringIO()
    csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def main(repo: str, bundle: str) -> dict:
    bundle = Path(bundle)
    scratch = Path(tempfile.mkdtemp(prefix="hf_info_"))
    os.environ.update(HF_HOME=str(scratch / "hf_home"), HF_HUB_OFFLINE="1")
    src = fetched.copy_to(repo, ["competitions/info.py", "competitions/compute_metrics.py",
                                 "competitions/params.py"], scratch / "src")
    (src / "competitions" / "__init__.py").write_text("")  # theirs imports the whole app (fastapi, ...)
    sys.path.insert(0, str(src))
    files = {name: (bundle / name).read_bytes() for name in REPO_FILES}
    uploads = {"sample_submission.csv": bundle / "sample_submission.csv",
               "partial.csv": ROOT / "reference_submissions" / "plantclef2025" / "submissions" / "partial.csv"}
    sub_ids = {name: str(uuid.uuid4()) for name in uploads}
    for name, path in uploads.items():
        files[f"submissions/{TEAM}-{sub_ids[name]}.csv"] = path.read_bytes()
    hub_cache(scratch / "hf_home", files)
    from competitions.info import CompetitionInfo

    info = CompetitionInfo(competition_id=REPO_ID, autotrain_token="hf_token")
    report = {"repository": "huggingface/competitions", "commit": fetched.commit(repo),
              "python": sys.version.split()[0],
              "info": {name: str(getattr(info, name))[:80] for name in PROPERTIES}}
    from competitions.compute_metrics import compute_metrics
    from competitions.params import EvalParams

    conf = json.loads(files["conf.json"])
    results = {}
    conventions = (("Usage", files["solution.csv"]), ("split", to_split_convention(files["solution.csv"])))
    for convention, solution in conventions:
        hub_cache(scratch / "hf_home", dict(files, **{"solution.csv": solution}))
        for name in uploads:
            sys.modules.pop("metric", None)
            params = EvalParams(competition_id=REPO_ID, competition_type="generic", metric="custom",
                                token="hf_token", team_id=TEAM, submission_id=sub_ids[name],
                                submission_id_col=conf["SUBMISSION_ID_COLUMN"],
                                submission_cols=conf["SUBMISSION_COLUMNS"].split(","),
                                submission_rows=conf["SUBMISSION_ROWS"], output_path=str(scratch / "out"),
                                submission_repo="", time_limit=conf["TIME_LIMIT"], dataset="",
                                submission_filenames=conf["SUBMISSION_FILENAMES"])
            results.setdefault(convention, {})[name] = compute_metrics(params)
    report["compute_metrics"] = results
    report["ok"] = results["Usage"] == results["split"] and info.scoring_metric == conf["SCORING_METRIC"]
    return report


if __name__ == "__main__":
    out = main(sys.argv[1], sys.argv[2])
    print(json.dumps(out, indent=2, default=str))
    sys.exit(0 if out["ok"] else 1)
