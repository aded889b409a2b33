"""ctv report: run folders of both layouts, recomputed accuracies, TOTO matrix, report files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.cli.main import cli
from agrieval.scoring.ctv.cross_team_matrix import toto_matrices
from agrieval.scoring.ctv.run_set import read_runs
from tests.scoring.ctv.run_folders import write_run

EXAMPLE_RUNS = Path(__file__).resolve().parents[3] / "examples" / "ctv" / "runs"


@pytest.fixture
def toto_runs(tmp_path):
    root = tmp_path / "runs"  # a report is never written inside the runs it reads
    # three teams; model trained on a: val 9/10, b 6/10, c 4/10 -> test 10/20
    write_run(root, "TOTO", "net", "a", {("a", "val"): (9, 10), ("b", "test"): (6, 10), ("c", "test"): (4, 10)},
              {"val_acc": 0.9, "test_acc": 0.5})
    write_run(root, "TOTO", "net", "b", {("b", "val"): (10, 10), ("a", "test"): (8, 10), ("c", "test"): (5, 10)},
              {"val_acc": 1.0, "test_acc": 0.7})  # stated 0.7, true 13/20 = 0.65
    write_run(root, "TOTO", "net", "c", {("c", "val"): (7, 10), ("a", "test"): (3, 10), ("b", "test"): (9, 10)})
    return root


def test_accuracies_are_recomputed_and_mismatch_warned(toto_runs):
    rs = read_runs(toto_runs)
    by = {r.fold: r for r in rs.runs}
    assert (by["a"].pct("val"), by["a"].pct("test")) == (90.0, 50.0)
    assert by["b"].pct("test") == pytest.approx(100 * 13 / 20)
    assert {t: by["b"].team_pct(t) for t in by["b"].team_n} == {"a": 80.0, "c": 50.0}
    assert any("b/run.json: test_acc (x100): stored 70.0, recomputed from the predictions 65.0" in w
               for w in rs.warnings)
    assert not any("/a/" in w and "val_acc" in w for w in rs.warnings)
    assert [c.ok for c in rs.checks if "/a/" in c.file] == [True, True]


def test_cross_team_matrix_by_hand(toto_runs):
    (m,) = toto_matrices(read_runs(toto_runs).records)
    assert m.teams == ["a", "b", "c"]
    expected = np.array([[90, 60, 40], [80, 100, 50], [30, 90, 70]], float)
    np.testing.assert_allclose(m.values, expected)
    np.testing.assert_allclose(m.row_mean(), [50, 65, 60])  # diagonal left out
    np.testing.assert_allclose(m.row_range(), [20, 30, 60])
    np.testing.assert_allclose(m.col_mean(), [55, 75, 45])
    np.testing.assert_allclose(m.col_range(), [50, 30, 10])


def test_loto_is_inferred_and_contradictions_rejected(tmp_path):
    write_run(tmp_path, "LOTO", "net", "c", {("a", "val"): (9, 10), ("b", "val"): (8, 10), ("c", "test"): (5, 10)})
    (run,) = read_runs(tmp_path).runs
    assert (run.protocol, run.fold, run.pct("val"), run.pct("test")) == ("LOTO", "c", 85.0, 50.0)
    bad = tmp_path / "bad"
    write_run(bad, "TOTO", "net", "c", {("a", "val"): (9, 10), ("b", "val"): (8, 10), ("c", "test"): (5, 10)})
    with pytest.raises(InputError) as info:
        read_runs(bad)
    assert info.value.code == "bad_run" and "TOTO" in info.value.message and info.value.file.endswith("run.json")


def test_bad_split_value_names_line_and_column(tmp_path):
    d = write_run(tmp_path, "LOTO", "net", "c", {("a", "val"): (1, 1), ("c", "test"): (1, 1)})
    text = (d / "predictions.csv").read_text().replace(",test,", ",holdout,")
    (d / "predictions.csv").write_text(text)
    with pytest.raises(InputError) as info:
        read_runs(tmp_path)
    assert (info.value.line, info.value.column) == (3, 3)


def test_empty_folder(tmp_path):
    with pytest.raises(InputError) as info:
        read_runs(tmp_path)
    assert info.value.code == "no_runs"


def test_report_on_bundled_runs_with_plots(tmp_path):
    out = tmp_path / "rep"
    res = CliRunner().invoke(cli, ["ctv", "report", str(EXAMPLE_RUNS), "--out", str(out), "--plots"])
    assert res.exit_code == 0, res.output
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"report.md", "report.html", "runs.csv", "results.csv", "summary.json", "team_accuracy.csv",
            "cross_team_densenet121.csv", "cross_team_swin_base.csv", "plots/vtg_distribution.png",
            "plots/cross_team_swin_tiny.png", "plots/team_accuracy_TOTO.png"} <= names
    for png in out.glob("plots/*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "report.md").read_text()
    assert "![VTG distribution](plots/vtg_distribution.png)" in md
    # a run without train predictions says so (not "0 train images"), and every column is defined
    runs_table = md.split("## Runs\n\n")[1].split("\n## ")[0]
    lines = [line for line in runs_table.splitlines() if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    train = [r[header.index("Train images")] for r in rows]
    assert "no train predictions" in train and "0" not in train
    assert all(f"**{name}**" in runs_table.split("\n\n")[0] for name in header)
    assert "**Share > 95.0%** the fraction (0 to 1) of the group's teams whose test accuracy is above 95.0%" in md
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == len(list(out.glob("plots/*.png")))
    # the report's per-team table feeds back into ctv summarize
    res2 = CliRunner().invoke(cli, ["ctv", "summarize", str(out / "results.csv"), "--json"])
    assert res2.exit_code == 0
    summary = json.loads((out / "summary.json").read_text())
    again = json.loads(res2.stdout)
    assert [g["test_acc"]["mean"] for g in again["groups"]] == pytest.approx(
        [g["test_acc"]["mean"] for g in summary["groups"]], abs=1e-4)
    # recompute one run independently from its predictions file
    with (EXAMPLE_RUNS / "LOTO" / "swin_tiny" / "team02" / "predictions.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    test = [r["true_label"] == r["predicted_label"] for r in rows if r["split"] == "test"]
    runs = list(csv.DictReader((out / "runs.csv").open()))
    row = next(r for r in runs if (r["protocol"], r["arch"], r["fold"]) == ("LOTO", "swin_tiny", "team02"))
    assert float(row["test_acc"]) == pytest.approx(100 * np.mean(test), abs=1e-4)


def test_report_is_deterministic(tmp_path, toto_runs):
    for name in ("r1", "r2"):
        assert CliRunner().invoke(cli, ["ctv", "report", str(toto_runs), "--out", str(tmp_path / name)]).exit_code == 0
    for f in ("report.md", "report.html", "runs.csv", "summary.json", "cross_team_net.csv"):
        assert (tmp_path / "r1" / f).read_bytes() == (tmp_path / "r2" / f).read_bytes()
