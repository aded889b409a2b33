"""`agrieval bundle --public-precision`: the decimals of `auto`, the bundled program's rounded public scores,
and the README paragraph every bundle carries."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.authoring._public_precision import auto_decimals
from agrieval.scoring.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
PC = REPO / "reference_submissions" / "plantclef2025"


@pytest.mark.parametrize("n,decimals", [(1, 1), (10, 1), (25, 1), (26, 2), (1000, 2), (2500, 2), (2501, 3),
                                        (250_000, 3)])
def test_auto_keeps_the_digits_above_the_standard_error(n, decimals):
    # the step 10^-d is at most the worst-case standard error 1 / (2 sqrt(n)), and 10^-(d-1) is above it
    assert auto_decimals(n) == decimals
    assert 10.0 ** -decimals <= 1 / (2 * n ** 0.5) + 1e-15 < 10.0 ** -(decimals - 1)


@pytest.mark.parametrize("platform", ["codabench", "codalab", "evalai", "hf", "kaggle"])
def test_every_bundle_readme_says_what_the_precision_is(tmp_path, platform):
    off, auto = tmp_path / "off", tmp_path / "auto"
    base = ["bundle", platform, "-c", "plantclef2025", "-s", str(PC / "solution.csv")]
    assert CliRunner().invoke(cli, base + [str(off)]).exit_code == 0
    r = CliRunner().invoke(cli, base + ["--public-precision", "auto", str(auto)])
    assert r.exit_code == 0, r.output
    assert "## Public scores: precision" in (off / "README.md").read_text()
    assert "shown unrounded" in (off / "README.md").read_text()
    assert "rounded to 1 decimal(s)" in (auto / "README.md").read_text()  # 10 public transects


def test_the_bundled_program_reports_rounded_public_scores(tmp_path):
    out = tmp_path / "cb"
    r = CliRunner().invoke(cli, ["bundle", "codabench", "-c", "plantclef2025", "-s", str(PC / "solution.csv"),
                                 "--public-precision", "2", str(out)])
    assert r.exit_code == 0, r.output
    frozen = json.loads((out / "scoring_program" / "competition.json").read_text())
    assert frozen["definition"]["public_decimals"] == 2
    work = tmp_path / "input"
    (work / "res").mkdir(parents=True)
    shutil.copytree(out / "reference_data", work / "ref")
    shutil.copy(PC / "submissions" / "partial.csv", work / "res" / "partial.csv")
    done = subprocess.run([sys.executable, str(out / "scoring_program" / "score.py"), str(work), str(tmp_path / "o")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "o" / "scores.json").read_text())
    assert scores["transect_f1"] == 0.55  # 0.551111 to 2 decimals


def test_a_bad_precision_is_a_usage_error(tmp_path):
    r = CliRunner().invoke(cli, ["bundle", "hf", "-c", "plantclef2025", "-s", str(PC / "solution.csv"),
                                 "--public-precision", "many", str(tmp_path / "x")])
    assert r.exit_code == 2 and not (tmp_path / "x").exists()
