"""With the scoring install only (no extras), the commands that need an extra say so in one line with the
install command, exit 3, and print no traceback; the scoring commands work."""

import subprocess

import pytest

pytestmark = pytest.mark.slow

# (arguments, the extra the line must name)
NEEDS_AN_EXTRA = [
    (["data", "demo-pool", "{tmp}/pool"], "data"),
    (["data", "catalog", "{clone}/reference_submissions", "-o", "{tmp}/catalog.csv"], "data"),
    (["data", "dedup", "{clone}/reference_submissions/plantclef2025/solution.csv", "-o", "{tmp}/d.csv"], "data"),
    (["baselines", "ctv", "demo", "--out", "{tmp}/ctv"], "baselines"),
    (["baselines", "plantclef", "demo", "--out", "{tmp}/pc"], "baselines"),
    (["baselines", "plantclef", "recipes"], "baselines"),
    (["leaderboard", "{clone}/reference_submissions/agrichallenge2024/submissions", "-s",
      "{clone}/reference_submissions/agrichallenge2024/solution.csv", "-c", "agrichallenge2024", "--plots",
      "--out", "{tmp}/lb"], "plots"),
    (["ctv", "report", "{clone}/examples/ctv/runs", "--plots", "--out", "{tmp}/report"], "plots"),
]


def agrieval(env, bin_dir, clone, tmp, *args):
    args = [a.replace("{tmp}", str(tmp)).replace("{clone}", str(clone)) for a in args]
    return subprocess.run([str(bin_dir / "agrieval"), *args], capture_output=True, text=True, cwd=tmp,
                          env=env(bin_dir), timeout=300)


@pytest.mark.parametrize("args, extra", NEEDS_AN_EXTRA, ids=[" ".join(a[:2]) + (" --plots" if "--plots" in a else "")
                                                            for a, _ in NEEDS_AN_EXTRA])
def test_a_missing_extra_is_one_line_with_the_install_command(env_with, scoring_venv, fresh_clone, tmp_path, args, extra):
    out = agrieval(env_with, scoring_venv, fresh_clone, tmp_path, *args)
    assert out.returncode == 3, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error [missing_dependency] "), out.stderr
    assert f"pip install 'agrieval[{extra}]'" in lines[0]
    assert "Traceback" not in out.stderr + out.stdout
    assert not (tmp_path / "lb").exists() and not (tmp_path / "report").exists()  # refused before any work


@pytest.mark.parametrize("script, extra", [("bench_tiling.py", "baselines"), ("bench_train.py", "baselines"),
                                            ("bench_catalog.py", "data")])
def test_a_benchmark_without_its_extra_is_one_line(scoring_venv, fresh_clone, env_with, script, extra):
    out = subprocess.run([str(scoring_venv / "python"), f"benchmarks/{script}"], capture_output=True, text=True,
                         cwd=fresh_clone, env=env_with(scoring_venv), timeout=120)
    assert out.returncode == 3 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error [missing_dependency] ") and f"pip install 'agrieval[{extra}]'" in out.stderr


def test_the_scoring_install_scores_validates_and_shows_help(env_with, scoring_venv, fresh_clone, tmp_path):
    ref = fresh_clone / "reference_submissions" / "plantclef2025"
    out = agrieval(env_with, scoring_venv, fresh_clone, tmp_path, "score", str(ref / "submissions/partial.csv"),
                   "-s", str(ref / "solution.csv"), "-c", "plantclef2025")
    assert out.returncode == 0 and "transect_f1           0.5511 *" in out.stdout
    for words in (["--help"], ["data", "--help"], ["baselines", "--help"]):
        assert agrieval(env_with, scoring_venv, fresh_clone, tmp_path, *words).returncode == 0
    # `ctv plan` reads run folders without torch (issue 46): with the scoring install it runs, and here says
    # what is missing in the splits folder, not which extra to install
    plan = agrieval(env_with, scoring_venv, fresh_clone, tmp_path, "baselines", "ctv", "plan", "--splits",
                    str(tmp_path), "--runs-dir", str(tmp_path / "runs"))
    assert plan.returncode == 2 and plan.stderr.startswith("error [splits_missing] "), plan.stderr
    imported = subprocess.run([str(scoring_venv / "python"), "-c", "import torch"], capture_output=True)
    assert imported.returncode != 0  # the scoring install really is light
