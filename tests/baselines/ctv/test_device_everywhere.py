"""``--device cuda`` without a GPU is ``error [device_unavailable]`` and exit 2 wherever a device is asked for:
the commands (tested with their inputs in test_cli.py here and in ../plantclef/), the smoke checks and the
benchmarks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
import torch
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli

REPO = Path(__file__).resolve().parents[3]


def _commands_with_device(cmd, path):
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            yield from _commands_with_device(cmd.get_command(ctx, name), [*path, name])
    elif any("--device" in p.opts for p in cmd.params):
        yield " ".join(path)


def test_every_command_with_a_device_option_is_known():
    # run, run-all: test_cli.py; submit: test_submit.py; predict: ../plantclef/test_cli.py. slurm only writes a job
    # script: the device is the cluster node's, so it is not looked for here.
    assert sorted(_commands_with_device(cli, [])) == ["baselines ctv run", "baselines ctv run-all",
                                                      "baselines ctv slurm", "baselines ctv submit",
                                                      "baselines plantclef predict"]


def test_ctv_smoke(monkeypatch):
    from agrieval.baselines.ctv._smoke import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    res = CliRunner().invoke(main, ["--device", "cuda"])
    assert res.exit_code == 2 and res.output.startswith("error [device_unavailable] --device 'cuda'")


def test_plantclef_smoke(monkeypatch, capsys):
    from agrieval.baselines.plantclef._smoke import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as exit_:
        main(["--device", "cuda"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("error [device_unavailable] --device 'cuda'")


@pytest.mark.parametrize("script", ["benchmarks/bench_train.py", "benchmarks/bench_tiling.py"])
def test_benchmarks(script):
    # cuda:99: missing on a machine with a GPU too
    res = subprocess.run([sys.executable, script, "--device", "cuda:99"], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.startswith("error [device_unavailable] --device 'cuda:99'")
