"""Each bundle built by `agrieval bundle`, then run as its platform runs it, under the platform's interpreter.

Layouts, call signatures and what is read back follow ``docs/facts/platforms.md``;
the interpreters are the venvs of ``.ci/interpreters`` (numpy only).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import textwrap
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from tests.platform_pythons import CODABENCH, EVALAI, HF, python
from tests.platforms.hook_drivers import COMPETITION, CORPUS, ROOT, SOLUTION, codabench_layout, evalai_stored

EXPECTED = json.loads((ROOT / "reference_submissions" / "expected_scores.json").read_text())
SUBS = ROOT / "reference_submissions" / COMPETITION / "submissions"
KEYS = ["transect_f1", "macro_f1", "micro_f1", "sample_f1", "sample_precision", "sample_recall"]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bundles")
    out = {}
    for platform, extra in (("codabench", []), ("codalab", []), ("codabench-private", ["--split", "private"]),
                            ("evalai", []), ("hf", []), ("kaggle", [])):
        res = CliRunner().invoke(cli, ["bundle", platform.split("-")[0], "-c", COMPETITION, "-s", str(SOLUTION),
                                       *extra, str(root / platform)])
        assert res.exit_code == 0, res.output
        out[platform] = root / platform
    return out


def _run(args, cwd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120, **kw)


# --- Codabench and CodaLab ---------------------------------------------------------------------------------------

def _codabench_argv(command: str, program: Path, inp: Path, out: Path) -> list:
    """codalab/codabench compute_worker.py ~264-286 (replace_legacy_metadata_command) puts /app/program, /app/input
    and /app/output in place of $program/$input/$output; docker-py splits a str command with shlex.split."""
    import shlex

    argv = shlex.split(command.replace("$input", str(inp)).replace("$output", str(out)).replace("$program",
                                                                                                 str(program)))
    return [python(CODABENCH), *argv[1:]]


def test_codabench_program_runs_in_the_workers_scoring_layout(bundles, tmp_path):
    program = bundles["codabench"] / "scoring_program"
    command = yaml.safe_load((program / "metadata.yaml").read_text())["command"]
    assert command == "python3 $program/score.py $input $output"
    inp, out = codabench_layout(tmp_path, SUBS / "partial.csv")  # input/res holds the worker's metadata too
    # working_dir /app/program and this environment: compute_worker.py ~1036-1048
    res = _run(_codabench_argv(command, program, inp, out), cwd=program,
               env={"PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": "1", "http_proxy": "", "https_proxy": ""})
    assert res.returncode == 0, res.stderr
    expected = EXPECTED[COMPETITION]["partial"]["public"]
    # push_scores reads scores.json first (~1313-1321); the site keeps only leaderboard column keys
    # (src/apps/api/views/submissions.py ~578-582), so every key written must be a column of the snippet.
    scores = json.loads((out / "scores.json").read_text())
    assert scores == pytest.approx(expected)
    columns = {c["key"] for c in yaml.safe_load((bundles["codabench"] / "competition.yaml").read_text())
               ["leaderboards"][0]["columns"]}
    assert set(scores) == columns
    assert "0.55" not in res.stdout  # no score in the logs unless --show-scores
    # push_output writes output/metadata after the program and fails the submission if it exists (~1357-1363).
    assert sorted(p.name for p in out.iterdir()) == ["scores.json", "scores.txt"]


def codalab_run_dir(work: Path, bundle: Path, upload: Path) -> Path:
    """The v1 worker's scoring run folder (codalab/competitions-v1-compute-worker worker.py ~112-182, get_bundle):
    run/program (scoring program), run/input holding the site's input.txt as ``metadata`` plus ref/ and res/
    (codalab/codalab-competitions codalab/apps/web/tasks.py ~463-493: a results submission's res is the raw
    upload, unzipped, with no worker metadata), and an empty run/output."""
    run = work / "run"
    shutil.copytree(bundle / "scoring_program", run / "program")
    (run / "input" / "ref").mkdir(parents=True)
    (run / "input" / "res").mkdir()
    (run / "output").mkdir()
    (run / "input" / "metadata").write_text("ref: http://store/ref.zip\nres: http://store/res.zip\n"
                                            "submitted-by: team7\ncompetition-phase: 1\n")
    shutil.copy(bundle / "reference_data" / "solution.csv", run / "input" / "ref" / "solution.csv")
    shutil.copy(upload, run / "input" / "res" / upload.name)
    return run


def test_codalab_program_runs_as_the_v1_worker_runs_it(bundles, tmp_path):
    run = codalab_run_dir(tmp_path, bundles["codalab"], SUBS / "partial.csv")
    command = yaml.safe_load((run / "program" / "metadata").read_text())["command"]
    # worker.py ~483-492: substitution with run-dir paths, then split on single spaces (not shlex);
    # ~495-514: `docker run -w RUN_DIR`: the working dir is the run folder, not the program.
    argv = command.replace("$program", str(run / "program")).replace("$input", str(run / "input")) \
        .replace("$output", str(run / "output")).split(" ")
    res = _run([python(CODABENCH), *argv[1:]], cwd=run, env={"PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": "1"})
    assert res.returncode == 0, res.stderr
    # codalab-competitions tasks.py ~591-611: only scores.txt is read, each non-empty line split on ":" into
    # exactly (label, value), the value through float(); a label that is no score definition is skipped.
    scores = {}
    for line in (run / "output" / "scores.txt").read_text().split("\n"):
        if len(line) > 0:
            label, value = line.split(":")
            scores[label.strip()] = float(value)
    assert scores == pytest.approx(EXPECTED[COMPETITION]["partial"]["public"])
    legacy = yaml.safe_load((bundles["codalab"] / "competition.yaml").read_text())
    assert set(scores) == set(legacy["leaderboard"]["columns"])


def test_private_phase_program_writes_the_private_split(bundles, tmp_path):
    inp, out = codabench_layout(tmp_path, SUBS / "partial.csv")
    res = _run([python(CODABENCH), "score.py", str(inp), str(out)], cwd=bundles["codabench-private"] / "scoring_program")
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "scores.json").read_text()) == pytest.approx(EXPECTED[COMPETITION]["partial"]["private"])


def test_codabench_rejection_host_failure_and_old_python_are_told_apart(bundles, tmp_path):
    program = bundles["codabench"] / "scoring_program"
    inp, out = codabench_layout(tmp_path / "a", CORPUS / "formula_ids.csv")
    # Left by an earlier run (a local rerun: the worker itself makes a fresh output/ per run, compute_worker.py
    # ~360): it must not survive a rejection.
    (out / "scores.json").write_text('{"transect_f1": 1.0}')
    res = _run([python(CODABENCH), "score.py", str(inp), str(out)], cwd=program)
    assert res.returncode == 1
    # one round: the row's problem and the id it leaves missing, both in the file's own line shape
    lines = res.stderr.splitlines()
    assert "formula_ids.csv:4:1: error [invalid_id]" in [line[:39] for line in lines] and "Traceback" not in res.stderr
    assert all(line.startswith("formula_ids.csv") for line in lines), lines
    assert sorted(p.name for p in out.iterdir()) == []  # output/metadata is the worker's to write

    inp, out = codabench_layout(tmp_path / "b", SUBS / "partial.csv")
    (inp / "ref" / "solution.csv").unlink()  # the organizer forgot the reference data
    res = _run([python(CODABENCH), "score.py", str(inp), str(out)], cwd=program)
    assert res.returncode == 3
    assert "this is not your submission's fault" in res.stderr and "[solution_invalid]" in res.stderr
    assert "Traceback" not in res.stderr and str(inp) not in res.stderr

    py37 = Path("/root/.pyenv/versions/3.7.16/bin/python")  # Codabench's default image is Python 3.7
    if py37.exists():
        res = _run([str(py37), "score.py", str(inp), str(out)], cwd=program)
        assert res.returncode == 3 and "codalab/codalab-legacy:py39" in res.stderr


def test_codabench_yaml_snippet_declares_image_columns_and_precision(bundles):
    snippet = yaml.safe_load((bundles["codabench"] / "competition.yaml").read_text())
    assert snippet["docker_image"] == "codalab/codalab-legacy:py39"
    columns = snippet["leaderboards"][0]["columns"]
    assert [c["key"] for c in sorted(columns, key=lambda c: c["index"])] == KEYS
    assert all(c["precision"] == 4 and c["sorting"] == "desc" for c in columns)
    legacy = yaml.safe_load((bundles["codalab"] / "competition.yaml").read_text())
    assert set(legacy["leaderboard"]["columns"]) == set(KEYS)
    assert legacy["leaderboard"]["columns"]["transect_f1"]["rank"] == 1


# --- EvalAI ------------------------------------------------------------------------------------------------------

WORKER = textwrap.dedent('''
    # As Cloud-CV/EvalAI scripts/workers/submission_worker.py: the challenge package is challenge_data.challenge_1
    # under COMPUTE_DIRECTORY_PATH, which is on sys.path (~486-492, ~1044-1045); evaluate() runs with sys.stdout and
    # sys.stderr replaced by MultiOut objects that have write() and flush() only (~109-137, ~693-703); every split
    # of result must be linked to the phase (~738-759); an exception appends traceback.format_exc() to the stderr
    # file (~803-805); submission_result is json.dumps(..., default=str) (~872-875).
    import importlib, json, sys, traceback
    compute, annotations, upload, phase, logs, links, report = sys.argv[1:8]
    sys.path.append(compute)

    class MultiOut:
        def __init__(self, *handles):
            self.handles = handles
        def write(self, s):
            for f in self.handles:
                f.write(s)
        def flush(self):
            for f in self.handles:
                f.flush()

    module = importlib.import_module("challenge_data.challenge_1")
    stdout, stderr = open(logs + "/stdout.txt", "a+"), open(logs + "/stderr.txt", "a+")
    ok, output = True, None
    try:
        sys.stdout, sys.stderr = MultiOut(stdout, sys.__stdout__), MultiOut(stderr, sys.__stderr__)
        try:
            output = module.evaluate(annotations, upload, phase, submission_metadata={"id": 1})
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        for split_result in output["result"]:
            if list(split_result.keys())[0] not in json.loads(links)[phase]:
                stderr.write("ORGINIAL EXCEPTION: No such relation between Challenge Phase and DatasetSplit\\n")
                ok = False
                break
    except Exception:
        stderr.write(traceback.format_exc())
        ok, output = False, None
    stdout.close()
    stderr.close()
    with open(report, "w") as fh:
        json.dump({"ok": ok, "result": output and output.get("result"),
                   "submission_result": json.dumps(output.get("submission_result", ""), default=str)
                   if ok and output else None}, fh)
''')


def evalai_compute_dir(tmp_path: Path, bundle: Path) -> Path:
    """evaluation_script.zip (zipped from inside the folder, as the bundle README says) extracted as the worker
    does: over an empty __init__.py in challenge_data/challenge_1/ (submission_worker.py ~308-318, ~399-418)."""
    archive = tmp_path / "evaluation_script.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in sorted((bundle / "evaluation_script").rglob("*")):
            if p.is_file():
                zf.write(p, str(p.relative_to(bundle / "evaluation_script")))
    compute = tmp_path / "compute"
    challenge = compute / "challenge_data" / "challenge_1"
    challenge.mkdir(parents=True)
    for d in (compute, compute / "challenge_data", challenge):
        (d / "__init__.py").write_text("")
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(challenge)
    return compute


@pytest.mark.parametrize("label", EVALAI)
def test_evalai_package_under_the_worker_pythons(bundles, label, tmp_path):
    compute = evalai_compute_dir(tmp_path, bundles["evalai"])
    assert (compute / "challenge_data" / "challenge_1" / "requirements.txt").read_text() == "numpy>=1.21\n"
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    config = yaml.safe_load((bundles["evalai"] / "challenge_config.yaml").read_text())
    codename = {s["id"]: s["codename"] for s in config["dataset_splits"]}
    phase = {p["id"]: p["codename"] for p in config["challenge_phases"]}
    links = {}
    for link in config["challenge_phase_splits"]:
        links.setdefault(phase[link["challenge_phase_id"]], []).append(codename[link["dataset_split_id"]])
    annotations = str(bundles["evalai"] / "annotations" / "solution.csv")
    expected = EXPECTED[COMPETITION]["partial"]

    def submit(upload: Path, phase_codename: str, n: int) -> tuple[dict, str, Path]:
        logs, report = tmp_path / f"logs{n}", tmp_path / f"report{n}.json"
        logs.mkdir()
        stored = evalai_stored(tmp_path / f"s{n}", upload)
        res = _run([python(label), str(worker), str(compute), annotations, str(stored), phase_codename, str(logs),
                    json.dumps(links), str(report)], tmp_path)
        assert res.returncode == 0, res.stderr
        return json.loads(report.read_text()), (logs / "stderr.txt").read_text(), stored

    out, stderr, _ = submit(SUBS / "partial.csv", "test", 1)
    assert out["ok"], stderr
    assert [list(split) for split in out["result"]] == [["public"], ["private"]]
    assert out["result"][1]["private"] == pytest.approx(expected["private"])
    assert json.loads(out["submission_result"]) == {"public": pytest.approx(expected["public"])}  # never private

    out, stderr, stored = submit(CORPUS / "tsv.csv", "dev", 2)
    assert not out["ok"]
    # The clean message comes before the worker's traceback, and names the file as the worker stored it.
    assert stderr.startswith(f"{stored.name}:1: error [wrong_delimiter]")
    assert links == {"dev": ["public"], "test": ["public", "private"]}
    visibility = {(s["challenge_phase_id"], s["dataset_split_id"]): s["visibility"]
                  for s in config["challenge_phase_splits"]}
    assert visibility == {(1, 1): 3, (2, 1): 3, (2, 2): 1}  # the private split host-only


def test_evalai_package_names_the_setting_under_a_37_worker(bundles, tmp_path):
    """EvalAI allows 3.7 workers (apps/challenges/constants.py line 1); the import error the worker stores as the
    challenge's evaluation_module_error (submission_worker.py ~486-507) must say what to change."""
    py37 = Path("/root/.pyenv/versions/3.7.16/bin/python")
    if not py37.exists():
        pytest.skip(f"{py37} is missing")
    compute = evalai_compute_dir(tmp_path, bundles["evalai"])
    res = _run([str(py37), "-c", f"import sys; sys.path.append({str(compute)!r}); "
                "import importlib; importlib.import_module('challenge_data.challenge_1')"], tmp_path)
    assert res.returncode == 1
    assert res.stderr.strip().splitlines()[-1] == (
        "ImportError: the agrieval evaluation script needs Python 3.8 or newer; this EvalAI worker runs Python 3.7: "
        "set the challenge's worker_python_version to 3.9 (EvalAI's default)")


