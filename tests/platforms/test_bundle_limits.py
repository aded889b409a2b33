"""Submission limits and the time limit of `agrieval bundle`: read back from each platform's own configuration
inside the uploaded file, the platform's defaults (read from its code, submission_limits.PLATFORM_DEFAULTS)
when unset, stated in each README with which submission counts; the loaders' checks still pass."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import yaml
from click.testing import CliRunner

from agrieval.scoring.authoring._bundles.submission_limits import PLATFORM_DEFAULTS
from agrieval.scoring.cli.main import cli
from tests.platforms import platform_loaders as loaders
from tests.platforms.hook_drivers import COMPETITION, SOLUTION

UPLOADS = {"codabench": "codabench_competition.zip", "codalab": "codalab_competition.zip",
           "evalai": "evalai_challenge.zip"}
CONFIGS = {"codabench": "competition.yaml", "codalab": "competition.yaml", "evalai": "challenge_config.yaml"}


def _build(root, platform, *extra):
    out = root / f"{platform}{len(extra)}"
    res = CliRunner().invoke(cli, ["bundle", platform, "-c", COMPETITION, "-s", str(SOLUTION), *extra, str(out)])
    assert res.exit_code == 0, res.output
    return out


def _limits(out, platform) -> tuple:
    """(per day, total, time limit) as the platform reads them from the uploaded file."""
    if platform == "hf":
        conf = json.loads((out / "conf.json").read_text())
        return conf["SUBMISSION_LIMIT"], None, conf["TIME_LIMIT"]
    with zipfile.ZipFile(io.BytesIO((out / UPLOADS[platform]).read_bytes())) as zf:
        y = yaml.safe_load(zf.read(CONFIGS[platform]))
    if platform == "codabench":
        p = y["phases"][0]
        assert all(q["max_submissions_per_day"] == p["max_submissions_per_day"] for q in y["phases"][:2])
        return p["max_submissions_per_day"], p["max_submissions"], p["execution_time_limit"]
    if platform == "codalab":
        phases = list(y["phases"].values())
        return phases[0]["max_submissions_per_day"], phases[0]["max_submissions"], phases[0]["execution_time_limit"]
    phases = y["challenge_phases"]
    assert {p["max_submissions_per_day"] for p in phases} == {phases[0]["max_submissions_per_day"]}
    return phases[0]["max_submissions_per_day"], phases[0]["max_submissions"], None


@pytest.mark.parametrize("platform", ["codabench", "codalab", "evalai", "hf"])
def test_the_organizers_limits_are_in_the_platforms_configuration(tmp_path, platform):
    out = _build(tmp_path, platform, "--per-day", "3", "--total", "40", "--time-limit", "120")
    per_day, total, seconds = _limits(out, platform)
    assert per_day == 3
    assert total == (None if platform == "hf" else 40)  # Hugging Face has no total limit
    assert seconds == (None if platform == "evalai" else 120)  # EvalAI has no time limit of its own
    readme = (out / "README.md").read_text()
    assert "submissions per participant and day: 3\n" in readme
    if platform == "hf":
        assert "40 asked, but the platform has no such setting: not enforced" in readme
    else:
        assert "submissions in total: 40\n" in readme


@pytest.mark.parametrize("platform", ["codabench", "codalab", "evalai", "hf"])
def test_unset_limits_are_the_platforms_defaults_and_the_readme_names_them(tmp_path, platform):
    out = _build(tmp_path, platform)
    default = PLATFORM_DEFAULTS[platform]
    per_day, total, seconds = _limits(out, platform)
    assert per_day == default.per_day and total == default.total
    if platform != "evalai":
        assert seconds == default.time_limit
    readme = (out / "README.md").read_text()
    assert f"day: {default.per_day} (the platform's default: set it with --per-day)" in readme
    assert default.source in readme


def test_the_time_limit_reaches_the_bundled_scorers_own_guard(tmp_path):
    out = _build(tmp_path, "evalai", "--time-limit", "45")
    frozen = json.loads((out / "evaluation_script" / "competition.json").read_text())
    assert frozen["definition"]["limits"]["max_seconds"] == 45
    assert "45 s, enforced by the bundled scorer's own guard" in (out / "README.md").read_text()


@pytest.mark.parametrize("platform", ["codabench", "codalab", "evalai"])
def test_the_uploads_with_limits_still_pass_the_loaders_checks(tmp_path, platform):
    out = _build(tmp_path, platform, "--per-day", "2", "--total", "7", "--time-limit", "300")
    check = {"codabench": loaders.codabench, "codalab": loaders.codalab_v1, "evalai": loaders.evalai}[platform]
    assert check((out / UPLOADS[platform]).read_bytes()) == []


@pytest.mark.parametrize("platform, words", [
    ("evalai", "show_leaderboard_by_latest_submission"), ("codabench", "Force_Last"),
    ("codalab", "force_submission_to_leaderboard"), ("hf", "SELECTION_LIMIT"), ("kaggle", "final submissions")])
def test_every_readme_says_which_submission_counts_with_the_platforms_code(tmp_path, platform, words):
    readme = (_build(tmp_path, platform) / "README.md").read_text()
    assert "## Submission limits and which submission counts" in readme and words in readme


def test_huggingface_is_an_alias_of_hf(tmp_path):
    out = _build(tmp_path, "huggingface")
    assert (out / "conf.json").exists() and (out / "metric.py").exists()


@pytest.mark.parametrize("platform", ["hf", "kaggle", "codabench"])
def test_the_selection_limit_is_the_platforms_setting_where_it_has_one(tmp_path, platform):
    out = _build(tmp_path, platform, "--selection-limit", "3")
    readme = " ".join((out / "README.md").read_text().split())
    if platform == "hf":
        assert json.loads((out / "conf.json").read_text())["SELECTION_LIMIT"] == 3
        assert "final submissions a team may select: 3 " in readme and "`SELECTION_LIMIT` (3)" in readme
    elif platform == "kaggle":
        assert "final submissions a team may select: 3: enter it in Kaggle's host settings" in readme
    else:  # no selection on Codabench: said, not silently dropped
        assert "final submissions a team may select: 3 asked, but none: the platform has no selection" in readme


def test_unset_selection_limit_is_the_platforms_default(tmp_path):
    out = _build(tmp_path, "hf")
    assert json.loads((out / "conf.json").read_text())["SELECTION_LIMIT"] == PLATFORM_DEFAULTS["hf"].selection_limit == 2
