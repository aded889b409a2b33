"""One driver per platform, and the corpus manifest.

A driver runs a hook the way its platform runs it and returns an ``Outcome``:
``scored`` (with the primary metric), ``rejected`` (with the participant-visible
text) or ``platform`` (the platform's own code refused the file before ours
ran: Kaggle, which hands the metric DataFrames it parsed itself, and Codabench,
whose worker unzips every upload itself).
Anything else (a traceback, a host error, a hang) makes the driver raise and
the test fail.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"
SOLUTION = ROOT / "reference_submissions" / "plantclef2025" / "solution.csv"
COMPETITION = "plantclef2025"
CASES: dict[str, dict] = json.loads((CORPUS / "cases.json").read_text())
BIG_CASES = {
    "big_200mb.csv": {"expect": ["file_too_large"], "what": "a 200 MB file"},
    "rows_10_million.csv": {"expect": ["file_too_large"], "what": "10 million tiny rows"},
    "rows_200_thousand.csv": {"expect": ["too_many_rows"], "what": "200,000 tiny rows, under the byte limit"},
    "zip_bomb.zip": {"expect": ["zip_too_large"], "what": "a 60 KB zip expanding to 60 MB"},
}

# Where a platform's own code changes the verdict: Codabench's worker extracts every upload itself before our
# program sees it (codabench_layout). Observed by running its compute_worker.py on these files
# (scripts/platform_checks/codabench_worker.py, docs/platform_checks.md).
PLATFORM_VERDICTS: dict[str, dict[str, dict]] = {"codabench": {
    "zip_absolute.zip": {"tolerated": ["none"], "what": "extractall drops the leading /: a plain CSV in res/tmp/"},
    "zip_dotdot.zip": {"tolerated": ["none"], "what": "extractall drops the ..: a plain CSV"},
    "zip_of_zip.zip": {"tolerated": ["none"], "what": "the outer zip is extracted; the inner one holds the CSV"},
    "zip_symlink.zip": {"expect": ["missing_column"], "what": "the link member becomes a file holding its target"},
    "zip_bomb.zip": {"expect": ["file_too_large"], "what": "the worker expands it: the program sees 60 MB of CSV"},
    "zip_corrupt.zip": {"platform": True, "what": "the worker fails it: Bad or empty zip file"},
    "zip_empty.zip": {"platform": True, "what": "the worker fails it: Metadata file not found"},
}}


@dataclass
class Outcome:
    kind: str  # scored | rejected | platform
    message: str = ""
    primary: float | None = None
    codes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def solution_rows() -> list[dict]:
    with SOLUTION.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# --- platform drivers -------------------------------------------------------------------------------------------

def _from_result(view: dict, exit_code: int | None = None) -> Outcome:
    if view["status"] == "scored":
        assert exit_code in (None, 0)
        return Outcome("scored", primary=view["metrics"]["public"][view["primary_metric"]],
                       warnings=[w["code"] for w in view["warnings"]])
    assert view["status"] == "rejected", view  # an "error" would be a host-side failure: a test failure
    assert exit_code in (None, 1)
    return Outcome("rejected", message="\n".join(e["message"] for e in view["errors"]),
                   codes=sorted({e["code"] for e in view["errors"]}))


def drive_grade_function(path: Path, work: Path) -> Outcome:
    from agrieval.scoring.runtime.guard import grade

    return _from_result(grade(path, SOLUTION, COMPETITION).participant_view())


def drive_grade_bytes(path: Path, work: Path) -> Outcome:
    from agrieval.scoring.runtime.guard import grade

    data = path.read_bytes() if path.stat().st_size < 100_000_000 else path  # the sparse 200 MB file stays a path
    return _from_result(grade(data, SOLUTION, COMPETITION, filename=path.name).participant_view())


def drive_grade_cli(path: Path, work: Path) -> Outcome:
    res = CliRunner().invoke(cli, ["grade", str(path), "--solution", str(SOLUTION), "--competition", COMPETITION,
                                   "--participant-only"])
    payload = json.loads(res.stdout)  # always exactly one JSON object
    return _from_result(payload, res.exit_code)


# What the Codabench prediction step of a results-only submission adds to the upload's files: its own `metadata`
# (codalab/codabench compute_worker/compute_worker.py ~1347-1366, push_output: yaml.dump of these four keys, all
# null when no program ran). The scoring step unzips that prediction_result into input/res (~1155-1157).
CODABENCH_RES_METADATA = "elapsedTime: null\nexitCode: null\ningestionElapsedTime: null\ningestionExitCode: null\n"


class WorkerRefused(Exception):
    """The platform's worker fails the submission before any scoring program runs."""