# What each worker needs at the root of the zip it extracts: Codabench looks for program/metadata.yaml right under
# the extraction folder (codalab/codabench compute_worker.py ~847-850); EvalAI extracts evaluation_script.zip into
# challenge_data/challenge_<id>/, imports that folder and pip-installs its requirements.txt (Cloud-CV/EvalAI
# scripts/workers/submission_worker.py ~413-421, ~486-492): a zip holding the folder itself fails every submission
# ("module 'challenge_data.challenge_1' has no attribute 'evaluate'", docs/platform_checks.md).
UPLOADS = {"codabench": ("codabench_competition.zip", {"scoring_program_public.zip": {"score.py", "metadata.yaml"},
                                                         "scoring_program_private.zip": {"score.py", "metadata.yaml"},
                                                         "reference_data.zip": {"solution.csv"}}),
           "codalab": ("codalab_competition.zip", {"scoring_program_public.zip": {"score.py", "metadata"},
                                                     "scoring_program_private.zip": {"score.py", "metadata"},
                                                     "reference_data.zip": {"solution.csv"}}),
           "evalai": ("evalai_challenge.zip", {"evaluation_script.zip": {"__init__.py", "requirements.txt"}})}


@pytest.mark.parametrize("platform", ["codabench", "codalab", "evalai"])
def test_the_upload_holds_zips_with_what_the_worker_reads_at_their_root(bundles, platform):
    """The bundle zips each program itself (nothing left for the organizer to zip); its inner zips hold at their
    root what the worker reads there."""
    name, inner = UPLOADS[platform]
    with zipfile.ZipFile(bundles[platform] / name) as outer:
        for member, expected in inner.items():
            with zipfile.ZipFile(io.BytesIO(outer.read(member))) as zf:
                assert expected <= set(zf.namelist()), (member, sorted(zf.namelist())[:5])
    with zipfile.ZipFile(bundles[platform] / name) as outer:  # the private split's program scores the private split
        if "scoring_program_private.zip" in outer.namelist():
            with zipfile.ZipFile(io.BytesIO(outer.read("scoring_program_private.zip"))) as zf:
                    assert "SPLIT = 'private'\n" in zf.read("score.py").decode()
    assert "zip -r" not in (bundles[platform] / "README.md").read_text()


