"""Resuming never runs what a checkpoint holds, and a decompression bomb is an unreadable image by name
(issue 43, item 3).

Before: a CTV resume loaded ``last.pt`` with ``torch.load(weights_only=False)`` and only then compared its
settings, so a planted checkpoint (or a run tree received from someone else) ran its code, then the run
reported ``run_config_mismatch``; the same for ``run-all`` and every SLURM array task (one runner). A
decompression-bomb image in a manifest stopped the run as ``internal_error``, naming no file.
"""

from __future__ import annotations

import os
import signal

import pytest
import torch
from PIL import Image

from agrieval.baselines.ctv import _checkpoint as checkpoint
from agrieval.baselines.ctv._cache import decode_square
from agrieval.baselines.ctv._dataset import load_image, load_pil
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.runner import run_fold
from tests.baselines.ctv.configs import tiny_config


class _Planted:
    """Unpickling this writes the marker file (``exec``: a builtin, found by any unpickler that allows it)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('ran')",)


def _plant(path, marker) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"identity_hash": "0" * 16, "identity": {}, "state": {"epoch": 1}, "payload": _Planted(marker)},
               path)


def test_a_planted_checkpoint_is_refused_before_anything_in_it_runs(tmp_path):
    marker = tmp_path / "ran.txt"
    _plant(tmp_path / "last.pt", marker)
    with pytest.raises(CTVError) as err:
        checkpoint.load(tmp_path / "last.pt")
    assert err.value.code == "checkpoint_invalid" and str(tmp_path / "last.pt") in err.value.message
    assert "nothing in it ran" in err.value.message
    assert not marker.exists()


def test_resuming_a_run_with_a_planted_last_pt_runs_nothing(ctv_data, tmp_path):
    marker = tmp_path / "ran.txt"
    _plant(tmp_path / "runs" / "toto" / "tiny_cnn" / "alpha" / "last.pt", marker)
    with pytest.raises(CTVError) as err:
        run_fold(tiny_config(eval_test_every_epoch=True), ctv_data[1], tmp_path / "runs", log=lambda *_: None,
                 progress=False)
    assert err.value.code == "checkpoint_invalid"
    assert not marker.exists()


def test_a_checkpoint_that_is_a_fifo_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "last.pt")

    def hung(*_):
        raise AssertionError("opening the FIFO hung")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        with pytest.raises(CTVError) as err:
            checkpoint.load(tmp_path / "last.pt")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert err.value.code == "checkpoint_invalid" and "FIFO" in err.value.message


def test_what_the_kit_saves_loads_with_weights_only(tmp_path):
    from agrieval.baselines.ctv._seed_streams import _capture, _restore

    model = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3, eta_min=1e-6)
    state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
             "state": {"epoch": 1, "history": [{"val_acc": 0.5}]}, "stream": _capture(),
             "scaler": None, "identity_hash": "abc", "identity": {"arch": "x", "epochs": 3}}
    checkpoint.save(tmp_path / "last.pt", state)
    back = checkpoint.load(tmp_path / "last.pt")
    assert back["identity"] == state["identity"] and back["state"] == state["state"]
    _restore(back["stream"])


# Pillow warns past MAX_IMAGE_PIXELS and raises past twice it: a 64x64 image (4,096 pixels) under a lowered limit
@pytest.mark.parametrize("limit", [2048, 1365], ids=["warning", "error"])
def test_a_decompression_bomb_is_an_unreadable_image_by_name(tmp_path, monkeypatch, limit):
    path = tmp_path / "bomb.png"
    Image.new("RGB", (64, 64)).save(path)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", limit)
    for load in (load_image, lambda p: decode_square(p, 16), load_pil):
        with pytest.raises(CTVError) as err:
            load(str(path))
        assert err.value.code == "image_unreadable" and str(path) in err.value.message
        assert "decompression bomb" in err.value.message
