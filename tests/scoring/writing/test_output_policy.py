"""Issue 12: ctv summarize/report and leaderboard write through the output policy; a submission whose
file name is not UTF-8 does not stop the leaderboard (item 9)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.cli.main import cli

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "examples" / "ctv" / "RESULTS.csv"
RUNS = ROOT / "examples" / "ctv" / "runs"
AGRI = ROOT / "reference_submissions" / "agrichallenge2024"


def invoke(*args):
    return CliRunner().invoke(cli, [os.fsdecode(os.fspath(a)) if isinstance(a, (Path, bytes)) else a for a in args])


def test_summarize_out_never_replaces_its_input_nor_an_existing_file(tmp_path):
    results = tmp_path / "RESULTS.csv"
    shutil.copy(RESULTS, results)
    before = results.read_bytes()
    res = invoke("ctv", "summarize", results, "--out", results)
    assert res.exit_code == 2 and "error [output_is_input]" in res.stderr and res.stdout == ""
    res = invoke("ctv", "summarize", results, "--out", results, "--overwrite")
    assert res.exit_code == 2 and results.read_bytes() == before
    out = tmp_path / "summary.md"
    out.write_text("my notes\n")
    res = invoke("ctv", "summarize", results, "--out", out)
    assert res.exit_code == 2 and "error [output_exists]" in res.stderr and out.read_text() == "my notes\n"
    res = invoke("ctv", "summarize", results, "--out", out, "--json")
    assert res.exit_code == 2 and json.loads(res.stdout)["errors"][0]["code"] == "output_exists"
    assert invoke("ctv", "summarize", results, "--out", out, "--overwrite").exit_code == 0
    assert out.read_text().startswith("#") or "|" in out.read_text()


def test_report_refuses_an_earlier_report_unless_overwrite(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(RUNS, runs)
    out = tmp_path / "report"
    assert invoke("ctv", "report", runs, "--out", out).exit_code == 0
    (out / "report.md").write_text("edited\n")
    res = invoke("ctv", "report", runs, "--out", out)
    assert res.exit_code == 2 and "error [output_exists]" in res.stderr
    assert (out / "report.md").read_text() == "edited\n"
    assert invoke("ctv", "report", runs, "--out", out, "--overwrite").exit_code == 0
    assert (out / "report.md").read_text() != "edited\n"


def _board(tmp_path, *extra):
    return invoke("leaderboard", tmp_path / "subs", "-s", AGRI / "solution.csv", "-c", "agrichallenge2024",
                  "--resamples", "0", *extra)


def _subs(tmp_path) -> Path:
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("perfect.csv", "constant_chene.csv"):
        shutil.copy(AGRI / "submissions" / name, subs / name)
    return subs


def test_leaderboard_out_policy(tmp_path):
    subs = _subs(tmp_path)
    res = _board(tmp_path, "--out", subs)
    assert res.exit_code == 2 and "error [output_in_source]" in res.stderr
    assert sorted(p.name for p in subs.iterdir()) == ["constant_chene.csv", "perfect.csv"]
    out = tmp_path / "board"
    assert _board(tmp_path, "--out", out).exit_code == 0
    (out / "leaderboard.csv").write_text("kept\n")
    res = _board(tmp_path, "--out", out)
    assert res.exit_code == 2 and "error [output_exists]" in res.stderr and "--overwrite" in res.stderr
    assert (out / "leaderboard.csv").read_text() == "kept\n"
    assert _board(tmp_path, "--out", out, "--overwrite").exit_code == 0
    assert (out / "leaderboard.csv").read_text().startswith("rank")


def test_a_submission_name_that_is_not_utf8_does_not_stop_the_board(tmp_path):
    subs = _subs(tmp_path)
    shutil.copy(AGRI / "submissions" / "perfect.csv", os.path.join(os.fsencode(subs), b"caf\xe9.csv"))
    out = tmp_path / "board"
    res = _board(tmp_path, "--out", out)
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader((out / "leaderboard.csv").open(encoding="utf-8")))
    assert sorted(r["name"] for r in rows) == ["caf%E9", "constant_chene", "perfect"]
    assert {r["name"]: r["status"] for r in rows}["caf%E9"] == "scored"
    json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert "caf%E9" in (out / "leaderboard.md").read_text(encoding="utf-8")


_names = st.binary(min_size=1, max_size=10).filter(
    lambda b: b"/" not in b and b"\x00" not in b and not b.startswith(b"."))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_names, min_size=1, max_size=3, unique=True))
def test_any_submission_file_name_gets_a_board(names):
    """A family of hostile file names (bytes, controls, look-alikes): each file is on the board, scored."""
    with tempfile.TemporaryDirectory() as tmp:
        subs = os.path.join(os.fsencode(tmp), b"subs")
        os.makedirs(subs)
        for n in names:
            shutil.copy(AGRI / "submissions" / "perfect.csv", os.path.join(subs, n + b".csv"))
        out = Path(tmp) / "board"
        res = invoke("leaderboard", subs, "-s", AGRI / "solution.csv", "-c", "agrichallenge2024",
                     "--resamples", "0", "--out", out, "--json")
        assert res.exit_code == 0, res.output
        board = json.loads(res.stdout)
        assert len(board["entries"]) == len(names)
        assert all(e["public"]["rank"] == 1 for e in board["entries"])  # every copy of `perfect` scored
        assert len({e["name"] for e in board["entries"]}) == len(names)
        for f in ("leaderboard.csv", "leaderboard.md", "leaderboard.json"):
            (out / f).read_bytes().decode("utf-8")


def test_report_plans_every_file_it_writes_from_several_folders(tmp_path):
    """The output policy is asked about every file before the first is written: the planned list is the
    written list, also with the paper figures, plots and the script's runs read from a second folder."""
    from agrieval.scoring.ctv.report import _compute, _planned_files, build_report
    from agrieval.scoring.writing.policy import OutputPlan

    ours, script = tmp_path / "ours", tmp_path / "script"
    shutil.copytree(RUNS, ours, ignore=shutil.ignore_patterns("agri_script"))
    shutil.copytree(RUNS / "agri_script", script)
    out = tmp_path / "report"
    result = build_report([ours, script], out, plots=True, plan=OutputPlan())
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    planned = _planned_files(_compute([ours, script], None, 95.0, None), True)
    assert written == sorted(result.files) == sorted(planned)
    assert {r["layout"] for r in result.runs} == {"agrieval", "agri_script"}
    res = invoke("ctv", "report", ours, script, "--out", out, "--plots")  # every one of them is now refused
    assert res.exit_code == 2 and "error [output_exists]" in res.stderr