# --- Hugging Face competitions -----------------------------------------------------------------------------------

HF_RUN = textwrap.dedent('''
    # As huggingface/competitions competitions/compute_metrics.py lines 10-20 and 70-73: metric.py is the one file
    # downloaded, its folder appended to sys.path, imported as `metric` and compute(params) called with the
    # EvalParams (competitions/params.py); public and private keys must be equal; utils.py ~198-208 then stores
    # the scores with json.dumps. huggingface_hub is fake_hub.py: paths are symlinks into the cache, as the real one.
    import importlib, json, os, sys, types
    hooks, repo_dir, cache, sub_id = sys.argv[1:5]
    sys.path.insert(0, hooks)
    import fake_hub  # (sys.argv[1] is this folder)
    sys.modules["huggingface_hub"] = hub = fake_hub.hub_module(repo_dir, cache, "agrieval-org/plantclef-demo")
    params = types.SimpleNamespace(competition_id="agrieval-org/plantclef-demo", competition_type="generic",
        metric="custom", token="hf_x", team_id="team7", submission_id=sub_id, submission_id_col="quadrat_id",
        submission_cols=["quadrat_id", "species_ids"], submission_rows=40, output_path="/tmp/model",
        submission_repo="", time_limit=60, dataset="", submission_filenames=["submission.csv"])
    metric_file = hub.hf_hub_download(repo_id=params.competition_id, filename="metric.py", token=params.token,
                                      repo_type="dataset")
    sys.path.append(os.path.dirname(metric_file))
    metric = importlib.import_module("metric")
    evaluation = metric.compute(params)
    if evaluation["public_score"].keys() != evaluation["private_score"].keys():
        raise ValueError("Public and private scores have different keys")
    print(json.dumps(evaluation, indent=4))
''')


