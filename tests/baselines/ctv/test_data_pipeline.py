"""Transforms, device-side normalisation, the uint8 cache, per-fold seeds."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.baselines.ctv._cache import build_cache, decode_square
from agrieval.baselines.ctv._dataset import SplitDataset
from agrieval.baselines.ctv._seeding import derive_seed, fold_seed
from agrieval.baselines.ctv._transforms import eval_transform, normalize_batch, train_transform
from agrieval.baselines.ctv.errors import CTVError
from agrieval.baselines.ctv.manifest import load_fold
from tests.baselines.ctv.configs import tiny_config


@pytest.mark.parametrize("square", [True, False])
def test_eval_transform_is_resize_then_centre_crop_on_a_real_photo(square):
    from PIL import Image
    from skimage import data

    from agrieval.baselines.ctv.config import make_config

    cfg = make_config("paper", resize_square=square)  # 256 -> 224
    img = data.chelsea()  # 300 x 451
    out = eval_transform(cfg)(torch.from_numpy(img).permute(2, 0, 1))
    assert out.shape == (3, 224, 224) and out.dtype == torch.uint8
    # oracle: PIL bilinear resize to 256 x 256 (the script's Resize((256, 256))), or of the shorter side to 256
    # (longer side truncated, as torchvision does), then centre crop 224
    h, w = img.shape[:2]
    ref = Image.fromarray(img).resize((256, 256) if square else (int(w * 256 / h), 256), Image.BILINEAR)
    left, top = (ref.width - 224) // 2, (ref.height - 224) // 2
    ref = np.asarray(ref.crop((left, top, left + 224, top + 224))).astype(int)
    assert np.abs(out.permute(1, 2, 0).numpy().astype(int) - ref).mean() < 0.05


@pytest.mark.parametrize("square", [True, False])
def test_decode_transform_only_resizes(square):
    """The workers' part under --transforms kit: deterministic, uint8, one size for every image of a batch."""
    from skimage import data

    from agrieval.baselines.ctv._transforms import decode_transform
    from agrieval.baselines.ctv.config import make_config

    cfg = make_config("paper", resize_square=square, cache_size=280)
    img = torch.from_numpy(data.chelsea()).permute(2, 0, 1)  # 300 x 451
    tf = decode_transform(cfg)
    out = tf(img)
    side = 256 if square else 280
    assert out.shape == (3, side, side) and out.dtype == torch.uint8 and torch.equal(out, tf(img))
    # oracle: PIL bilinear, to (256, 256) or the shorter side to --cache-size (longer side truncated) and the
    # centred square
    from PIL import Image

    h, w = img.shape[1:]
    ref = Image.fromarray(data.chelsea()).resize((256, 256) if square else (int(w * 280 / h), 280), Image.BILINEAR)
    left, top = (ref.width - side) // 2, (ref.height - side) // 2
    ref = np.asarray(ref.crop((left, top, left + side, top + side))).astype(int)
    assert np.abs(out.permute(1, 2, 0).numpy().astype(int) - ref).mean() < 0.6


def test_train_transform_output_and_randomness():
    from skimage import data

    cfg = tiny_config()
    x = torch.from_numpy(data.astronaut()).permute(2, 0, 1)
    tf = train_transform(cfg)
    torch.manual_seed(0)
    a = tf(x)
    torch.manual_seed(0)
    b = tf(x)
    c = tf(x)
    assert a.shape == (3, cfg.img_size, cfg.img_size) and a.dtype == torch.uint8
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_normalize_batch_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (2, 3, 5, 4), dtype=np.uint8)
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    ref = (x / 255.0 - np.array(mean)[None, :, None, None]) / np.array(std)[None, :, None, None]
    got = normalize_batch(torch.from_numpy(x), mean, std).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_cache_rows_equal_decoded_images_and_are_reused(ctv_data, tmp_path):
    from PIL import Image

    _, splits = ctv_data
    fold = load_fold(splits, "toto", "alpha")
    paths = fold.frame["abspath"].tolist()
    data_file, rows = build_cache(paths, tmp_path / "cache", size=40, workers=1)
    assert sorted(rows) == sorted(paths)
    disk = SplitDataset(paths, fold.frame["label"], None)
    cached = SplitDataset(paths, fold.frame["label"], None, cache=(data_file, rows, 40))
    for i in (0, 7, len(paths) - 1):
        assert torch.equal(disk[i][0], cached[i][0])
        assert np.array_equal(np.asarray(Image.open(paths[i]).convert("RGB")), cached[i][0].permute(1, 2, 0).numpy())
    stamp = data_file.stat().st_mtime_ns
    assert build_cache(paths, tmp_path / "cache", size=40)[0].stat().st_mtime_ns == stamp
    data_file.write_bytes(b"x")  # a damaged cache is refused, never silently used
    with pytest.raises(CTVError) as err:
        build_cache(paths, tmp_path / "cache", size=40)
    assert err.value.code == "cache_invalid"


def test_decode_square_resizes_the_shorter_side_and_centre_crops(tmp_path):
    from PIL import Image
    from skimage import data

    path = tmp_path / "coffee.png"
    Image.fromarray(data.coffee()).save(path)  # 400 x 600
    out = decode_square(str(path), 100)
    assert out.shape == (100, 100, 3)
    ref = np.asarray(Image.fromarray(data.coffee()).resize((150, 100), Image.BICUBIC))[:, 25:125]
    assert np.array_equal(out, ref)


def test_fold_seed_is_a_sha256_of_seed_and_fold():
    expected = int(hashlib.sha256(b"42|toto|team07").hexdigest()[:8], 16)
    assert fold_seed(42, "toto", "team07") == expected


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.text(min_size=1, max_size=12), min_size=2, max_size=6, unique=True))
def test_fold_seeds_are_stable_and_distinct(base, folds):
    seeds = [fold_seed(base, "loto", f) for f in folds]
    assert seeds == [fold_seed(base, "loto", f) for f in reversed(folds)][::-1]
    assert len(set(seeds)) == len(seeds)
    assert derive_seed(base, "epoch", 1) != derive_seed(base, "epoch", 2)