def codabench_layout(work: Path, upload: Path) -> tuple[Path, Path]:
    """The Codabench scoring step's folders: input/ref (reference data), input/res (the upload plus the worker's
    ``metadata``), and an empty output/: the worker writes output/metadata itself after the program and fails
    the submission if it is already there (compute_worker.py ~1357-1363).

    A Codabench upload is always a zip that the worker extracts itself (``ZipFile.extractall``, ~660-664, in the
    prediction step; its output is zipped and extracted again into input/res, ~1155-1157): a ``.zip`` here is
    extracted so (Python drops absolute and ``..`` parts of names and writes a symlink member as a plain file);
    one that is not a zip fails after retries ("Bad or empty zip file", ~665-668) and one with no entry leaves no
    program folder, so push_output fails ("Metadata file not found", ~839-845, ~1364-1369): both raise
    ``WorkerRefused``. Any other file stands for a zip holding just that file.
    """
    inp, out = work / "input", work / "output"
    (inp / "ref").mkdir(parents=True)
    (inp / "res").mkdir()
    out.mkdir()
    shutil.copy(SOLUTION, inp / "ref" / "solution.csv")
    if upload.is_dir():
        shutil.copytree(upload, inp / "res", dirs_exist_ok=True, symlinks=True)
    elif upload.suffix == ".zip":
        import zipfile

        try:
            with zipfile.ZipFile(upload) as zf:
                zf.extractall(inp / "res")
        except zipfile.BadZipFile as exc:
            raise WorkerRefused("Bad or empty zip file") from exc
        if not any((inp / "res").iterdir()):
            raise WorkerRefused("Metadata file not found")
    else:
        place(upload, inp / "res" / upload.name)
    (inp / "res" / "metadata").write_text(CODABENCH_RES_METADATA)
    return inp, out


def place(src: Path, dst: Path) -> None:
    """Hard-link when possible: the 200 MB case must not be copied for every platform."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy(src, dst)


def tree_state(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (symlinks by target), to prove nothing changed."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(root))] = b"->" + os.readlink(p).encode()
        elif p.is_file():
            out[str(p.relative_to(root))] = p.read_bytes() if p.stat().st_size < 5_000_000 else b"size:%d" % p.stat().st_size
    return out


def drive_codabench(path: Path, work: Path) -> Outcome:
    from agrieval.scoring.runtime._platforms import codabench

    try:
        inp, out = codabench_layout(work, path)
    except WorkerRefused:
        return Outcome("platform")  # Codabench's worker failed it: our program is never run
    before = tree_state(inp)
    result = codabench.run(inp, out, competition=COMPETITION)
    assert tree_state(inp) == before  # neither the solution nor the upload changed
    written = sorted(p.name for p in out.iterdir())  # never output/metadata: the worker would fail the submission
    if result.status == "scored":
        assert written == ["scores.json", "scores.txt"]
        scores = json.loads((out / "scores.json").read_text())
        return Outcome("scored", primary=scores[result.primary_metric], warnings=[w.code for w in result.warnings])
    assert written == [], written
    return _from_result(result.participant_view(), result.exit_code)


def evalai_stored(work: Path, upload: Path) -> Path:
    """The upload as EvalAI's worker hands it to evaluate(): stored as <uuid4><ext> (Cloud-CV/EvalAI
    apps/base/utils.py ~95-149, SubmissionArtifactFileName) and downloaded under that name
    (scripts/workers/submission_worker.py ~564-576); a zip stays a zip."""
    import uuid

    stored = work / "submission_1" / f"{uuid.uuid4()}{upload.suffix}"
    stored.parent.mkdir(parents=True, exist_ok=True)
    place(upload, stored)
    return stored


def drive_evalai(path: Path, work: Path) -> Outcome:
    from agrieval.scoring.runtime._platforms.evalai import SubmissionRejected, make_evaluate

    evaluate = make_evaluate(COMPETITION)
    try:
        out = evaluate(str(SOLUTION), str(evalai_stored(work, path)), "dev", submission_metadata={"id": 1})
    except SubmissionRejected as exc:
        return Outcome("rejected", message=str(exc), codes=_codes_in(str(exc)))
    assert set(out) == {"result", "submission_result"}
    return Outcome("scored", primary=out["result"][0]["public"]["transect_f1"])


class EvalParams:
    """The fields of huggingface/competitions ``EvalParams`` (competitions/params.py), as the platform fills them."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def hf_definition(definition):
    """The competition as a Hugging Face host declares it: the solution's split column is ``split``."""
    from dataclasses import replace

    return replace(definition, split=replace(definition.split, column="split", public="public", private="private",
                                             ignored=None))


