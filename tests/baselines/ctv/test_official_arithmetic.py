"""``--preset official``'s arithmetic besides the transforms: best-epoch rule, one seed stream per sweep (hand-off,
gap, resume), a failed fold skipped with exit 1, black images with one warning per file, fp16 selection."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch

from agrieval.baselines.ctv.config import make_config
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.runner import run_fold
from agrieval.baselines.ctv.sweep import plan, run_all
from tests.baselines.ctv.configs import tiny_config


def _quiet(*_):
    pass


def official(**kw):
    """The official preset on the tiny test pool: tiny_cnn, 40 px images, CPU, no compile, no workers."""
    values = dict(arch="tiny_cnn", protocol="toto", fold="alpha", epochs=2, batch_size=4, threads=1,
                  pretrained=False, img_size=32, resize_size=36, compile=False, num_workers=0, device="cpu")
    values.update(kw)
    return make_config("official", **values)


def _state(path):
    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def _predictions(runs, fold):
    return (runs / "toto" / "tiny_cnn" / fold / "predictions.csv").read_text()


def test_official_defaults_are_the_scripts():
    cfg = make_config("official")
    assert (cfg.transforms, cfg.unreadable, cfg.selection, cfg.seed_stream, cfg.amp, cfg.compile,
            cfg.channels_last, cfg.num_workers) == ("script", "black", "script", "sweep", "script", True, "off", 4)
    paper = make_config("paper")
    assert (paper.transforms, paper.unreadable, paper.selection, paper.seed_stream, paper.amp, paper.compile) == (
        "kit", "error", "kit", "fold", "auto", False)
    with pytest.raises(CTVError) as info:
        make_config("official", cache="/tmp/x")
    assert info.value.code == "bad_option" and "--transforms script" in info.value.message


@pytest.mark.parametrize("selection, kept", [("script", "last"), ("kit", "best")])
def test_when_no_epoch_beats_zero_the_script_keeps_the_last(ctv_data, tmp_path, monkeypatch, selection, kept):
    import agrieval.baselines.ctv.runner as runner

    monkeypatch.setattr(runner, "accuracy", lambda result: 0.0)  # every epoch scores 0 % on val
    cfg = official(selection=selection, epochs=3, keep_last=True)
    record = run_fold(cfg, ctv_data[1], tmp_path, log=_quiet, progress=False)
    out = tmp_path / "toto" / "tiny_cnn" / "alpha"
    best, last = _state(out / "best.pt"), _state(out / "last.pt")
    same = all(torch.equal(best[k], last[k]) for k in best)
    assert record["kept_epoch"] == kept
    if kept == "last":  # nothing restored: the model of epoch 3 is the one predicted with and saved
        assert same and record["best_epoch"] == 3
    else:  # the kit keeps epoch 1 (first with the highest val accuracy, 0 here)
        assert not same and record["best_epoch"] == 1


def test_one_stream_over_the_sweep_is_handed_on_between_invocations(ctv_data, tmp_path):
    splits = ctv_data[1]
    cfg = official(fold="-")
    together = tmp_path / "together"
    run_all(cfg, plan(splits, together, ["toto"], ["tiny_cnn"]), splits, together, log=_quiet, progress=False)
    apart = tmp_path / "apart"
    for fold in ("alpha", "beta", "gamma"):  # one process call per fold, as separate `ctv run` commands
        run_fold(dataclasses.replace(cfg, fold=fold), splits, apart, log=_quiet, progress=False)
    for fold in ("alpha", "beta", "gamma"):
        assert _predictions(together, fold) == _predictions(apart, fold)
        assert (together / "toto" / "tiny_cnn" / fold / "stream_after.pt").is_file()
    # fold beta alone, started from a fresh seed, is another model: the stream really carries over
    fresh = tmp_path / "fresh"
    run_fold(official(fold="beta", seed_stream="fold"), splits, fresh, log=_quiet, progress=False)
    assert _predictions(fresh, "beta") != _predictions(together, "beta")
    record = json.loads((apart / "toto" / "tiny_cnn" / "beta" / "run.json").read_text())
    assert "continues alpha's stream" in record["seed_stream"]["start"]


def test_a_fold_without_its_predecessors_stream_is_refused(ctv_data, tmp_path):
    with pytest.raises(CTVError) as info:
        run_fold(official(fold="beta"), ctv_data[1], tmp_path, log=_quiet, progress=False)
    assert info.value.code == "stream_gap" and "alpha" in info.value.message and "stream_after.pt" in info.value.message


def test_resume_in_the_sweep_stream_reaches_the_uninterrupted_result(ctv_data, tmp_path):
    splits = ctv_data[1]
    whole = tmp_path / "whole"
    run_fold(official(epochs=3), splits, whole, log=_quiet, progress=False)
    cut = tmp_path / "cut"
    from agrieval.baselines.ctv.runner import _Interrupted as Interrupted

    with pytest.raises(Interrupted):
        run_fold(official(epochs=3), splits, cut, log=_quiet, progress=False, stop_after_epoch=1)
    torch.manual_seed(12345)  # another process: the generators hold anything
    run_fold(official(epochs=3), splits, cut, log=_quiet, progress=False)
    assert _predictions(whole, "alpha") == _predictions(cut, "alpha")
    a = torch.load(whole / "toto" / "tiny_cnn" / "alpha" / "stream_after.pt", weights_only=False)
    b = torch.load(cut / "toto" / "tiny_cnn" / "alpha" / "stream_after.pt", weights_only=False)
    assert torch.equal(a["torch"], b["torch"])


def test_a_failing_fold_is_skipped_and_the_sweep_exits_1(ctv_data, tmp_path, monkeypatch):
    import agrieval.baselines.ctv.runner as runner

    real = runner.build_model

    def flaky(arch, num_classes, **kw):
        if flaky.calls == 1:  # the second fold (beta) raises, as a CUDA OOM would
            flaky.calls += 1
            raise RuntimeError("simulated failure")
        flaky.calls += 1
        return real(arch, num_classes, **kw)

    flaky.calls = 0
    monkeypatch.setattr(runner, "build_model", flaky)
    splits = ctv_data[1]
    lines = []
    records = run_all(official(fold="-"), plan(splits, tmp_path, ["toto"], ["tiny_cnn"]), splits, tmp_path,
                      keep_going=True, log=lines.append, progress=False)
    assert [r["status"] for r in records] == ["complete", "failed", "complete"]
    assert records[1]["error"] == "fold_failed" and "simulated failure" in records[1]["message"]
    assert any("fold_failed" in line for line in lines)
    failed = json.loads((tmp_path / "toto" / "tiny_cnn" / "beta" / "failed.json").read_text())
    assert failed["error"] == "fold_failed" and "simulated failure" in failed["traceback"]
    # rerun: beta now trains (from the stream alpha handed on) and its failure record goes
    again = run_all(official(fold="-"), plan(splits, tmp_path, ["toto"], ["tiny_cnn"]), splits, tmp_path,
                    keep_going=True, log=_quiet, progress=False)
    assert [r["status"] for r in again] == ["skipped", "complete", "skipped"]
    assert not (tmp_path / "toto" / "tiny_cnn" / "beta" / "failed.json").exists()
    # gamma continued the stream in this process (beta left no stream_after.pt)
    assert "in this process" in records[2]["seed_stream"]["start"]
    # the paper preset does not swallow a non-CTV error
    flaky.calls = 1
    with pytest.raises(RuntimeError):
        run_all(tiny_config(epochs=1), plan(splits, tmp_path / "p", ["toto"], ["tiny_cnn"]), splits,
                tmp_path / "p", keep_going=True, log=_quiet, progress=False)


def test_cli_run_all_official_exits_1_after_a_failed_fold(ctv_data, tmp_path):
    from click.testing import CliRunner

    from agrieval.baselines.ctv._cli import ctv

    splits = ctv_data[1]
    (tmp_path / "runs" / "toto" / "tiny_cnn" / "beta").mkdir(parents=True)
    # a finished-looking run of other settings makes beta fail (run_config_mismatch); the sweep goes on
    (tmp_path / "runs" / "toto" / "tiny_cnn" / "beta" / "run.json").write_text('{"identity_hash": "x"}')
    res = CliRunner().invoke(ctv, ["run-all", "--splits", str(splits), "--runs-dir", str(tmp_path / "runs"),
                                   "--preset", "official", "--protocols", "toto", "--archs", "tiny_cnn",
                                   "--no-pretrained", "--epochs", "1", "--batch-size", "4", "--img-size", "32",
                                   "--resize-size", "36", "--no-compile", "--num-workers", "0", "--device", "cpu",
                                   "--threads", "1"])
    assert res.exit_code == 1, res.output
    assert "3 runs: 2 finished, 1 failed" in res.output
    assert (tmp_path / "runs" / "toto" / "tiny_cnn" / "gamma" / "run.json").is_file()


def test_unreadable_images_are_black_with_one_warning_per_file(tmp_path, capsys):
    from agrieval.baselines.ctv._dataset import SplitDataset, unreadable_paths
    from agrieval.baselines.ctv._script_transforms import script_eval_transform
    from agrieval.baselines.ctv.config import make_config

    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8\xff not a jpeg")
    cfg = make_config("official", img_size=32, resize_size=36)
    marks = tmp_path / "marks"
    ds = SplitDataset([str(bad)] * 3, [0, 0, 0], script_eval_transform(cfg), decode="pil", unreadable="black",
                      unreadable_dir=marks)
    xs = [ds[i][0] for i in range(3)] + [ds[0][0]]
    err = capsys.readouterr().err
    assert err.count("image_unreadable") == 1 and str(bad) in err
    mean, std = torch.tensor(cfg.mean).view(3, 1, 1), torch.tensor(cfg.std).view(3, 1, 1)
    assert all(torch.equal(x, ((torch.zeros(3, 32, 32) - mean) / std)) for x in xs)  # black, normalised
    assert unreadable_paths(marks) == [str(bad)]
    strict = SplitDataset([str(bad)], [0], script_eval_transform(cfg), decode="pil")
    with pytest.raises(CTVError) as info:
        strict[0]
    assert info.value.code == "image_unreadable"


def test_amp_script_is_fp16_only_on_cuda_of_capability_7():
    from agrieval.baselines.ctv.runner import amp_dtype

    cpu = torch.device("cpu")
    assert amp_dtype("script", cpu) is None and amp_dtype("auto", cpu) is None and amp_dtype("bf16", cpu) == \
        torch.bfloat16
    with pytest.raises(CTVError):
        amp_dtype("fp16", cpu)
    if torch.cuda.is_available():
        cuda = torch.device("cuda", 0)
        want = torch.float16 if torch.cuda.get_device_capability(cuda)[0] >= 7 else None
        assert amp_dtype("script", cuda) == want


def test_run_json_names_its_library_versions(ctv_data, tmp_path):
    record = run_fold(official(epochs=1), ctv_data[1], tmp_path, log=_quiet, progress=False)
    v = record["versions"]
    import PIL
    import torchvision

    assert v["torch"].split("+")[0] == torch.__version__.split("+")[0]
    assert v["torchvision"].split("+")[0] == torchvision.__version__.split("+")[0] and v["Pillow"] == PIL.__version__
    assert {"timm", "numpy", "pandas", "python"} <= set(v)
    assert record["device"]["grad_scaler"] is False and record["device"]["amp"] == "none"


def test_preset_table_has_a_row_and_a_reason_for_every_difference():
    from agrieval.baselines.ctv._preset_table import WHY, preset_differences, preset_table

    paper, off = make_config("paper").to_dict(), make_config("official").to_dict()
    differing = {k for k in paper if k != "preset" and paper[k] != off[k]} | {"archs"}
    assert set(preset_differences()) == differing == set(WHY)  # a new difference needs its reason
    table = preset_table(markdown=True)
    assert all(line.count("|") == 6 for line in table.splitlines())  # no stray '|' inside a cell
    assert "`--seed-stream` | `fold` | `sweep`" in table and "`--compile` | `False` | `True`" in table


def test_slurm_refuses_the_sweep_stream(ctv_data, tmp_path):
    from click.testing import CliRunner

    from agrieval.baselines.ctv._cli import ctv

    res = CliRunner().invoke(ctv, ["slurm", "--splits", str(ctv_data[1]), "--preset", "official", "-o",
                                   str(tmp_path / "x.sbatch"), "--archs", "tiny_cnn"])
    assert res.exit_code == 2 and "--seed-stream fold" in res.output
    res = CliRunner().invoke(ctv, ["slurm", "--splits", str(ctv_data[1]), "--preset", "official", "-o",
                                   str(tmp_path / "y.sbatch"), "--archs", "tiny_cnn", "--seed-stream", "fold",
                                   "--no-pretrained"])  # (weights are checked when the script is written)
    assert res.exit_code == 0, res.output


def test_patience_stops_as_the_script_does(ctv_data, tmp_path, monkeypatch):
    import agrieval.baselines.ctv.runner as runner

    scores = iter([0.5, 0.6, 0.6, 0.55, 0.9, 0.9])  # best at epoch 2, then two epochs without a better one
    monkeypatch.setattr(runner, "accuracy", lambda result: next(scores, 0.0))
    cfg = official(epochs=6, patience=2, eval_test_every_epoch=False, predict_train=False)
    record = run_fold(cfg, ctv_data[1], tmp_path, log=_quiet, progress=False)
    assert record["epochs_run"] == 4 and record["early_stopped"] and record["best_epoch"] == 2
    assert make_config("official").patience == 30 and make_config("paper").patience == 0