def test_hf_metric_alone_under_the_space_python(bundles, tmp_path):
    import uuid

    repo = tmp_path / "competition_repo"  # what the organizer uploads (bundle README step 1), plus the uploads
    (repo / "submissions").mkdir(parents=True)
    for name in ("metric.py", "solution.csv"):
        shutil.copy(bundles["hf"] / name, repo / name)
    with zipfile.ZipFile(tmp_path / "zipped.zip", "w") as zf:
        zf.write(SUBS / "partial.csv", "partial.csv")
    shutil.copy(SUBS / "partial.csv", tmp_path / "partial.CSV")
    script = tmp_path / "run.py"
    script.write_text(HF_RUN)
    expected = EXPECTED[COMPETITION]["partial"]
    for upload in (SUBS / "partial.csv", tmp_path / "zipped.zip", tmp_path / "partial.CSV"):
        sub_id = str(uuid.uuid4())  # competitions/submissions.py ~262, ~276-284: stored with the last-dot extension
        shutil.copy(upload, repo / "submissions" / f"team7-{sub_id}.{upload.name.split('.')[-1]}")
        res = _run([python(HF), str(script), str(Path(__file__).parent), str(repo), str(tmp_path / "cache"),
                    sub_id], tmp_path)
        assert res.returncode == 0, res.stderr
        out = json.loads(res.stdout)
        assert list(out["public_score"]) == list(out["private_score"]) == KEYS
        assert out["public_score"] == pytest.approx(expected["public"])
        assert out["private_score"] == pytest.approx(expected["private"])
    conf = json.loads((bundles["hf"] / "conf.json").read_text())
    assert conf["EVAL_METRIC"] == "custom" and conf["SCORING_METRIC"] == "transect_f1"


