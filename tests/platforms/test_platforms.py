"""Each hook end to end, in its platform's calling convention, on the reference submissions."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.problems import HostError
from tests.platforms.hook_drivers import COMPETITION, CORPUS, ROOT, SOLUTION, hf_definition, hf_repo

EXPECTED = json.loads((ROOT / "reference_submissions" / "expected_scores.json").read_text())
SUBMISSIONS = ROOT / "reference_submissions"
GOOD = {c: sorted(n for n, v in EXPECTED[c].items() if v.get("status") == "scored") for c in EXPECTED}
PRIMARY = {"plantclef2025": "transect_f1", "agrichallenge2024": "accuracy"}


# --- Kaggle -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("competition", sorted(GOOD))
def test_kaggle_scores_public_and_private_subsets_like_the_harness(competition):
    from agrieval.scoring.runtime._platforms.kaggle import score

    solution = pd.read_csv(SUBMISSIONS / competition / "solution.csv", dtype=str, keep_default_na=False)
    id_col = solution.columns[0]
    for name in GOOD[competition]:
        submission = pd.read_csv(SUBMISSIONS / competition / "submissions" / f"{name}.csv", dtype=str,
                                 keep_default_na=False)
        for usage, split in (("Public", "public"), ("Private", "private")):
            sol = solution[solution["Usage"] == usage].drop(columns="Usage").reset_index(drop=True)
            sub = submission[submission[id_col].isin(sol[id_col])].reset_index(drop=True)
            value = score(sol.copy(), sub.copy(), id_col, competition=competition)
            assert value == pytest.approx(EXPECTED[competition][name][split][PRIMARY[competition]], abs=1e-12)


def test_kaggle_ignored_rows_are_required_but_not_scored():
    from agrieval.scoring.runtime._platforms.kaggle import score

    solution = pd.read_csv(SOLUTION, dtype=str, keep_default_na=False)
    submission = pd.read_csv(SUBMISSIONS / COMPETITION / "submissions" / "partial.csv", dtype=str,
                             keep_default_na=False)
    public = solution[solution.Usage == "Public"]
    reference = score(public.drop(columns="Usage"), submission[submission.quadrat_id.isin(public.quadrat_id)],
                      "quadrat_id")
    with_ignored = solution.copy()
    with_ignored.loc[with_ignored.Usage == "Private", "Usage"] = "Ignored"
    # The participant's answers on the ignored rows are wrong on purpose: they must not count.
    wrong = submission.copy()
    ignored_ids = with_ignored.quadrat_id[with_ignored.Usage == "Ignored"]
    wrong.loc[wrong.quadrat_id.isin(ignored_ids), "species_ids"] = "[]"
    assert score(with_ignored, wrong, "quadrat_id") == pytest.approx(reference)


def test_kaggle_errors_are_participant_visible_and_name_no_id():
    from agrieval.scoring.runtime._platforms.kaggle import ParticipantVisibleError, score

    solution = pd.read_csv(SOLUTION, dtype=str, keep_default_na=False)
    private = solution[solution.Usage == "Private"].drop(columns="Usage")
    submission = pd.read_csv(SUBMISSIONS / COMPETITION / "submissions" / "perfect.csv", dtype=str,
                             keep_default_na=False)
    with pytest.raises(ParticipantVisibleError) as exc:
        score(private, submission, "quadrat_id")  # the whole submission against one split
    assert not any(i in str(exc.value) for i in solution.quadrat_id)
    with pytest.raises(HostError):
        score(private, submission, "plot_id")  # the host configured the wrong id column


# --- Codabench / CodaLab: run as bundles under the platforms' interpreters, see test_bundles.py ------------------

# --- EvalAI -----------------------------------------------------------------------------------------------------

def test_evalai_result_structure_and_phases():
    from agrieval.scoring.runtime._platforms.evalai import SubmissionRejected, make_evaluate

    evaluate = make_evaluate(COMPETITION)
    sub = str(SUBMISSIONS / COMPETITION / "submissions" / "over_predicting.csv")
    expected = EXPECTED[COMPETITION]["over_predicting"]
    dev = evaluate(str(SOLUTION), sub, "dev", submission_metadata={"status": "running"})
    assert [list(x) for x in dev["result"]] == [["public"]]
    assert dev["submission_result"] == {"public": pytest.approx(expected["public"])}
    test = evaluate(str(SOLUTION), sub, "test")
    assert [list(x) for x in test["result"]] == [["public"], ["private"]]
    assert test["result"][1]["private"] == pytest.approx(expected["private"])
    # The participant's "Result file" never holds the private split, even on the private phase.
    assert test["submission_result"] == {"public": test["result"][0]["public"]}
    with pytest.raises(HostError):
        evaluate(str(SOLUTION), sub, "no_such_phase")
    with pytest.raises(SubmissionRejected, match=r"\[wrong_delimiter\]"):
        evaluate(str(SOLUTION), str(CORPUS / "tsv.csv"), "dev")


# --- Hugging Face competitions ----------------------------------------------------------------------------------

@pytest.mark.parametrize("upload", ["partial.csv", "partial.zip"])
def test_hf_compute_with_platform_params(tmp_path, definition, upload):
    from agrieval.scoring.runtime._platforms.hf import make_compute

    source = SUBMISSIONS / COMPETITION / "submissions" / "partial.csv"
    if upload.endswith(".zip"):  # the platform keeps the upload's extension: submissions/<team>-<id>.zip
        import zipfile

        with zipfile.ZipFile(tmp_path / upload, "w") as zf:
            zf.write(source, "partial.csv")
        source = tmp_path / upload
    params, repo = hf_repo(tmp_path / "w", source)
    out = make_compute(hf_definition(definition))(params)
    assert list(out["public_score"]) == list(out["private_score"])
    assert list(out["public_score"])[0] == "transect_f1"  # the primary metric first (SCORING_METRIC)
    assert out["public_score"] == pytest.approx(EXPECTED[COMPETITION]["partial"]["public"])
    assert out["private_score"] == pytest.approx(EXPECTED[COMPETITION]["partial"]["private"])
    assert all(type(v) is float for v in out["public_score"].values())


def test_hf_compute_fetches_from_the_hub_by_repo_id(tmp_path, definition, monkeypatch):
    """competition_id is a Hub repo id: the metric downloads solution.csv and the upload as the platform does; the
    real hf_hub_download answers a symbolic link into the cache's blobs (fake_hub.py), which must still score."""
    from agrieval.scoring.runtime._platforms.hf import make_compute
    from tests.platforms.fake_hub import hub_module

    params, repo = hf_repo(tmp_path, SUBMISSIONS / COMPETITION / "submissions" / "perfect.csv")
    calls = []
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub_module(repo, tmp_path / "cache",
                                                                   "agrieval-org/plantclef-demo", calls))
    params.competition_id = "agrieval-org/plantclef-demo"
    out = make_compute(hf_definition(definition))(params)
    assert out["private_score"]["transect_f1"] == 1.0
    assert calls[0] == ("agrieval-org/plantclef-demo", "solution.csv", "dataset", "hf_unused")
    assert calls[1][1] == "submissions/team7-sub42.csv"
    params.submission_id = "nothing-here"
    with pytest.raises(HostError, match="no upload"):
        make_compute(hf_definition(definition))(params)


