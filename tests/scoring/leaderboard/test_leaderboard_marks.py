"""Leaderboard marks (scoring/leaderboard/_marks.py): a team the audit flagged, a score the Ladder held,
in every table and both charts; and `agrieval leaderboard --audit --ladder-states`."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli
from agrieval.scoring.leaderboard._marks import mark_flagged, mark_held
from agrieval.scoring.leaderboard.build import build_leaderboard
from agrieval.scoring.leaderboard.outputs import to_csv, to_dict, to_markdown
from agrieval.scoring.runtime.guard import grade

PC = Path(__file__).resolve().parents[3] / "reference_submissions" / "plantclef2025"
SOL = PC / "solution.csv"


@pytest.fixture()
def teams(tmp_path):
    """Two team folders; team beta's Ladder released over_predicting and held baseline_top5_common."""
    for team, names in {"alpha": ["partial", "perfect"], "beta": ["over_predicting", "baseline_top5_common"]}.items():
        (tmp_path / "subs" / team).mkdir(parents=True)
        for name in names:
            shutil.copy(PC / "submissions" / f"{name}.csv", tmp_path / "subs" / team / f"{name}.csv")
    states = tmp_path / "states"
    states.mkdir()
    for name in ("over_predicting", "baseline_top5_common"):
        path = tmp_path / "subs" / "beta" / f"{name}.csv"
        assert grade(path, SOL, "plantclef2025", ladder=states / "beta.json").status == "scored"
    audit = tmp_path / "audit.json"
    audit.write_text(json.dumps({"teams": [
        {"team": "alpha", "n_submissions": 2, "gap": 0.2, "p_value": 0.0005, "flagged": True},
        {"team": "beta", "n_submissions": 2, "gap": 0.0, "p_value": 0.6, "flagged": False}]}))
    return tmp_path


def test_marks_reach_every_table(teams):
    board = build_leaderboard(teams / "subs", SOL, load_competition("plantclef2025"), reveal_private=True,
                              n_resamples=50, recursive=True, limits=False)
    assert mark_flagged(board, teams / "audit.json") == {"alpha"}
    assert mark_held(board, teams / "states") == 1
    marks = {e.name: e.marks for e in board.entries}
    assert marks == {"alpha/partial": ["flagged"], "alpha/perfect": ["flagged"], "beta/over_predicting": [],
                     "beta/baseline_top5_common": ["held"]}
    rows = {r["name"]: r["marks"] for r in csv.DictReader(io.StringIO(to_csv(board)))}
    assert rows["alpha/perfect"] == "flagged" and rows["beta/baseline_top5_common"] == "held"
    assert rows["beta/over_predicting"] == ""
    md = to_markdown(board)
    assert "| Marks |" in md and "*held*: held by the Ladder" in md and "*flagged*: team flagged by the audit" in md
    assert {e["name"]: e.get("marks") for e in to_dict(board)["entries"]}["beta/baseline_top5_common"] == ["held"]


def test_a_board_without_marks_keeps_its_columns(teams):
    board = build_leaderboard(teams / "subs", SOL, load_competition("plantclef2025"), n_resamples=0,
                              recursive=True, limits=False)
    assert "marks" not in to_csv(board).splitlines()[0] and "Marks" not in to_markdown(board)


def test_charts_show_the_marks(teams):
    pytest.importorskip("matplotlib")
    from agrieval.scoring.leaderboard.plots import _draw_rank_chart as draw_rank_chart
    from agrieval.scoring.leaderboard.plots import _draw_scores_chart as draw_scores_chart

    board = build_leaderboard(teams / "subs", SOL, load_competition("plantclef2025"), reveal_private=True,
                              n_resamples=50, recursive=True, limits=False)
    mark_flagged(board, teams / "audit.json")
    mark_held(board, teams / "states")
    fig = draw_scores_chart(board)
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert any(t.endswith("alpha/perfect [flagged]") for t in ticks)
    assert any(t.endswith("beta/baseline_top5_common [held]") for t in ticks)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "[flagged] team flagged by the audit" in legend and "[held] held by the Ladder (not released)" in legend
    legend = [t.get_text() for t in draw_rank_chart(board).axes[0].get_legend().get_texts()]
    assert "[flagged] team flagged by the audit" in legend


def test_leaderboard_command_marks(teams):
    out = teams / "lb"
    r = CliRunner().invoke(cli, ["leaderboard", str(teams / "subs"), "-s", str(SOL), "-c", "plantclef2025",
                                 "--recursive", "--out", str(out), "--resamples", "20", "--audit",
                                 str(teams / "audit.json"), "--ladder-states", str(teams / "states")])
    assert r.exit_code == 0, r.output
    data = json.loads((out / "leaderboard.json").read_text())
    assert {e["name"]: e.get("marks", []) for e in data["entries"]}["alpha/partial"] == ["flagged"]


@pytest.mark.parametrize("attack", ["fifo state", "deep audit"])
def test_marks_files_are_read_by_the_one_opening_rule(teams, attack):
    """Issue 43: a Ladder state that is a FIFO hung the leaderboard; a deeply nested audit was a traceback."""
    import os
    import signal

    if attack == "fifo state":
        os.mkfifo(teams / "states" / "gamma.json")
        expected = "[not_regular_file]"
    else:
        (teams / "audit.json").write_text("[" * 100_000 + "]" * 100_000)
        expected = "[json_too_deep]"

    def hung(*_):
        raise AssertionError("the leaderboard hung on a marks file")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        r = CliRunner().invoke(cli, ["leaderboard", str(teams / "subs"), "-s", str(SOL), "-c", "plantclef2025",
                                     "--recursive", "--out", str(teams / "board"), "--audit",
                                     str(teams / "audit.json"), "--ladder-states", str(teams / "states")])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert r.exit_code == 1 and expected in r.output, r.output
