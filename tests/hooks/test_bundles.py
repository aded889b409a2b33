"""Each bundle built by `agrieval bundle`, then run as its platform runs it, under the platform's interpreter.

Layouts, call signatures and what is read back follow ``shared/platforms.md``;
the interpreters are the venvs of ``.ci/interpreters`` (numpy only).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hook_drivers import COMPETITION, CORPUS, ROOT, SOLUTION, codabench_layout
from platform_pythons import CODABENCH, EVALAI, HF, python

from scoring.cli.main import cli

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

@pytest.mark.parametrize("platform", ["codabench", "codalab"])
def test_codabench_and_codalab_programs_run_under_the_legacy_image_python(bundles, platform, tmp_path):
    bundle = bundles[platform]
    meta = (bundle / "scoring_program" / ("metadata.yaml" if platform == "codabench" else "metadata")).read_text()
    command = yaml.safe_load(meta)["command"]
    assert command == "python3 $program/score.py $input $output"
    inp, out = codabench_layout(tmp_path, SUBS / "partial.csv")  # input/res also holds the worker's metadata
    shutil.copy(SOLUTION, inp / "ref" / "solution.csv")
    program = bundle / "scoring_program"
    argv = command.replace("$program", str(program)).replace("$input", str(inp)).replace("$output", str(out)).split()
    res = _run([python(CODABENCH), *argv[1:]], cwd=program)  # the worker's working dir is the program
    assert res.returncode == 0, res.stderr
    expected = EXPECTED[COMPETITION]["partial"]["public"]
    assert json.loads((out / "scores.json").read_text()) == pytest.approx(expected)
    # CodaLab reads scores.txt only, as YAML "key: value" lines.
    assert yaml.safe_load((out / "scores.txt").read_text()) == pytest.approx(expected)
    assert "0.55" not in res.stdout  # no score in the logs unless --show-scores
    assert (out / "metadata").read_text() == "worker-owned\n"


def test_private_phase_program_writes_the_private_split(bundles, tmp_path):
    inp, out = codabench_layout(tmp_path, SUBS / "partial.csv")
    res = _run([python(CODABENCH), "score.py", str(inp), str(out)], cwd=bundles["codabench-private"] / "scoring_program")
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "scores.json").read_text()) == pytest.approx(EXPECTED[COMPETITION]["partial"]["private"])


def test_codabench_rejection_host_failure_and_old_python_are_told_apart(bundles, tmp_path):
    program = bundles["codabench"] / "scoring_program"
    inp, out = codabench_layout(tmp_path / "a", CORPUS / "formula_ids.csv")
    (out / "scores.json").write_text('{"transect_f1": 1.0}')  # left by an earlier run: must not survive a rejection
    res = _run([python(CODABENCH), "score.py", str(inp), str(out)], cwd=program)
    assert res.returncode == 1
    assert res.stderr.startswith("formula_ids.csv:4:1: error [invalid_id]") and "Traceback" not in res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["metadata"]

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
    # As Cloud-CV/EvalAI scripts/workers/submission_worker.py: import the package, call evaluate with the log files
    # as stdout/stderr, and on an exception append traceback.format_exc() to stderr.
    import contextlib, importlib, json, sys, traceback
    sys.path.insert(0, sys.argv[1])
    module = importlib.import_module("evaluation_script")
    with open(sys.argv[5], "w") as out, open(sys.argv[6], "w") as err:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                result = module.evaluate(sys.argv[2], sys.argv[3], sys.argv[4], submission_metadata={"id": 1})
            print(json.dumps(result))
        except Exception:
            err.write(traceback.format_exc())
            sys.exit(1)
''')


@pytest.mark.parametrize("label", EVALAI)
def test_evalai_package_under_the_worker_pythons(bundles, label, tmp_path):
    work = tmp_path / "challenge_data"
    shutil.copytree(bundles["evalai"] / "evaluation_script", work / "evaluation_script")
    assert (work / "evaluation_script" / "requirements.txt").read_text() == "numpy>=1.21\n"
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    annotations = str(bundles["evalai"] / "annotations" / "solution.csv")
    logs = [str(tmp_path / "stdout.txt"), str(tmp_path / "stderr.txt")]
    res = _run([python(label), str(worker), str(work), annotations, str(SUBS / "partial.csv"), "test", *logs], tmp_path)
    assert res.returncode == 0, Path(logs[1]).read_text()
    out = json.loads(res.stdout)
    expected = EXPECTED[COMPETITION]["partial"]
    assert [list(split) for split in out["result"]] == [["public"], ["private"]]
    assert out["result"][1]["private"] == pytest.approx(expected["private"])
    assert out["submission_result"] == {"public": pytest.approx(expected["public"])}  # never the private split

    res = _run([python(label), str(worker), str(work), annotations, str(CORPUS / "tsv.csv"), "dev", *logs], tmp_path)
    assert res.returncode == 1
    stderr = Path(logs[1]).read_text()
    assert stderr.startswith("tsv.csv:1: error [wrong_delimiter]")  # the clean message before the worker's traceback
    config = yaml.safe_load((bundles["evalai"] / "challenge_config.yaml").read_text())
    codenames = {s["codename"] for s in config["dataset_splits"]}
    assert codenames == {"public", "private"}
    links = {(s["challenge_phase_id"], s["dataset_split_id"], s["visibility"]) for s in config["challenge_phase_splits"]}
    assert links == {(1, 1, 3), (2, 1, 3), (2, 2, 1)}  # dev: public; test: public + host-only private


# --- Hugging Face competitions -----------------------------------------------------------------------------------

HF_RUN = textwrap.dedent('''
    # As huggingface/competitions compute_metrics.py: metric.py is the only file downloaded; it is imported from
    # its folder and called with the EvalParams; competition_id is a Hub repo id. huggingface_hub is stood in for
    # by a module serving the repository's files from a local folder (no network here).
    import importlib, json, os, sys, types
    repo_dir, metric_dir, upload_name = sys.argv[1], sys.argv[2], sys.argv[3]
    def hf_hub_download(repo_id, filename, repo_type=None, token=None):
        assert repo_id == "agrieval-org/plantclef-demo" and repo_type == "dataset"
        path = os.path.join(repo_dir, filename)
        if not os.path.exists(path):
            raise type("EntryNotFoundError", (Exception,), {})(filename)
        return path
    sys.modules["huggingface_hub"] = types.SimpleNamespace(hf_hub_download=hf_hub_download)
    sys.path.append(metric_dir)
    metric = importlib.import_module("metric")
    params = types.SimpleNamespace(competition_id="agrieval-org/plantclef-demo", competition_type="generic",
        metric="custom", token="hf_x", team_id="team7", submission_id=upload_name, submission_id_col="quadrat_id",
        submission_cols=["quadrat_id", "species_ids"], submission_rows=40, output_path="/tmp/out",
        submission_repo="", time_limit=60, dataset="", submission_filenames=["submission.csv"])
    print(json.dumps(metric.compute(params)))
''')


def test_hf_metric_alone_under_the_space_python(bundles, tmp_path):
    from hook_drivers import hf_repo

    _params, repo = hf_repo(tmp_path, SUBS / "partial.csv")  # solution.csv with public/private in `split`
    with zipfile.ZipFile(repo / "submissions" / "team7-zipped.zip", "w") as zf:
        zf.write(SUBS / "partial.csv", "partial.csv")
    metric_dir = tmp_path / "download"
    metric_dir.mkdir()
    shutil.copy(bundles["hf"] / "metric.py", metric_dir / "metric.py")
    script = tmp_path / "run.py"
    script.write_text(HF_RUN)
    # The HF bundle's definition must use the HF split column: rebuild it for that solution.
    hf_bundle = tmp_path / "hf_bundle"
    definition_json = tmp_path / "plantclef2025_hf.json"
    from dataclasses import replace

    from hook_drivers import hf_definition

    from scoring.authoring.definitions import load_competition
    from scoring.runtime.definition import freeze

    definition_json.write_text(freeze(replace(hf_definition(load_competition(COMPETITION)), name="plantclef2025_hf")))
    res = CliRunner().invoke(cli, ["bundle", "hf", "-c", str(definition_json), "-s", str(repo / "solution.csv"),
                                   str(hf_bundle)])
    assert res.exit_code == 0, res.output
    shutil.copy(hf_bundle / "metric.py", metric_dir / "metric.py")
    expected = EXPECTED[COMPETITION]["partial"]
    for upload in ("sub42", "zipped"):
        res = _run([python(HF), str(script), str(repo), str(metric_dir), upload], tmp_path)
        assert res.returncode == 0, res.stderr
        out = json.loads(res.stdout)
        assert list(out["public_score"]) == list(out["private_score"]) == KEYS
        assert out["public_score"] == pytest.approx(expected["public"])
        assert out["private_score"] == pytest.approx(expected["private"])
    conf = json.loads((hf_bundle / "conf.json").read_text())
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