# --- Kaggle -----------------------------------------------------------------------------------------------------

def _load_kaggle_metric(bundles):
    import importlib.util

    spec = importlib.util.spec_from_file_location("agrieval_metric", bundles["kaggle"] / "agrieval_metric.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kaggle_file_has_real_annotations_and_scores_both_splits(bundles):
    import inspect

    import pandas as pd

    metric = _load_kaggle_metric(bundles)
    sig = inspect.signature(metric.score)
    assert [p.annotation for p in sig.parameters.values()] == [pd.DataFrame, pd.DataFrame, str]
    assert sig.return_annotation is float
    assert metric.ParticipantVisibleError.__name__ == "ParticipantVisibleError"
    solution = pd.read_csv(bundles["kaggle"] / "solution.csv", dtype=str, keep_default_na=False)
    submission = pd.read_csv(SUBS / "partial.csv", dtype=str, keep_default_na=False)
    for usage in ("Public", "Private"):
        part = solution[solution.Usage == usage].drop(columns="Usage").reset_index(drop=True)
        rows = submission[submission.quadrat_id.isin(part.quadrat_id)].reset_index(drop=True)
        assert metric.score(part, rows, "quadrat_id") == pytest.approx(
            EXPECTED[COMPETITION]["partial"][usage.lower()]["transect_f1"])


def _score_in_pool_worker(path: str) -> float:
    import importlib.util

    import pandas as pd

    spec = importlib.util.spec_from_file_location("agrieval_metric_pool", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    solution = pd.read_csv(SOLUTION, dtype=str, keep_default_na=False)
    part = solution[solution.Usage == "Public"].drop(columns="Usage").reset_index(drop=True)
    sub = pd.read_csv(SUBS / "perfect.csv", dtype=str, keep_default_na=False)
    return module.score(part, sub[sub.quadrat_id.isin(part.quadrat_id)].reset_index(drop=True), "quadrat_id")


def test_kaggle_metric_runs_inside_a_daemonic_pool_worker(bundles):
    import multiprocessing as mp

    with mp.get_context("fork").Pool(1) as pool:  # pool workers are daemonic: no child process there
        assert pool.apply(_score_in_pool_worker, (str(bundles["kaggle"] / "agrieval_metric.py"),)) == 1.0
