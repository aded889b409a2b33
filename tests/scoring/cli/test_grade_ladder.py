"""`agrieval grade --ladder STATE`: concurrent grading processes, coded host errors, the JSON contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from agrieval.scoring.cli.main import cli

REPO = Path(__file__).resolve().parents[3]
REF = REPO / "reference_submissions" / "plantclef2025"
SOL = str(REF / "solution.csv")
SUBS = ["partial", "baseline_top5_common", "over_predicting", "perfect", "partial", "empty_lists"]


def _grade(state: Path, name: str) -> list[str]:
    return [sys.executable, "-m", "agrieval.scoring.cli.main", "grade", str(REF / "submissions" / f"{name}.csv"), "-s", SOL,
            "-c", "plantclef2025", "--ladder", str(state)]


def test_concurrent_grade_processes_lose_no_update(tmp_path):
    state = tmp_path / "team.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen(_grade(state, name), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                              cwd=REPO) for name in SUBS]
    outs = [(p.communicate(timeout=120), p.returncode) for p in procs]
    assert all(code == 0 for _, code in outs), [err.decode() for (_, err), _ in outs]
    numbers = sorted(json.loads(out)["host"]["details"]["ladder"]["submission"] for (out, _), _ in outs)
    assert numbers == list(range(1, len(SUBS) + 1))  # each grading saw the write of the one before it
    data = json.loads(state.read_text())
    assert data["n_submissions"] == len(SUBS) and len(data["history"]) == len(SUBS)
    assert data["released"]["shown"]["transect_f1"] == 1.0  # perfect.csv was released, whatever the order
    assert sorted(p.name for p in tmp_path.iterdir()) == ["team.json", "team.json.lock"]  # no temporary left


def test_a_corrupt_state_is_a_coded_host_error_and_stays(tmp_path):
    state = tmp_path / "team.json"
    state.write_text('{"format": "agrieval-ladder-state", "version": 1, "competition": ')
    r = CliRunner().invoke(cli, ["grade", str(REF / "submissions/partial.csv"), "-s", SOL, "-c", "plantclef2025",
                                 "--ladder", str(state)], catch_exceptions=False)
    assert r.exit_code == 3
    obj = json.loads(r.stdout)
    assert obj["status"] == "error" and obj["host"]["diagnostics"][0]["code"] == "ladder_state_corrupt"
    assert obj["errors"][0]["code"] == "internal_error"  # the participant gets the generic message
    assert state.read_text().endswith('"competition": ')


def test_participant_view_under_the_ladder_has_no_raw_value(tmp_path):
    state = tmp_path / "team.json"
    args = ["grade", "-s", SOL, "-c", "plantclef2025", "--ladder", str(state), "--participant-only"]
    first = CliRunner().invoke(cli, [args[0], str(REF / "submissions/partial.csv"), *args[1:]])
    second = CliRunner().invoke(cli, [args[0], str(REF / "submissions/baseline_top5_common.csv"), *args[1:]])
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert first.exit_code == second.exit_code == 0 and "host" not in b
    assert b["metrics"] == a["metrics"] and [w["code"] for w in b["warnings"]] == ["ladder_not_released"]
