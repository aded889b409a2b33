"""Two gloo ranks on CPU are the same science as one process, and do not hang.

On the demo's splits (``agrieval.baselines.ctv.demo._prepare_splits``) with ``tiny_cnn`` (it has BatchNorm, whose
running statistics DDP does not keep equal across ranks): the epoch that selected ``best.pt`` reports,
in ``history.jsonl``, ``run.json`` and ``predictions.csv``, the accuracy a one-process evaluation of
``best.pt`` gives; every training image is counted once per epoch (77 images on 2 ranks: not 78);
runs with loader workers finish within a timeout; a collective that times out names the rank and step.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap

import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.baselines.ctv._distributed import DistInfo, EpochBatches

pytest.importorskip("agrieval.data_tools.splits")

RUN_TIMEOUT_S = 150  # the 3-run launch takes ~30 s on a shared 2-core machine; a hang is caught, not waited out


@pytest.fixture(scope="module")
def demo_splits(tmp_path_factory):
    from agrieval.baselines.ctv.demo import _prepare_splits as prepare_splits

    return prepare_splits(tmp_path_factory.mktemp("ctvdemo"), teams=4, per_class=6, log=lambda *_: None)


def _env() -> dict:
    return dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(sys.path))


def _run(cmd: list[str], timeout: float, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``cmd`` in its own process group; on a timeout kill the group (ranks and their workers) and fail."""
    proc = subprocess.Popen(cmd, env=env or _env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(cmd[-12:])}: still running after {timeout} s (a hang)\n{out[-2000:]}\n{err[-4000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _torchrun(splits, runs_dir, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
           "-m", "agrieval.baselines.ctv._cli", *args, "--preset", "demo", "--splits", str(splits), "--runs-dir",
           str(runs_dir), "--threads", "1", "--deterministic"]
    proc = _run(cmd, RUN_TIMEOUT_S)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "device cpu x2" in proc.stdout
    return proc


FOLDS = ("team01", "team02", "team03")


def test_kept_epochs_accuracy_is_the_saved_checkpoints_on_one_process_and_workers_do_not_hang(demo_splits,
                                                                                            tmp_path):
    """Three runs in one torchrun launch (one process group for all), 2 loader workers per loader, started
    for every loader and epoch (from a fork server, not forked from the threaded trainer), each run
    checked against a one-process evaluation of its best.pt."""
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.engine import accuracy, predict
    from agrieval.baselines.ctv.manifest import load_fold
    from agrieval.baselines.ctv.models import build_model
    from agrieval.baselines.ctv.runner import _loaders, _runtime

    proc = _torchrun(demo_splits, tmp_path, "run-all", "--protocols", "loto", "--archs", "tiny_cnn",
                     "--folds", ",".join(FOLDS), "--epochs", "2", "--num-workers", "2", "--eval-test-every-epoch")
    assert proc.stdout.count("3 runs: 3 finished, 0 failed") == 1  # rank 0 alone reports
    for name in FOLDS:
        out = tmp_path / "loto" / "tiny_cnn" / name
        run = json.loads((out / "run.json").read_text())
        hist = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
        assert run["device"]["world_size"] == 2 and [h["epoch"] for h in hist] == [1, 2]

        cfg = make_config("demo", protocol="loto", arch="tiny_cnn", fold=name, threads=1, deterministic=True)
        fold = load_fold(demo_splits, "loto", name)
        model = build_model("tiny_cnn", len(fold.classes), head_dropout=cfg.head_dropout, pretrained=False,
                            img_size=cfg.img_size)
        best = torch.load(out / "best.pt", weights_only=False)
        model.load_state_dict(best["model"])
        _, loaders, parts = _loaders(cfg, fold, DistInfo(), torch.device("cpu"), print)
        rt = _runtime(cfg, torch.device("cpu"))
        single = {s: predict(model, loaders[s], rt) for s in ("train", "val", "test")}

        kept = hist[run["best_epoch"] - 1]
        assert best["epoch"] == run["best_epoch"]
        # the number that selected the checkpoint is the checkpoint's number on the whole validation set
        assert kept["val_acc"] == run["val_acc"] == accuracy(single["val"]), name
        assert kept["test_acc"] == run["test_acc"] == accuracy(single["test"]), name
        assert run["train_acc"] == accuracy(single["train"]), name
        # each training image once per epoch: counts over the manifest's train images, no padded duplicate
        n_train = len(parts["train"])
        assert run["n_train"] == n_train and [h["train_images"] for h in hist] == [n_train, n_train]
        assert all(h["skipped_batches"] == 0 for h in hist)
        # predictions: exactly the manifest's images, once each, as one process predicts them
        pred = pd.read_csv(out / "predictions.csv", keep_default_na=False)
        for split in ("train", "val", "test"):
            mine = pred[pred["split"] == split]
            assert sorted(mine["image_id"]) == sorted(parts[split]["image_id"])
            mine = mine.set_index("image_id")
            ids = parts[split]["image_id"].to_numpy()[single[split]["index"]]
            assert list(mine.loc[ids, "predicted_label"]) == [fold.classes[p] for p in single[split]["pred"]]
    # an odd train split (team01: 77 images) is where 2 ranks padded to 78
    assert 77 in {json.loads((tmp_path / "loto" / "tiny_cnn" / n / "run.json").read_text())["n_train"]
                  for n in FOLDS}


def test_a_collective_that_times_out_names_the_rank_and_step(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = textwrap.dedent("""
        import os, sys, time
        from agrieval.baselines.ctv._distributed import barrier, init_distributed
        from agrieval.baselines.ctv.errors import CTVError
        info = init_distributed("cpu", timeout_s=3)
        if info.rank == 1:
            time.sleep(20)  # never joins: rank 0's barrier must fail, not wait
            sys.exit(0)
        try:
            barrier(info, "epoch 3: checkpoint written")
        except CTVError as exc:
            print(exc.render()); sys.exit(exc.exit_code)
        sys.exit(0)
    """)
    procs = []
    for rank in (0, 1):
        env = dict(_env(), RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, start_new_session=True))
    try:
        out, err = procs[0].communicate(timeout=60)
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert procs[0].returncode == 3, out + err
    assert out.startswith("error [collective_failed] rank 0 of 2: epoch 3: checkpoint written:"), out + err
    assert "--dist-timeout 3 s" in out


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 60), batch=st.integers(1, 12), world=st.integers(1, 4), drop_last=st.booleans(),
       min_per_rank=st.integers(1, 2), epoch=st.integers(0, 3))
def test_epoch_batches_give_each_image_once_and_every_rank_the_same_steps(n, batch, world, drop_last,
                                                                          min_per_rank, epoch):
    from agrieval.baselines.ctv.errors import CTVError

    def sampler(rank):
        s = EpochBatches(n, batch, 7, DistInfo(rank, world), drop_last=drop_last, min_per_rank=min_per_rank)
        s.set_epoch(epoch)
        return s

    try:
        shares = [list(sampler(r)) for r in range(world)]
    except CTVError as exc:  # too few images (or too small a batch) to give every rank its minimum
        assert exc.code == "bad_option"
        assert batch < world * min_per_rank or n < world * min_per_rank
        return
    sizes = sampler(0).global_sizes()
    assert len({len(s) for s in shares}) == 1 and len(shares[0]) == len(sampler(0)) == len(sizes)
    seen = [i for s in shares for b in s for i in b]
    assert len(seen) == len(set(seen)) == sum(sizes)  # nothing padded, nothing repeated
    dropped = n % batch if drop_last else 0
    assert len(seen) == n - dropped
    for step, m in enumerate(sizes):
        assert sum(len(s[step]) for s in shares) == m
        assert all(len(s[step]) >= min_per_rank for s in shares)
