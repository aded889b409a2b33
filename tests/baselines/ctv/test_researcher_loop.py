"""The researcher's loop: plan without torch, progress lines in a log, the sweep's ETA, the next command,
and how to resume after Ctrl-C."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from agrieval.baselines.ctv import _progress as progress
from agrieval.baselines.ctv._progress import LineProgress, format_duration
from agrieval.scoring.cli.main import cli

TINY = ["--preset", "demo", "--epochs", "1", "--batch-size", "8", "--threads", "1", "--deterministic"]


def test_plan_does_not_import_torch(ctv_data, tmp_path):
    _, splits = ctv_data
    code = ("import sys\nfrom agrieval.scoring.cli.main import cli\n"
            f"cli(['baselines', 'ctv', 'plan', '--splits', {str(splits)!r}, '--runs-dir', {str(tmp_path)!r}, "
            "'--seeds', '2'], standalone_mode=False)\n"
            "assert 'torch' not in sys.modules and 'timm' not in sys.modules, 'torch imported'\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "24 runs: 0 done, 0 partial, 24 pending" in out.stdout


def test_format_duration():
    assert [format_duration(s) for s in (0, 44.6, 130, 3600 + 5 * 60 + 1)] == ["0s", "45s", "2m10s", "1h05m"]


def test_line_progress_prints_at_most_every_interval(monkeypatch, capsys):
    clock = iter([0.0, 10.0, 61.0, 62.0, 130.0])
    monkeypatch.setattr(progress.time, "perf_counter", lambda: next(clock))
    bar = LineProgress(100, "epoch 2")  # start at t=0
    for _ in range(4):
        bar.update(10)  # t = 10, 61, 62, 130
    lines = capsys.readouterr().err.splitlines()
    # at t=61, 20 of 100 batches in 61 s: 80 left, ETA 244 s; at t=130, 40 in 130 s: ETA 195 s
    assert lines == ["epoch 2: 20/100 batches (20 %), ETA 4m04s", "epoch 2: 40/100 batches (40 %), ETA 3m15s"]


def test_run_all_gives_an_eta_and_the_next_command(ctv_data, tmp_path):
    _, splits = ctv_data
    res = CliRunner().invoke(cli, ["baselines", "ctv", "run-all", "--splits", str(splits), "--runs-dir",
                                   str(tmp_path), "--protocols", "toto", "--archs", "tiny_cnn", "--folds",
                                   "alpha,beta", *TINY], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "sweep: 1/2 runs; 1 to train, ETA " in res.output
    assert res.output.rstrip().splitlines()[-1] == f"next: agrieval ctv report {tmp_path} --out ctv-report --plots"


def test_an_interrupt_says_how_to_resume(ctv_data, tmp_path, monkeypatch):
    import agrieval.baselines.ctv.runner as runner

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_fold", interrupted)
    _, splits = ctv_data
    for cmd in (["run-all", "--protocols", "toto", "--archs", "tiny_cnn"],
                ["run", "--protocol", "toto", "--arch", "tiny_cnn", "--fold", "alpha"]):
        res = CliRunner().invoke(cli, ["baselines", "ctv", *cmd, "--splits", str(splits), "--runs-dir", str(tmp_path),
                                       *TINY])
        assert res.exit_code == 130, res.output
        assert "rerun the same command to resume" in res.output
