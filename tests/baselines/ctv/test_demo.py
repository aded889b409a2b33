"""The embedded demo, at a smaller size: synthetic pool -> splits -> runs -> ``agrieval ctv report``."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("agrieval.data_tools.splits")
pytest.importorskip("agrieval.data_tools.resize")


def test_demo_sweep_produces_a_report(tmp_path):
    from agrieval.baselines.ctv.demo import run_demo

    lines = []
    code = run_demo(tmp_path, teams=3, per_class=3, epochs=1, threads=1, log=lines.append)
    assert code == 0, "\n".join(lines)
    runs = sorted(p.parent.relative_to(tmp_path / "runs").as_posix() for p in (tmp_path / "runs").rglob("run.json"))
    assert runs == [f"{p}/tiny_cnn/team0{i}" for p in ("loto", "toto") for i in (1, 2, 3)]
    report = tmp_path / "report"
    assert (report / "report.md").is_file() and (report / "cross_team_tiny_cnn.csv").is_file()
    summary = json.loads((report / "summary.json").read_text())
    assert summary  # the report read the 6 runs
    assert (report / "runs.csv").read_text().count("\n") == 7  # header + 6 runs
    # the demo's report has its figures, the line among them, and a point per epoch (test every epoch)
    assert (report / "plots" / "accuracy_on_the_line.png").is_file()
    assert (report / "plots" / "learning_curves.png").is_file()
    assert summary["accuracy_on_the_line"]["fits"][0]["n_points"] == 3  # 3 TOTO runs x 1 epoch
    # a second call reuses the splits and skips the finished runs
    again = []
    assert run_demo(tmp_path, teams=3, per_class=3, epochs=1, threads=1, log=again.append, report=False) == 0
    assert any(line.startswith("splits: reusing") for line in again)
    assert sum(line.startswith("skip ") for line in again) == 6
