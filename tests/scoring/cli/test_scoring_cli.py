"""The command line contract: exit codes, one JSON object on stdout, fast start-up."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import TypeAdapter

from agrieval.scoring.authoring import schemas
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.report import ScoreReport

REPO = Path(__file__).resolve().parents[3]
REF = REPO / "reference_submissions" / "plantclef2025"
FILES = Path(__file__).parents[2] / "fixtures" / "submissions"
SOL = str(REF / "solution.csv")


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_score_table_exit_0():
    r = run("score", str(REF / "submissions/partial.csv"), "--solution", SOL, "--competition", "plantclef2025")
    assert r.exit_code == 0
    assert "transect_f1           0.5511 *" in r.output


def test_score_json_is_one_object_matching_schema():
    r = run("score", str(REF / "submissions/partial.csv"), "-s", SOL, "-c", "plantclef2025", "--json",
            "--reveal-private")
    assert r.exit_code == 0
    obj = json.loads(r.stdout)
    report = TypeAdapter(ScoreReport).validate_python(obj)
    assert report.status == "scored" and set(obj) >= {"schema_version", "competition", "status", "n_rows", "metrics",
                                                       "warnings", "errors"}
    assert obj["metrics"]["private"]["transect_f1"] == pytest.approx(
        json.loads((REPO / "reference_submissions/expected_scores.json").read_text())
        ["plantclef2025"]["partial"]["private"]["transect_f1"])


def test_rejected_submission_exit_1_json():
    r = run("score", str(REF / "submissions/malformed/duplicate_id.csv"), "-s", SOL, "-c", "plantclef2025", "--json")
    assert r.exit_code == 1
    obj = json.loads(r.stdout)
    assert obj["status"] == "rejected" and obj["errors"][0]["code"] == "duplicate_id"
    assert obj["errors"][0]["line"] == 42 and obj["errors"][0]["column"] == 1


def test_usage_error_exit_2():
    r = CliRunner().invoke(cli, ["score", str(REF / "submissions/partial.csv"), "-c", "plantclef2025"])
    assert r.exit_code == 2


def test_host_problem_exit_3_bad_solution(tmp_path):
    bad = tmp_path / "solution.csv"
    bad.write_text("quadrat_id,species_ids,Usage\nA-20230101,[1355868],Maybe\n")
    r = run("score", str(REF / "submissions/partial.csv"), "-s", str(bad), "-c", "plantclef2025", "--json")
    assert r.exit_code == 3
    obj = json.loads(r.stdout)
    assert obj["status"] == "error" and obj["errors"][0]["code"] == "solution_invalid"


def test_host_problem_exit_3_bad_definition_names_the_key():
    r = run("score", str(REF / "submissions/partial.csv"), "-s", SOL, "-c", str(FILES / "bad_definition.toml"))
    assert r.exit_code == 3
    assert "limits.max_rows must be > 0" in r.stderr


def test_definition_with_metric_of_other_task_is_refused(tmp_path):
    text = (FILES / "bad_definition.toml").read_text().replace("max_rows = -5", "max_rows = 5")
    (tmp_path / "d.toml").write_text(text)
    r = run("validate", str(REF / "submissions/partial.csv"), "-c", str(tmp_path / "d.toml"))
    assert r.exit_code == 3 and "primary_metric 'accuracy' is not one of" in r.stderr


def test_unknown_competition_is_a_usage_error():
    r = run("validate", str(REF / "submissions/partial.csv"), "-c", "plantclef2099")
    assert r.exit_code == 2 and "error [unknown_competition]" in r.stderr and "plantclef2025" in r.stderr


def test_validate_lists_every_problem_and_exit_codes():
    r = run("validate", str(FILES / "bad_list.csv"), "-c", "plantclef2025")
    assert r.exit_code == 1
    assert r.output.count("[list_syntax]") == 3 and "INVALID (3 error(s)" in r.output
    ok = run("validate", str(REF / "submissions/perfect.csv"), "-c", "plantclef2025", "--solution", SOL)
    assert ok.exit_code == 0 and "valid for plantclef2025" in ok.output
    missing = run("validate", str(FILES / "missing_ids.csv"), "-c", "plantclef2025", "--solution", SOL, "--json")
    assert missing.exit_code == 1 and json.loads(missing.stdout)["errors"][0]["code"] == "missing_ids"


def test_agri_own_team_and_vtg():
    agri = REPO / "reference_submissions" / "agrichallenge2024"
    r = run("score", str(agri / "submissions/baseline_trained_on_team_a.csv"), "-s", str(agri / "solution.csv"),
            "-c", "agrichallenge2024", "--own-team", "team_a", "--val-accuracy", "0.98", "--json")
    obj = json.loads(r.stdout)
    pub = obj["metrics"]["public"]
    assert pub["cross_team_accuracy"] == pytest.approx(0.6) and pub["vtg"] == pytest.approx(0.38)
    assert obj["details"]["public"]["per_group_accuracy"]["team_a"] == 1.0
    bad = run("score", str(agri / "submissions/perfect.csv"), "-s", str(agri / "solution.csv"),
              "-c", "agrichallenge2024", "--val-accuracy", "98")
    assert bad.exit_code == 2 and "fraction" in bad.stderr and "[bad_option]" in bad.stderr  # a usage error (issue 22)


def test_competitions_list_and_show():
    r = run("competitions")
    assert r.exit_code == 0 and all(n in r.output for n in ("plantclef2025", "plantclef2024", "agrichallenge2024"))
    s = run("competitions", "show", "plantclef2024")
    assert 'delimiter = ";"' in s.output


@pytest.mark.parametrize("name", sorted(schemas._SCHEMAS))
def test_exported_json_schemas_are_current(name):
    assert (REPO / "docs" / name).read_text() == schemas.text(name), "run python -m agrieval.scoring.authoring.schemas"


@pytest.mark.parametrize("argv", [["score", "-s", SOL], ["score", "-s", SOL, "--json"], ["validate"], ["grade", "-s", SOL]])
def test_a_shipped_competition_is_scored_without_heavy_imports(argv):
    """The console script's own function (``agrieval.scoring.cli.main:cli``): the subcommand imported lazily, and on a
    shipped (frozen) definition no pydantic either."""
    code = ("import sys; from agrieval.scoring.cli.main import cli\n"
            "try:\n    cli(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('torch', 'PIL', 'scipy', 'matplotlib', 'sklearn', 'timm', 'agrieval.data_tools', 'agrieval.baselines',"
            " 'pandas', 'pydantic')"
            " if m in sys.modules]\nprint('HEAVY', heavy)")
    command, *options = argv
    out = subprocess.run([sys.executable, "-c", code, command, str(REF / "submissions/partial.csv"), *options,
                          "-c", "plantclef2025"], capture_output=True, text=True, check=True).stdout
    assert out.rstrip().endswith("HEAVY []") and ("transect_f1" in out or "valid for" in out), out


def test_error_catalogue_doc_is_current():
    from agrieval.scoring.cli._failures import markdown
    from agrieval.scoring.runtime.problems import errors_markdown

    assert (REPO / "docs/errors.md").read_text() == markdown()
    assert markdown().startswith(errors_markdown().rstrip("\n"))  # the runtime's codes as it writes them


@pytest.mark.parametrize("usage", ["none", "all_public"])
def test_reveal_private_says_why_the_private_split_is_empty(tmp_path, usage):
    """A solution without a split column (or without a private row) gives '-' in every private cell, and says why."""
    import csv

    agri = REPO / "reference_submissions" / "agrichallenge2024"
    rows = list(csv.reader((agri / "solution.csv").open(newline="")))
    k = rows[0].index("Usage")
    rows = [r[:k] + r[k + 1:] for r in rows] if usage == "none" else \
        [rows[0]] + [r[:k] + ["Public"] + r[k + 1:] for r in rows[1:]]
    sol = tmp_path / "solution.csv"
    with sol.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    sub = str(agri / "submissions" / "constant_chene.csv")
    args = ("score", sub, "--solution", str(sol), "--competition", "agrichallenge2024", "--reveal-private")
    r = run(*args)
    assert r.exit_code == 0, r.output
    table = r.output.split("\n\n")[1]
    private = [line.split()[2] for line in table.splitlines() if line.startswith(("accuracy ", "macro_f1 "))]
    assert private == ["-", "-"]
    why = ("the solution has no split column 'Usage', so every row is public" if usage == "none"
           else "no row of the solution's 'Usage' column is 'Private'")
    assert f"(private '-': {why}" in r.output
    report = json.loads(run(*args, "--json").output)
    assert report["metrics"]["private"] == {} and why in report["details"]["private"]["why_empty"]


@pytest.mark.parametrize("command, solution", [(("grade", "--participant-only"), "missing"),
                                               (("grade", "--participant-only"), "invalid"),
                                               (("score", "--json"), "invalid")])  # score: a missing one is usage
def test_a_failure_names_the_competition_as_its_definition_does(tmp_path, monkeypatch, command, solution):
    """A custom competition given as a path (orchard.toml): the failure's JSON says its name, not the path."""
    toml = (REPO / "scoring" / "competitions" / "agrichallenge2024.toml").read_text(encoding="utf-8")
    (tmp_path / "orchard.toml").write_text(toml.replace('name = "agrichallenge2024"', 'name = "orchard"', 1),
                                           encoding="utf-8")
    if solution == "invalid":
        (tmp_path / "solution.csv").write_text("image_id,label\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    sub = str(REPO / "reference_submissions" / "agrichallenge2024" / "submissions" / "constant_chene.csv")
    r = run(command[0], sub, "--solution", "solution.csv", "--competition", "orchard.toml", command[1])
    out = json.loads(r.stdout)
    assert out["status"] == "error" and out["competition"] == "orchard", r.stdout
