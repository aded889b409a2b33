"""The batched train augmentation (``agrieval.baselines.ctv._augment``) against torchvision's per-sample definition.

Distributions: the parameters of many batched draws against as many of torchvision v2's own ``make_params``
calls (two-sample KS tests, p > 1e-3: a correct implementation fails one of these about once in a
thousand runs, hence fixed seeds), or against the configured uniform ranges. Arithmetic: each op against
torchvision's functional op on a real photo (scikit-image's astronaut).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats
from torchvision.transforms import v2
from torchvision.transforms.v2 import functional as TF

from agrieval.baselines.ctv._augment import (
    AugmentSpec,
    BatchAugment,
    adjust_hue,
    augment,
    color_jitter,
    draw_params,
    warp_grid,
)
from agrieval.baselines.ctv.config import make_config

N = 3000
P_MIN = 1e-3


def _spec(**kw) -> AugmentSpec:
    return AugmentSpec.from_config(make_config("paper", fold="-", **kw))


def _draw(spec, h, w, n=N, seed=0):
    return draw_params(spec, n, h, w, torch.Generator().manual_seed(seed))


@pytest.fixture(scope="module")
def photo():
    from skimage import data

    return TF.resize(torch.from_numpy(data.astronaut()).permute(2, 0, 1), [256, 256], antialias=True)


def _identity(n=1, size=224):
    z = torch.zeros(n, dtype=torch.float64)
    return {"top": z.clone(), "left": z.clone(), "height": z + size, "width": z + size,
            "hflip": torch.zeros(n, dtype=torch.bool), "vflip": torch.zeros(n, dtype=torch.bool), "angle": z.clone(),
            "order": torch.arange(4).repeat(n, 1),
            "jitter": torch.tensor([[1.0, 1.0, 1.0, 0.0]] * n, dtype=torch.float64),
            "erase": torch.zeros(n, dtype=torch.bool), "erase_top": z.clone(), "erase_left": z.clone(),
            "erase_h": z + 1, "erase_w": z + 1}


@pytest.mark.parametrize("h, w, scale", [(256, 256, (0.8, 1.0)), (256, 256, (0.08, 1.0)), (256, 64, (0.9, 1.0)),
                                         (200, 320, (0.5, 1.0))])
def test_crop_scales_ratios_and_offsets_match_random_resized_crop(h, w, scale):
    """Area fraction, log aspect and offsets against RandomResizedCrop.make_params, 10-try fallback included
    (256 x 64 with scale 0.9-1: most tries fail and the centre crop with the clamped ratio is taken)."""
    spec = _spec(rrc_scale=scale)
    p = _draw(spec, h, w)
    torch.manual_seed(0)
    rrc = v2.RandomResizedCrop(224, scale=scale, antialias=True)
    ref = [rrc.make_params([torch.empty(3, h, w)]) for _ in range(N)]
    ref_h = np.array([r["height"] for r in ref], float)
    ref_w = np.array([r["width"] for r in ref], float)
    mine_h, mine_w = p["height"].numpy(), p["width"].numpy()
    assert stats.ks_2samp(mine_h * mine_w / (h * w), ref_h * ref_w / (h * w)).pvalue > P_MIN
    assert stats.ks_2samp(np.log(mine_w / mine_h), np.log(ref_w / ref_h)).pvalue > P_MIN
    assert stats.ks_2samp(p["top"].numpy(), [r["top"] for r in ref]).pvalue > P_MIN
    assert stats.ks_2samp(p["left"].numpy(), [r["left"] for r in ref]).pvalue > P_MIN
    # every box is inside the image, in whole pixels
    assert (p["top"] >= 0).all() and (p["top"] + p["height"] <= h).all()
    assert (p["left"] >= 0).all() and (p["left"] + p["width"] <= w).all()
    assert torch.equal(p["height"], p["height"].round()) and torch.equal(p["top"], p["top"].round())


def test_angles_flips_and_jitter_factors_match_the_configured_ranges():
    spec = _spec()  # rotation 30, hflip 0.5, vflip 0.3, jitter (0.2, 0.2, 0.3, 0.1)
    p = _draw(spec, 256, 256)
    assert stats.kstest(p["angle"].numpy(), stats.uniform(-30, 60).cdf).pvalue > P_MIN
    for k, (lo, hi) in enumerate([(0.8, 1.2), (0.8, 1.2), (0.7, 1.3), (-0.1, 0.1)]):
        assert stats.kstest(p["jitter"][:, k].numpy(), stats.uniform(lo, hi - lo).cdf).pvalue > P_MIN
    for key, prob in (("hflip", 0.5), ("vflip", 0.3)):
        assert stats.binomtest(int(p[key].sum()), N, prob).pvalue > P_MIN
    # the order is a uniform permutation: each op equally often at each step, every permutation drawn
    counts = np.stack([(p["order"] == op).sum(0).numpy() for op in range(4)])
    assert stats.chisquare(counts.ravel(), [N / 4] * 16).pvalue > P_MIN
    assert len({tuple(r) for r in p["order"].tolist()}) == 24
    jitter = v2.ColorJitter(0.2, 0.2, 0.3, 0.1)
    torch.manual_seed(0)
    ref = np.array([[jitter.make_params([])[f"{k}_factor"] for k in ("brightness", "contrast", "saturation", "hue")]
                    for _ in range(N)])
    for k in range(4):
        assert stats.ks_2samp(p["jitter"][:, k].numpy(), ref[:, k]).pvalue > P_MIN


@pytest.mark.parametrize("scale, ratio", [((0.02, 0.15), (0.3, 3.3)), ((0.5, 0.98), (0.3, 3.3))])
def test_erasing_boxes_match_random_erasing(scale, ratio):
    """Erased share and box shape against RandomErasing.make_params (p = 1 there, then our coin): the second
    case fails many of the 10 tries, and a box that never fits is not erased, as in torchvision."""
    spec = _spec(random_erasing=0.2, erasing_scale=scale, erasing_ratio=ratio, img_size=64)
    p = _draw(spec, 80, 80)
    torch.manual_seed(0)
    er = v2.RandomErasing(1.0, scale=scale, ratio=ratio, value=0)
    ref = [er.make_params([torch.empty(3, 64, 64)]) for _ in range(N)]
    fitted = np.array([r["v"] is not None for r in ref])
    ref_h = np.array([r["h"] for r in ref], float)[fitted]
    ref_w = np.array([r["w"] for r in ref], float)[fitted]
    erased = p["erase"].numpy()
    assert stats.binomtest(int(erased.sum()), N, 0.2 * fitted.mean()).pvalue > P_MIN
    mh, mw = p["erase_h"].numpy()[erased], p["erase_w"].numpy()[erased]
    assert stats.ks_2samp(mh * mw, ref_h * ref_w).pvalue > P_MIN
    assert stats.ks_2samp(np.log(mh / mw), np.log(ref_h / ref_w)).pvalue > P_MIN
    assert (p["erase_top"][p["erase"]] + p["erase_h"][p["erase"]] <= 64).all()


def test_parameters_differ_within_a_batch_and_a_seed_gives_the_same_batch(photo):
    cfg = make_config("paper", fold="-")
    batch = photo.repeat(16, 1, 1, 1)
    aug = BatchAugment(cfg, seed=7)
    aug.set_epoch(3)
    rng_before = torch.get_rng_state()
    a = aug(batch)
    assert torch.equal(torch.get_rng_state(), rng_before)  # the model's generator is left alone
    p = BatchAugment(cfg, seed=7).params(16, 256, 256)
    assert len(set(p["angle"].tolist())) == 16 and len(set(zip(p["top"].tolist(), p["height"].tolist()))) > 8
    assert all(not torch.equal(a[0], a[i]) for i in range(1, 16))  # one photo, 16 different images
    again = BatchAugment(cfg, seed=7)
    again.set_epoch(3)
    assert torch.equal(again(batch), a)
    again.set_epoch(4)
    assert not torch.equal(again(batch), a)
    other_rank = BatchAugment(cfg, seed=7, rank=1)
    other_rank.set_epoch(3)
    assert not torch.equal(other_rank(batch), a)


def test_output_dtype_shape_and_range(photo):
    cfg = make_config("paper", fold="-", random_erasing=1.0)
    out = BatchAugment(cfg, seed=1)(photo.repeat(8, 1, 1, 1))
    assert out.dtype == torch.float32 and out.shape == (8, 3, 224, 224)
    mean, std = torch.tensor(cfg.mean).view(1, 3, 1, 1), torch.tensor(cfg.std).view(1, 3, 1, 1)
    assert (out >= -mean / std - 1e-5).all() and (out <= (1 - mean) / std + 1e-5).all()
    assert ((out == 0).all(1).flatten(1).sum(1) > 0.02 * 224 * 224 * 0.9).all()  # every image erased (p = 1)
    with pytest.raises(TypeError):
        BatchAugment(cfg, seed=1)(photo.float()[None])


def test_cpu_chunks_change_nothing_but_float_rounding(photo):
    cfg = make_config("paper", fold="-")
    batch = torch.stack([TF.rotate(photo, 90 * k) for k in range(4)] * 5)
    whole, chunked = BatchAugment(cfg, seed=3, cpu_chunk=64), BatchAugment(cfg, seed=3, cpu_chunk=3)
    # the same parameters per image; vectorised loops round the last bit differently on other lengths
    torch.testing.assert_close(whole(batch), chunked(batch), atol=1e-5, rtol=0)


def test_identity_parameters_give_the_normalised_photo(photo):
    spec = _spec()
    x = TF.resize(photo, [224, 224], antialias=True)[None]
    got = augment(x, _identity(), spec)
    ref = TF.normalize(x.float() / 255, list(spec.mean), list(spec.std))
    torch.testing.assert_close(got, ref, atol=1e-4, rtol=0)


@pytest.mark.parametrize("hflip, vflip, angle", [(True, False, 90.0), (False, True, -90.0), (True, True, 180.0),
                                                 (False, False, 30.0)])
def test_one_warp_is_flip_then_rotation(photo, hflip, vflip, angle):
    """The warp against torchvision's flips, then rotate (counter-clockwise, black fill): exact for right
    angles; at 30 degrees the two interpolations (ours bilinear, torchvision's bilinear too here) agree but
    for the black corners' one-pixel edges."""
    spec = _spec()
    x = TF.resize(photo, [224, 224], antialias=True)[None]
    p = dict(_identity(), hflip=torch.tensor([hflip]), vflip=torch.tensor([vflip]),
             angle=torch.tensor([angle], dtype=torch.float64))
    ref = x.float() / 255
    ref = TF.horizontal_flip(ref) if hflip else ref
    ref = TF.vertical_flip(ref) if vflip else ref
    ref = TF.rotate(ref, angle, interpolation=TF.InterpolationMode.BILINEAR)
    ref = TF.normalize(ref, list(spec.mean), list(spec.std))
    got = augment(x, p, spec)
    diff = (got - ref).abs()
    if angle % 90 == 0:
        assert diff.max() < 1e-3
    else:
        assert (diff > 0.05).float().mean() < 0.02 and diff.mean() < 0.01
        corner = got[0, :, :5, :5]  # rotated out of the frame: black (0 before normalisation)
        torch.testing.assert_close(corner, ((0 - torch.tensor(spec.mean)) / torch.tensor(spec.std)).view(3, 1, 1)
                                   .expand(3, 5, 5), atol=1e-5, rtol=0)


def test_crop_maps_the_box_onto_the_output(photo):
    spec = _spec()
    x = photo[None]
    p = dict(_identity(), top=torch.tensor([10.0], dtype=torch.float64), left=torch.tensor([30.0], dtype=torch.float64),
             height=torch.tensor([224.0], dtype=torch.float64), width=torch.tensor([224.0], dtype=torch.float64))
    got = augment(x, p, spec)  # a 224 box of the 256 image: a pure translation, no resampling
    ref = TF.normalize(x[:, :, 10:234, 30:254].float() / 255, list(spec.mean), list(spec.std))
    torch.testing.assert_close(got, ref, atol=1e-4, rtol=0)
    p.update(height=torch.tensor([112.0], dtype=torch.float64), width=torch.tensor([112.0], dtype=torch.float64))
    ref = TF.resized_crop(x.float() / 255, 10, 30, 112, 112, [224, 224], antialias=False)
    ref = TF.normalize(ref, list(spec.mean), list(spec.std))
    assert (augment(x, p, spec) - ref).abs().mean() < 2e-3  # 2x upsampling: bilinear both, edges aside


def test_jitter_ops_in_each_images_order_equal_torchvisions(photo):
    x = TF.resize(photo, [64, 64], antialias=True).float()[None] / 255
    batch = x.repeat(6, 1, 1, 1)
    order = torch.tensor([[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1], [0, 1, 2, 3], [3, 0, 1, 2]])
    factors = torch.tensor([[1.2, 0.8, 1.3, 0.1], [0.8, 1.2, 0.7, -0.1], [1.1, 0.9, 1.0, 0.05],
                            [0.9, 1.15, 1.25, -0.07], [1.0, 1.0, 1.0, 0.0], [1.19, 0.81, 0.71, 0.09]],
                           dtype=torch.float64)
    got = color_jitter(batch.clone(), order, factors, (True, True, True, True))
    ops = (TF.adjust_brightness, TF.adjust_contrast, TF.adjust_saturation, TF.adjust_hue)
    for i in range(6):
        ref = x[0]
        for op in order[i].tolist():
            ref = ops[op](ref, float(factors[i, op]))
        torch.testing.assert_close(got[i], ref, atol=2e-5, rtol=0)


@pytest.mark.parametrize("shift", [0.1, -0.1, 0.5, 0.03])
def test_hue_is_torchvisions_adjust_hue_on_floats(photo, shift):
    x = photo.float()[None] / 255
    x = torch.cat([x, torch.rand(1, 3, 256, 256, generator=torch.Generator().manual_seed(0))])
    got = adjust_hue(x, torch.full((2,), shift))
    torch.testing.assert_close(got, TF.adjust_hue(x, shift), atol=1e-5, rtol=0)


def test_warp_grid_marks_points_rotated_out_of_the_frame():
    p = dict(_identity(2, 32), angle=torch.tensor([0.0, 45.0], dtype=torch.float64))
    grid = warp_grid(p, 32, 32, 32, "cpu")
    assert (grid[0].abs() < 1).all()  # no rotation: every point inside
    far = (grid[1] == -4.0).all(-1)
    # at 45 degrees the four corners leave the frame: 2 * (1 - 1/sqrt 2)^2 of the area, ~17 %
    assert far[0, 0] and far[-1, -1] and not far[16, 16]
    assert far.float().mean().item() == pytest.approx(2 * (1 - 1 / math.sqrt(2)) ** 2, abs=0.03)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_a_gpu_run_draws_the_cpus_parameters(photo):
    cfg = make_config("paper", fold="-")
    batch = photo.repeat(8, 1, 1, 1)
    cpu, gpu = BatchAugment(cfg, seed=5), BatchAugment(cfg, seed=5)
    torch.testing.assert_close(gpu(batch.cuda()).cpu(), cpu(batch), atol=1e-3, rtol=0)


def test_a_kit_run_loads_bytes_and_trains_on_batches_augmented_on_the_device(ctv_data, tmp_path):
    """The workers' part is decode + resize (uint8 at --resize-size); the model sees normalised float batches
    of --img-size, different in each epoch; the official preset's loader still gives the script's tensors."""
    from agrieval.baselines.ctv._distributed import DistInfo
    from agrieval.baselines.ctv.manifest import load_fold
    from agrieval.baselines.ctv.runner import _loaders, run_fold
    from tests.baselines.ctv.configs import tiny_config

    _, splits = ctv_data
    cfg = tiny_config(epochs=2)
    fold = load_fold(splits, cfg.protocol, cfg.fold)
    train, _, _ = _loaders(cfg, fold, DistInfo(), torch.device("cpu"), print)
    x, _, _ = next(iter(train))
    assert x.dtype == torch.uint8 and x.shape[1:] == (3, cfg.resize_size, cfg.resize_size)
    seen = []
    run_fold(cfg, splits, tmp_path, log=lambda *_: None, progress=False,
             on_batch=lambda x, y, loss: seen.append(x.detach().clone()))
    assert all(b.dtype == torch.float32 and b.shape[1:] == (3, cfg.img_size, cfg.img_size) for b in seen)
    per_epoch = len(seen) // 2
    assert not torch.equal(seen[0], seen[per_epoch])  # epoch 2 draws other parameters
    official = make_config("official", **{k: getattr(cfg, k) for k in ("arch", "protocol", "fold", "img_size",
                                                                        "resize_size", "batch_size")},
                           pretrained=False, compile=False, num_workers=0)
    script_train, _, _ = _loaders(official, fold, DistInfo(), torch.device("cpu"), print)
    xs, _, _ = next(iter(script_train))
    assert xs.dtype == torch.float32 and xs.shape[1:] == (3, cfg.img_size, cfg.img_size)
