"""Each hook end to end, in its platform's calling convention, on the reference submissions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hook_drivers import COMPETITION, CORPUS, ROOT, SOLUTION, EvalParams, codabench_layout, hf_repo

from scoring.cli.main import cli
from scoring.problems import HostError

EXPECTED = json.loads((ROOT / "reference_submissions" / "expected_scores.json").read_text())
SUBMISSIONS = ROOT / "reference_submissions"
GOOD = {c: sorted(n for n, v in EXPECTED[c].items() if v.get("status") == "scored") for c in EXPECTED}
PRIMARY = {"plantclef2025": "transect_f1", "agrichallenge2024": "accuracy"}


# --- Kaggle -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("competition", sorted(GOOD))
def test_kaggle_scores_public_and_private_subsets_like_the_harness(competition):
    from scoring.hooks.kaggle import score

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
    from scoring.hooks.kaggle import score

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
    from scoring.hooks.kaggle import ParticipantVisibleError, score

    solution = pd.read_csv(SOLUTION, dtype=str, keep_default_na=False)
    private = solution[solution.Usage == "Private"].drop(columns="Usage")
    submission = pd.read_csv(SUBMISSIONS / COMPETITION / "submissions" / "perfect.csv", dtype=str,
                             keep_default_na=False)
    with pytest.raises(ParticipantVisibleError) as exc:
        score(private, submission, "quadrat_id")  # the whole submission against one split
    assert not any(i in str(exc.value) for i in solution.quadrat_id)
    with pytest.raises(HostError):
        score(private, submission, "plot_id")  # the host configured the wrong id column


# --- Codabench --------------------------------------------------------------------------------------------------

def _run_program(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_codabench_program_as_the_worker_runs_it(tmp_path):
    ok = SUBMISSIONS / COMPETITION / "submissions" / "partial.csv"
    inp, out = codabench_layout(tmp_path / "a", ok)
    res = _run_program(["-m", "scoring.hooks.codabench", str(inp), str(out), "--competition", COMPETITION,
                        "--split", "private"], ROOT)
    assert res.returncode == 0, res.stderr
    scores = json.loads((out / "scores.json").read_text())
    assert scores == pytest.approx(EXPECTED[COMPETITION]["partial"]["private"])
    assert (out / "metadata").read_text() == "worker-owned\n"

    inp, out = codabench_layout(tmp_path / "b", CORPUS / "formula_ids.csv")
    res = _run_program(["-m", "scoring.hooks.codabench", str(inp), str(out), "--competition", COMPETITION], ROOT)
    assert res.returncode == 1
    assert "[invalid_id]" in res.stderr and "spreadsheet formula" in res.stderr
    assert "Traceback" not in res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["metadata"]


def test_bundle_writes_a_program_that_runs_on_its_own(tmp_path):
    runner = CliRunner()
    bundle = tmp_path / "bundle"
    res = runner.invoke(cli, ["bundle", "codabench", "--competition", COMPETITION, "--solution", str(SOLUTION),
                              str(bundle)])
    assert res.exit_code == 0, res.output
    program = bundle / "scoring_program"
    meta = (program / "metadata.yaml").read_text()
    assert meta.startswith("command: python3 /app/program/score.py /app/input /app/output\n")
    assert (bundle / "reference_data" / "solution.csv").read_bytes() == SOLUTION.read_bytes()
    # Run the command line as the worker does, with /app replaced by our folders.
    work = tmp_path / "app"
    inp, out = codabench_layout(work, SUBMISSIONS / COMPETITION / "submissions" / "baseline_top5_common.csv")
    command = meta.split("\n")[0].removeprefix("command: ").replace("/app/program", str(program)) \
        .replace("/app/input", str(inp)).replace("/app/output", str(out)).split()
    res = subprocess.run([sys.executable, *command[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    expected = EXPECTED[COMPETITION]["baseline_top5_common"]["public"]
    assert json.loads((out / "scores.json").read_text()) == pytest.approx(expected)
    # The bundled copy of the package is the one that ran.
    probe = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(program)!r}); "
                            "import scoring; print(scoring.__file__)"], capture_output=True, text=True, cwd=tmp_path)
    assert probe.stdout.strip().startswith(str(program))
    # Never over a non-empty folder; a bad solution is a host error.
    again = runner.invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(SOLUTION), str(bundle)])
    assert again.exit_code == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("nope\n")
    assert runner.invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(bad),
                               str(tmp_path / "b2")]).exit_code == 3


def test_codalab_flavour_uses_the_worker_variables(tmp_path):
    res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(SOLUTION),
                                   "--platform", "codalab", str(tmp_path / "b")])
    assert res.exit_code == 0
    assert (tmp_path / "b" / "scoring_program" / "metadata").read_text().startswith(
        "command: python3 $program/score.py $input $output\n")


# --- EvalAI -----------------------------------------------------------------------------------------------------

def test_evalai_result_structure_and_phases():
    from scoring.hooks.evalai import SubmissionRejected, make_evaluate

    evaluate = make_evaluate(COMPETITION)
    sub = str(SUBMISSIONS / COMPETITION / "submissions" / "over_predicting.csv")
    expected = EXPECTED[COMPETITION]["over_predicting"]
    dev = evaluate(str(SOLUTION), sub, "dev", submission_metadata={"status": "running"})
    assert [list(x) for x in dev["result"]] == [["public"]]
    assert dev["submission_result"] == pytest.approx(expected["public"])
    test = evaluate(str(SOLUTION), sub, "test")
    assert [list(x) for x in test["result"]] == [["public"], ["private"]]
    assert test["result"][1]["private"] == pytest.approx(expected["private"])
    assert test["submission_result"] == test["result"][1]["private"]
    with pytest.raises(HostError):
        evaluate(str(SOLUTION), sub, "no_such_phase")
    with pytest.raises(SubmissionRejected, match=r"\[wrong_delimiter\]"):
        evaluate(str(SOLUTION), str(CORPUS / "tsv.csv"), "dev")


# --- Hugging Face competitions ----------------------------------------------------------------------------------

def test_hf_compute_with_platform_params(tmp_path, definition):
    from scoring.hooks.hf_competitions import make_compute

    params, repo = hf_repo(tmp_path, SUBMISSIONS / COMPETITION / "submissions" / "partial.csv", definition)
    out = make_compute(repo / "plantclef2025_hf.toml")(params)
    assert out["public_score"].keys() == out["private_score"].keys()
    assert out["public_score"] == pytest.approx(EXPECTED[COMPETITION]["partial"]["public"])
    assert out["private_score"] == pytest.approx(EXPECTED[COMPETITION]["partial"]["private"])
    # Script competitions: the participant's code wrote submission.csv into output_path.
    (Path(params.output_path)).mkdir()
    (Path(params.output_path) / "submission.csv").write_bytes(
        (SUBMISSIONS / COMPETITION / "submissions" / "perfect.csv").read_bytes())
    params.competition_type = "script"
    assert make_compute(repo / "plantclef2025_hf.toml")(params)["private_score"]["transect_f1"] == 1.0


def test_hf_compute_reads_local_files_only(tmp_path):
    from scoring.hooks.hf_competitions import make_compute

    params = EvalParams(competition_id="someone/plantclef", competition_type="generic", team_id="t",
                        submission_id="s", submission_id_col="quadrat_id", output_path=str(tmp_path))
    with pytest.raises(HostError, match="local"):
        make_compute(COMPETITION)(params)


# --- agrieval grade ---------------------------------------------------------------------------------------------

def test_grade_command_prints_one_json_object_and_matches_the_function(tmp_path):
    from scoring.hooks import grade

    sub = SUBMISSIONS / COMPETITION / "submissions" / "partial.csv"
    res = subprocess.run([sys.executable, "-m", "scoring.cli.main", "grade", str(sub), "--solution", str(SOLUTION),
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