@pytest.mark.parametrize("name", ["partial.CSV", "partial.txt", "partial.csv.zip"])
def test_hf_compute_finds_an_upload_stored_with_another_extension(tmp_path, definition, monkeypatch, name):
    """The platform stores `sub.CSV` as submissions/<team>-<id>.CSV (the uploaded name's last dot, case kept:
    huggingface/competitions submissions.py ~276-281); the metric finds it through the repository listing."""
    from agrieval.scoring.runtime._platforms.hf import make_compute
    from tests.platforms.fake_hub import hub_module

    source = SUBMISSIONS / COMPETITION / "submissions" / "partial.csv"
    upload = tmp_path / name
    if name.endswith(".zip"):
        import zipfile

        with zipfile.ZipFile(upload, "w") as zf:
            zf.write(source, "partial.csv")
    else:
        upload.write_bytes(source.read_bytes())
    params, repo = hf_repo(tmp_path / "w", upload)
    assert (repo / "submissions" / f"team7-sub42.{name.split('.')[-1]}").is_file()
    expected = EXPECTED[COMPETITION]["partial"]["private"]
    assert make_compute(hf_definition(definition))(params)["private_score"] == pytest.approx(expected)
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub_module(repo, tmp_path / "cache", "org/c"))
    params.competition_id = "org/c"
    assert make_compute(hf_definition(definition))(params)["private_score"] == pytest.approx(expected)


# --- agrieval grade ---------------------------------------------------------------------------------------------

def test_grade_command_prints_one_json_object_and_matches_the_function(tmp_path):
    from agrieval.scoring.runtime.guard import grade

    sub = SUBMISSIONS / COMPETITION / "submissions" / "partial.csv"
    res = subprocess.run([sys.executable, "-m", "agrieval.scoring.cli.main", "grade", str(sub), "--solution", str(SOLUTION),
                          "--competition", COMPETITION], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)
    assert set(payload) >= {"status", "metrics", "warnings", "errors", "host"}
    assert "private" not in payload["metrics"]
    in_process = grade(sub, SOLUTION, COMPETITION).to_dict()
    for d in (payload, in_process):
        d["host"].pop("elapsed_seconds")
    assert payload == in_process
    revealed = CliRunner().invoke(cli, ["grade", str(sub), "-s", str(SOLUTION), "-c", COMPETITION,
                                        "--reveal-private"])
    assert json.loads(revealed.stdout)["metrics"]["private"] == pytest.approx(EXPECTED[COMPETITION]["partial"]["private"])
    bad_solution = tmp_path / "s.csv"
    bad_solution.write_text("x\n")
    host = CliRunner().invoke(cli, ["grade", str(sub), "-s", str(bad_solution), "-c", COMPETITION])
    assert host.exit_code == 3
    body = json.loads(host.stdout)
    assert body["status"] == "error" and body["errors"][0]["code"] == "internal_error"
    assert body["host"]["diagnostics"][0]["code"] == "solution_invalid"
