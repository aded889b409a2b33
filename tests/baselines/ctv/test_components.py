"""The training loop's components, each chosen from the settings (runner.py has no branch on the preset)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch

from agrieval.baselines.ctv._distributed import DistInfo
from agrieval.baselines.ctv._pipelines import pipeline_for
from agrieval.baselines.ctv._precision import BF16, FP16, OFF, precision_for
from agrieval.baselines.ctv._seed_streams import FoldStream, SweepStream, seed_stream_for
from agrieval.baselines.ctv._selection import SELECTIONS, BestKeeper
from agrieval.baselines.ctv.config import make_config
from agrieval.baselines.ctv.errors import CTVError

RUNNER = Path(__file__).resolve().parents[3] / "baselines" / "ctv" / "runner.py"


def test_each_preset_picks_its_components():
    paper, official = make_config("paper", fold="a"), make_config("official", fold="a")
    assert isinstance(seed_stream_for(paper, DistInfo()), FoldStream)
    assert isinstance(seed_stream_for(official, DistInfo()), SweepStream)
    assert (pipeline_for(paper).decode, pipeline_for(official).decode) == ("tensor", "pil")
    assert (pipeline_for(paper).fork_server, pipeline_for(official).fork_server) == (True, False)
    cpu = torch.device("cpu")
    assert precision_for(paper.amp, cpu) == OFF and precision_for("bf16", cpu) == BF16
    assert FP16.grad_scaler and not BF16.grad_scaler
    with pytest.raises(CTVError, match="--amp fp16 needs CUDA"):
        precision_for("fp16", cpu)


def test_the_sweep_stream_refuses_several_processes():
    with pytest.raises(CTVError, match="single-process stream"):
        SweepStream(make_config("official", fold="a"), DistInfo(0, 2))


@pytest.mark.parametrize("name, vals, best_epoch", [
    ("kit", [0.0, 0.0, 0.0], 1),       # some epoch is always kept: the first of a tie
    ("script", [0.0, 0.0, 0.0], 0),    # none beats 0 %: nothing kept (the last epoch's model stays)
    ("kit", [0.5, 0.7, 0.7], 2),
    ("script", [0.5, 0.7, 0.7], 2),
])
def test_selection_rules(name, vals, best_epoch):
    rule = SELECTIONS[name]
    best, kept = rule.initial_best, 0
    for epoch, v in enumerate(vals, 1):
        if rule.improved(v, best):
            best, kept = v, epoch
    assert kept == best_epoch


def test_best_keeper_restores_the_kept_model_or_keeps_the_last(tmp_path):
    keeper = BestKeeper(tmp_path / "best.pt", ["a", "b"], {}, DistInfo())
    model = torch.nn.Linear(2, 2)
    keeper.keep(model, 1)
    kept_weight = model.weight.detach().clone()
    with torch.no_grad():
        model.weight.add_(1.0)
    assert keeper.restore(model, best_epoch=1, last_epoch=3) == "best"
    assert torch.equal(model.weight, kept_weight)
    with torch.no_grad():
        model.weight.add_(1.0)
    assert keeper.restore(model, best_epoch=0, last_epoch=3) == "last"
    assert torch.load(tmp_path / "best.pt", weights_only=False)["epoch"] == 3


def test_the_training_loop_has_no_branch_on_the_preset():
    """No ``if`` in the set-up, resume, epoch or finish functions names the preset or a preset-made choice."""
    tree = ast.parse(RUNNER.read_text(encoding="utf-8"))
    banned = {"preset", "seed_stream", "selection", "transforms", "amp", "sweep"}
    steps = ("run_fold", "_set_up", "_resume", "_epoch", "_finish")
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in steps]
    assert sorted(f.name for f in functions) == sorted(steps)  # the loop in its four steps
    for fn in functions:
        for node in ast.walk(fn):
            if isinstance(node, (ast.If, ast.IfExp)):
                names = {n.attr for n in ast.walk(node.test) if isinstance(n, ast.Attribute)}
                names |= {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
                assert not names & banned, (fn.name, ast.unparse(node.test))
