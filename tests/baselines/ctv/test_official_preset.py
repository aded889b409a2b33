"""``--preset official``: the public script's training settings, op by op against its get_transforms() re-typed
here (torchvision v1, as the script), drop_last, both archs, every value in run.json."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch
from torchvision import transforms as T

from agrieval.baselines.ctv._transforms import eval_transform, normalize_batch, train_transform
from agrieval.baselines.ctv.config import PRESET_SOURCES, make_config, preset_archs
from agrieval.baselines.ctv.runner import run_fold
from tests.baselines.ctv.configs import tiny_config

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def script_transforms(input_size: int = 224):
    """4.agri_challenge_ctv_cli_v3.py get_transforms(use_augmentation=True), as written there."""
    train = T.Compose([
        T.Resize((256, 256)),
        T.RandomResizedCrop(input_size, scale=(0.8, 1.0)),
        T.RandomHorizontalFlip(p=0.5),
        T.RandomVerticalFlip(p=0.3),
        T.RandomRotation(degrees=30),
        T.ColorJitter(brightness=0.2, contrast=0.2, saturation=0.3, hue=0.1),
        T.ToTensor(),
        T.Normalize(mean=MEAN, std=STD),
        T.RandomErasing(p=0.2, scale=(0.02, 0.15)),
    ])
    val = T.Compose([T.Resize((256, 256)), T.CenterCrop(input_size), T.ToTensor(), T.Normalize(mean=MEAN, std=STD)])
    return train, val


def _params(op) -> tuple:
    """The parameters that define a transform, in a form shared by torchvision v1 and v2."""
    name = type(op).__name__
    if name == "Resize":
        return name, tuple(op.size) if isinstance(op.size, (list, tuple)) else op.size
    if name in ("RandomResizedCrop", "CenterCrop"):
        extra = (tuple(op.scale), tuple(round(r, 6) for r in op.ratio)) if name == "RandomResizedCrop" else ()
        return (name, tuple(op.size)) + extra
    if name in ("RandomHorizontalFlip", "RandomVerticalFlip"):
        return name, op.p
    if name == "RandomRotation":
        return name, tuple(op.degrees)
    if name == "ColorJitter":
        return name, tuple(tuple(round(v, 6) for v in getattr(op, k)) for k in ("brightness", "contrast", "saturation",
                                                                                 "hue"))
    if name == "RandomErasing":
        return name, op.p, tuple(op.scale), tuple(round(r, 6) for r in op.ratio)
    return (name,)


def test_official_train_and_eval_transforms_are_the_scripts():
    cfg = make_config("official")
    script_train, script_val = script_transforms()
    ours = [_params(op) for op in train_transform(cfg).transforms]
    theirs = [_params(op) for op in script_train.transforms if type(op).__name__ not in ("ToTensor", "Normalize")]
    assert ours == theirs
    # erasing after Normalize fills with 0, i.e. with the mean before it: our uint8 fill
    erasing = train_transform(cfg).transforms[-1]
    assert list(erasing.value) == [round(255 * m) for m in MEAN]
    assert [_params(op) for op in eval_transform(cfg).transforms] == [
        _params(op) for op in script_val.transforms if type(op).__name__ not in ("ToTensor", "Normalize")]


def test_eval_pixels_official_equal_kit_within_one_grey_level_on_a_clean_tree_image():
    from PIL import Image
    from skimage import data

    img = Image.fromarray(data.astronaut()).resize((336, 336), Image.BICUBIC)  # a clean-tree image
    _, script_val = script_transforms()
    theirs = script_val(img)
    x = torch.from_numpy(np.array(img)).permute(2, 0, 1)
    ours = normalize_batch(eval_transform(make_config("official"))(x)[None], MEAN, STD)[0]
    # the kit's v2 pipeline (paper): PIL vs tensor antialiased bilinear, within one grey level (1/255/std ~ 0.018)
    assert ours.shape == theirs.shape and 0 < (ours - theirs).abs().mean() < 0.02
    # the official preset's pipeline: the script's tensor, bit for bit
    from agrieval.baselines.ctv._script_transforms import script_eval_transform

    assert torch.equal(script_eval_transform(make_config("official"))(img), theirs)


def test_official_values_sweep_and_sources():
    cfg = make_config("official")
    assert (cfg.vflip, cfg.color_jitter, cfg.random_erasing, cfg.erasing_scale) == (0.3, (0.2, 0.2, 0.3, 0.1), 0.2,
                                                                                   (0.02, 0.15))
    assert cfg.drop_last and cfg.resize_square and cfg.head == "mlp" and cfg.eval_test_every_epoch
    assert preset_archs("official") == ("densenet121", "swin_base")
    assert "public script" in PRESET_SOURCES["official"] and "where the paper is silent" in PRESET_SOURCES["paper"]
    paper = make_config("paper")
    assert paper.vflip == 0.3 and paper.drop_last and paper.head == "linear"
    with pytest.raises(Exception):
        make_config("official", erasing_scale=(0.2, 0.1))


def test_cli_flags_set_every_new_value(tmp_path):
    from click.testing import CliRunner

    from agrieval.baselines.ctv._cli import ctv

    res = CliRunner().invoke(ctv, ["plan", "--help"])
    assert res.exit_code == 0
    res = CliRunner().invoke(ctv, ["run", "--help"])
    for flag in ("--erasing-scale", "--erasing-ratio", "--drop-last / --no-drop-last", "--resize-square",
                 "--predict-train", "--no-eval-test-every-epoch"):
        assert flag in res.output, flag


def test_tiny_official_run_records_its_settings(ctv_data, tmp_path):
    """One epoch, 40 px images, random init: drop_last, the mlp head, train predictions, values in run.json."""
    _, splits = ctv_data
    base = tiny_config(epochs=1, batch_size=5)
    cfg = make_config("official", **{k: getattr(base, k) for k in ("arch", "protocol", "fold", "epochs", "batch_size",
                                                                    "threads", "deterministic", "img_size",
                                                                    "resize_size")},
                      pretrained=False, erasing_scale=(0.05, 0.2), compile=False, num_workers=0)
    record = run_fold(cfg, splits, tmp_path, log=lambda *_: None, progress=False)
    out = tmp_path / "toto" / "tiny_cnn" / "alpha"
    run = json.loads((out / "run.json").read_text())
    s = run["settings"]
    assert (s["drop_last"], s["vflip"], s["color_jitter"], s["random_erasing"], s["erasing_scale"], s["head"]) == (
        True, 0.3, [0.2, 0.2, 0.3, 0.1], 0.2, [0.05, 0.2], "mlp")
    assert run["preset"] == "official" and run["preset_source"] == PRESET_SOURCES["official"]
    pred = pd.read_csv(out / "predictions.csv")
    n_train = int((pred["split"] == "train").sum())
    assert n_train == run["n_train"] and record["train_acc"] == pytest.approx(
        (pred.loc[pred["split"] == "train", "true_label"] == pred.loc[pred["split"] == "train",
                                                                      "predicted_label"]).mean())
    hist = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
    assert len(hist) == 1 and "test_acc" in hist[0]  # the script evaluates the test split every epoch
    assert n_train % 5 and hist[0]["train_images"] == n_train // 5 * 5  # drop_last: whole batches only


def test_drop_last_with_too_few_images_is_refused(ctv_data, tmp_path):
    _, splits = ctv_data
    cfg = tiny_config(epochs=1, batch_size=64, drop_last=True)
    from agrieval.baselines.ctv.errors import CTVError

    with pytest.raises(CTVError) as info:
        run_fold(cfg, splits, tmp_path, log=lambda *_: None, progress=False)
    assert info.value.code == "bad_option" and "--no-drop-last" in info.value.message