def hf_repo(work: Path, upload: Path) -> tuple[EvalParams, Path]:
    """A local copy of the competition dataset repo: solution.csv with a split column, submissions/ with the upload
    stored as the platform stores it (``submissions/{team_id}-{submission_id}.{ext}``)."""
    repo = work / "competition_repo"
    (repo / "submissions").mkdir(parents=True)
    rows = solution_rows()
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(["quadrat_id", "species_ids", "split"])
    w.writerows([r["quadrat_id"], r["species_ids"], r["Usage"].lower()] for r in rows)
    (repo / "solution.csv").write_text(buf.getvalue())
    # The stored extension is what follows the uploaded name's last dot, case kept (huggingface/competitions
    # competitions/submissions.py ~276-281): `sub.CSV` stays `.CSV`, `preds.txt` `.txt`.
    place(upload, repo / "submissions" / f"team7-sub42.{upload.name.split('.')[-1]}")
    params = EvalParams(competition_id=str(repo), competition_type="generic", metric="custom", token="hf_unused",
                        team_id="team7", submission_id="sub42", submission_id_col="quadrat_id",
                        submission_cols=["quadrat_id", "species_ids"], submission_rows=40,
                        output_path=str(work / "out"), submission_repo="", time_limit=60, dataset="",
                        submission_filenames=["submission.csv"])
    return params, repo


def drive_hf(path: Path, work: Path) -> Outcome:
    """competition_id is the Hub repo id, and the files come through hf_hub_download as the platform's do: links
    into the Hub cache (fake_hub.py, modelled on huggingface_hub 0.24.6)."""
    import sys
    from unittest import mock

    from agrieval.scoring.runtime._platforms.hf import SubmissionRejected, make_compute
    from tests.platforms.fake_hub import hub_module

    params, repo = hf_repo(work, path)
    params.competition_id = "agrieval-org/plantclef-demo"
    compute = make_compute(hf_definition(load_competition(COMPETITION)))
    hub = hub_module(repo, work / "hub_cache", params.competition_id)
    try:
        with mock.patch.dict(sys.modules, {"huggingface_hub": hub}):
            out = compute(params)
    except SubmissionRejected as exc:
        return Outcome("rejected", message=str(exc), codes=_codes_in(str(exc)))
    assert list(out["public_score"]) == list(out["private_score"])
    return Outcome("scored", primary=out["public_score"]["transect_f1"])


KAGGLE_UPLOAD_LIMIT = 20_000_000  # stands in for Kaggle's own upload limit: bigger files never reach a metric


def drive_kaggle(path: Path, work: Path) -> Outcome:
    """Kaggle parses the upload with pandas, then calls score(solution, submission, row_id_column_name)."""
    from agrieval.scoring.runtime._platforms.kaggle import ParticipantVisibleError, score

    if path.stat().st_size > KAGGLE_UPLOAD_LIMIT or path.suffix == ".zip":
        # Kaggle unpacks archives and enforces its upload limit itself, before any metric runs.
        return Outcome("platform")
    try:
        submission = pd.read_csv(path)
    except Exception:  # noqa: BLE001 - Kaggle's reader refuses it; our metric is never called
        return Outcome("platform")
    solution = pd.read_csv(SOLUTION)
    try:
        value = score(solution, submission, "quadrat_id")
    except ParticipantVisibleError as exc:
        return Outcome("rejected", message=str(exc), codes=_codes_in(str(exc)))
    assert isinstance(value, float)
    return Outcome("scored", primary=value)


def _codes_in(text: str) -> list[str]:
    import re

    return sorted(set(re.findall(r"^(?:\S*: )?error \[([a-z_0-9]+)\]", text, flags=re.M)))


DRIVERS = {
    "grade_function": drive_grade_function,  # the corpus test also calls drive_grade_bytes, see there
    "grade_cli": drive_grade_cli,
    "codabench": drive_codabench,
    "evalai": drive_evalai,
    "hf_competitions": drive_hf,
    "kaggle": drive_kaggle,
}
EXTRA_DRIVERS = {"grade_bytes": drive_grade_bytes}
