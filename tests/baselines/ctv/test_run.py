"""One fold end to end: outputs, determinism, resume after a kill, skip, refusal of mixed settings."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

from agrieval.baselines.ctv._outputs import PREDICTION_COLUMNS
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.runner import _Interrupted as Interrupted
from agrieval.baselines.ctv.runner import run_fold
from tests.baselines.ctv.configs import tiny_config


def _quiet(*_):
    pass


@pytest.fixture(scope="module")
def reference(ctv_data, tmp_path_factory):
    """An uninterrupted 3-epoch deterministic run (with per-epoch test accuracy)."""
    _, splits = ctv_data
    runs = tmp_path_factory.mktemp("ref")
    cfg = tiny_config(eval_test_every_epoch=True)
    record = run_fold(cfg, splits, runs, log=_quiet, progress=False)
    return runs / "toto" / "tiny_cnn" / "alpha", record


def _history(path):
    rows = [json.loads(line) for line in (path / "history.jsonl").read_text().splitlines()]
    for r in rows:
        r.pop("train_images_per_s")  # a timing, not a result
    return rows


def test_outputs_follow_the_contract(reference, ctv_data):
    out, record = reference
    assert sorted(p.name for p in out.iterdir()) == ["best.pt", "history.jsonl", "predictions.csv", "run.json"]
    pred = pd.read_csv(out / "predictions.csv", keep_default_na=False)
    assert tuple(pred.columns) == PREDICTION_COLUMNS
    assert list(dict.fromkeys(pred["split"])) == ["train", "val", "test"]  # train rows first, as the script
    manifest = pd.read_csv(ctv_data[1] / "toto" / "alpha.csv")
    for split in ("train", "val", "test"):
        assert sorted(pred.loc[pred["split"] == split, "image_id"]) == sorted(
            manifest.loc[manifest["split"] == split, "image_id"])
    assert ((pred["confidence"] >= 0.5) & (pred["confidence"] <= 1)).all()  # max of 2 softmax outputs

    run = json.loads((out / "run.json").read_text())
    for key in ("protocol", "arch", "fold", "train_teams", "val_acc", "test_acc", "per_test_team_acc", "seed",
                "best_epoch", "wall_time_s", "train_images_per_s", "eval_images_per_s", "versions", "device",
                "settings"):
        assert key in run, key
    assert (run["protocol"], run["arch"], run["fold"], run["train_teams"]) == ("toto", "tiny_cnn", "alpha", ["alpha"])
    assert run["settings"]["lr"] == 1e-3 and run["settings"]["epochs"] == 3
    val, test = pred[pred["split"] == "val"], pred[pred["split"] == "test"]
    train = pred[pred["split"] == "train"]
    assert run["train_acc"] == pytest.approx(accuracy_score(train["true_label"], train["predicted_label"]))
    assert run["val_acc"] == pytest.approx(accuracy_score(val["true_label"], val["predicted_label"]))
    assert run["test_acc"] == pytest.approx(accuracy_score(test["true_label"], test["predicted_label"]))
    for team, acc in run["per_test_team_acc"].items():
        rows = test[test["team"] == team]
        assert acc == pytest.approx(accuracy_score(rows["true_label"], rows["predicted_label"]))
    assert sorted(run["per_test_team_acc"]) == ["beta", "gamma"]


def test_selection_uses_validation_only(reference):
    out, record = reference
    hist = _history(out)
    assert [h["epoch"] for h in hist] == [1, 2, 3]
    assert all("test_acc" in h for h in hist)  # --eval-test-every-epoch
    best = max(hist, key=lambda h: (h["val_acc"], -h["epoch"]))  # first epoch with the highest val acc
    assert record["best_epoch"] == best["epoch"]
    assert record["val_acc"] == pytest.approx(best["val_acc"])
    lrs = [h["lr"] for h in hist]
    assert lrs[0] == pytest.approx(1e-3) and lrs[0] > lrs[1] > lrs[2] >= 1e-4  # cosine, stepped per epoch


def test_two_deterministic_runs_are_identical(reference, ctv_data, tmp_path):
    out, _ = reference
    run_fold(tiny_config(eval_test_every_epoch=True), ctv_data[1], tmp_path, log=_quiet, progress=False)
    again = tmp_path / "toto" / "tiny_cnn" / "alpha"
    assert (again / "predictions.csv").read_bytes() == (out / "predictions.csv").read_bytes()
    assert _history(again) == _history(out)


def test_resume_after_a_kill_reaches_the_uninterrupted_result(reference, ctv_data, tmp_path):
    out, record = reference
    cfg = tiny_config(eval_test_every_epoch=True)
    with pytest.raises(Interrupted):
        run_fold(cfg, ctv_data[1], tmp_path, log=_quiet, progress=False, stop_after_epoch=1)
    part = tmp_path / "toto" / "tiny_cnn" / "alpha"
    assert (part / "last.pt").is_file() and not (part / "run.json").exists()
    assert len(_history(part)) == 1
    lines = []
    resumed = run_fold(cfg, ctv_data[1], tmp_path, log=lines.append, progress=False)
    assert any(line.startswith("resume") for line in lines)
    assert (part / "predictions.csv").read_bytes() == (out / "predictions.csv").read_bytes()
    assert _history(part) == _history(out)
    assert resumed["best_epoch"] == record["best_epoch"]
    assert not (part / "last.pt").exists()


def test_finished_run_is_skipped_and_other_settings_are_refused(reference, ctv_data):
    out, _ = reference
    runs = out.parents[2]
    before = (out / "run.json").read_bytes()
    again = run_fold(tiny_config(eval_test_every_epoch=True), ctv_data[1], runs, log=_quiet, progress=False)
    assert again["status"] == "skipped"
    assert (out / "run.json").read_bytes() == before
    with pytest.raises(CTVError) as err:
        run_fold(tiny_config(lr=5e-4), ctv_data[1], runs, log=_quiet, progress=False)
    assert err.value.code == "run_config_mismatch" and str(out / "run.json") in err.value.message
    assert "--lr " in err.value.message and "0.0005 (now)" in err.value.message  # names the setting changed
    assert "--epochs" not in err.value.message  # and only that one
    assert (out / "run.json").read_bytes() == before
    # what a run records is part of what it is: a run made with the per-epoch test accuracy is not skipped for
    # a command that asks for a run without it, nor the other way round (below), and the message names the flag
    with pytest.raises(CTVError) as err:
        run_fold(tiny_config(eval_test_every_epoch=False), ctv_data[1], runs, log=_quiet, progress=False)
    assert err.value.code == "run_config_mismatch" and str(out / "run.json") in err.value.message
    assert "--eval-test-every-epoch (the run) vs --no-eval-test-every-epoch (now)" in err.value.message
    assert (out / "run.json").read_bytes() == before


def test_a_run_without_the_per_epoch_test_accuracy_is_never_skipped_for_one_with_it(ctv_data, tmp_path):
    """The issue's case: runs made without --eval-test-every-epoch, then a rerun with it: refused (finished or
    interrupted), never skipped as finished with last_epoch and oracle_test silently empty."""
    _, splits = ctv_data
    plain = tiny_config(epochs=2)
    run_fold(plain, splits, tmp_path / "done", log=_quiet, progress=False)
    with pytest.raises(CTVError) as err:
        run_fold(tiny_config(epochs=2, eval_test_every_epoch=True), splits, tmp_path / "done", log=_quiet,
                 progress=False)
    assert err.value.code == "run_config_mismatch"
    assert "--no-eval-test-every-epoch (the run) vs --eval-test-every-epoch (now)" in err.value.message
    assert "oracle_test" in err.value.message  # says what would be missing
    with pytest.raises(Interrupted):  # an interrupted run: its last.pt says what it recorded
        run_fold(plain, splits, tmp_path / "part", log=_quiet, progress=False, stop_after_epoch=1)
    with pytest.raises(CTVError) as err:
        run_fold(tiny_config(epochs=2, eval_test_every_epoch=True), splits, tmp_path / "part", log=_quiet,
                 progress=False)
    assert err.value.code == "run_config_mismatch" and "last.pt" in err.value.message
    # the same flags resume it
    assert run_fold(plain, splits, tmp_path / "part", log=_quiet, progress=False)["status"] == "complete"


def test_fold_seed_does_not_depend_on_other_folds(ctv_data, tmp_path):
    """LOTO fold gamma trained alone equals gamma trained after alpha and beta."""
    from agrieval.baselines.ctv.sweep import plan, run_all

    _, splits = ctv_data
    base = tiny_config(protocol="loto", epochs=1)
    alone = tmp_path / "alone"
    run_all(base, plan(splits, alone, ["loto"], ["tiny_cnn"], ["gamma"]), splits, alone, log=_quiet, progress=False)
    sweep = tmp_path / "sweep"
    records = run_all(base, plan(splits, sweep, ["loto"], ["tiny_cnn"]), splits, sweep, log=_quiet, progress=False)
    assert [r["fold"] for r in records] == ["alpha", "beta", "gamma"]
    assert records[2]["train_teams"] == ["alpha", "beta"] and list(records[2]["per_test_team_acc"]) == ["gamma"]
    a = (alone / "loto" / "tiny_cnn" / "gamma" / "predictions.csv").read_bytes()
    assert a == (sweep / "loto" / "tiny_cnn" / "gamma" / "predictions.csv").read_bytes()


def test_changed_settings_name_each_flag_and_ignore_runtime_ones():
    old = tiny_config().identity()  # epochs=3, lr 0.001
    changed = tiny_config(lr=5e-4, epochs=2).changed_settings(old)
    assert changed == "--epochs 3 (the run) vs 2 (now); --lr 0.001 (the run) vs 0.0005 (now)"
    assert "agree" in tiny_config(device="cpu").changed_settings(old)  # device is a runtime setting
    assert "does not record" in tiny_config().changed_settings(None)


def test_a_stop_request_checkpoints_and_the_requeued_run_ends_identical(reference, ctv_data, tmp_path,
                                                                         monkeypatch):
    """SLURM's warning (the job script's USR1 trap creates the stop file): the run stops at the next epoch
    boundary with last.pt written; the requeued attempt first removes the temporaries a killed write left,
    then resumes to the uninterrupted result."""
    from agrieval.baselines.ctv.runner import STOP_FILE_ENV, StopRequested
    from agrieval.scoring.runtime.atomic import _TEMP_SUFFIX as TEMP_SUFFIX

    out, _ = reference
    stop = tmp_path / "stop"
    monkeypatch.setenv(STOP_FILE_ENV, str(stop))
    cfg = tiny_config(eval_test_every_epoch=True)
    runs = tmp_path / "runs"

    def log(line):
        if line.startswith("epoch 1/"):
            stop.touch()  # the warning arrives during epoch 1's evaluation

    with pytest.raises(StopRequested, match="before epoch 2"):
        run_fold(cfg, ctv_data[1], runs, log=log, progress=False)
    part = runs / "toto" / "tiny_cnn" / "alpha"
    assert (part / "last.pt").is_file() and len(_history(part)) == 1 and not (part / "run.json").exists()
    # a write that was killed mid-way (as a node failure or KILL does) left temporaries; another file stays
    left = [part / f".last.pt.abcd1234{TEMP_SUFFIX}", part / f".predictions.csv.0123wxyz{TEMP_SUFFIX}"]
    for p in left:
        p.write_bytes(b"x" * 1000)
    mine = part / f".notes.txt.abcd1234{TEMP_SUFFIX}"
    mine.write_bytes(b"user's")
    stop.unlink()  # the job script removes it when the attempt starts
    lines = []
    run_fold(cfg, ctv_data[1], runs, log=lines.append, progress=False)
    assert f"removed 2 temporary file(s) an interrupted attempt left in {part}" in lines
    assert not any(p.exists() for p in left) and mine.read_bytes() == b"user's"
    assert (part / "predictions.csv").read_bytes() == (out / "predictions.csv").read_bytes()
    assert _history(part) == _history(out)


def test_the_run_command_exits_75_on_a_stop_request(ctv_data, tmp_path, monkeypatch):
    """A warning before the run even started: the attempt still trains one epoch (so that every attempt makes
    progress, whatever the --signal lead), checkpoints, and exits 75 for the job script to requeue it."""
    from click.testing import CliRunner

    from agrieval.baselines.ctv.runner import STOP_FILE_ENV
    from agrieval.scoring.cli.main import cli

    stop = tmp_path / "stop"
    stop.touch()
    monkeypatch.setenv(STOP_FILE_ENV, str(stop))
    res = CliRunner().invoke(cli, ["baselines", "ctv", "run", "--splits", str(ctv_data[1]), "--runs-dir",
                                   str(tmp_path / "runs"), "--preset", "demo", "--protocol", "toto", "--arch",
                                   "tiny_cnn", "--fold", "alpha", "--threads", "1", "--epochs", "3"])
    assert res.exit_code == 75 and "stop requested" in res.output and "before epoch 2" in res.output
    part = tmp_path / "runs" / "toto" / "tiny_cnn" / "alpha"
    assert (part / "last.pt").is_file() and len(_history(part)) == 1 and not (part / "run.json").exists()
