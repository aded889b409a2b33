"""Recompression stage, tile policies, padded windows and resize filters on a real photo
(skimage's astronaut, cut to 3:2 like a quadrat). Oracles are PIL calls written out here."""

import io

import numpy as np
import pytest
from PIL import Image, JpegImagePlugin
from skimage import data

from agrieval.baselines.plantclef import _jpeg as jpeg
from agrieval.baselines.plantclef.geometry import parse_level
from agrieval.baselines.plantclef.preprocess import PreprocessConfig, quadrat_tiles, recompress_jpeg

LANCZOS = Image.Resampling.LANCZOS


@pytest.fixture(scope="module")
def astronaut():
    return Image.fromarray(data.astronaut())


@pytest.fixture(scope="module")
def quadrat32(astronaut):
    """A 3:2 image (384 x 256)."""
    return astronaut.crop((40, 100, 424, 356))


def _pil_jpeg(image, quality, pillow_code):
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality, subsampling=pillow_code)
    return buf.getvalue()


def _decode(raw):
    with Image.open(io.BytesIO(raw)) as im:
        return np.asarray(im.convert("RGB"))


@pytest.mark.parametrize("name,code", [("4:4:4", 0), ("4:2:2", 1), ("4:2:0", 2)])
def test_subsampling_is_what_the_encoded_jpeg_says(astronaut, name, code):
    with Image.open(io.BytesIO(jpeg.encode_jpeg(astronaut, 90, name))) as im:
        assert JpegImagePlugin.get_sampling(im) == code


def test_pillows_own_411_is_really_420_so_it_is_never_used(astronaut):
    # The trap this module avoids: Pillow maps "4:1:1" to 4:2:0 without a word.
    assert _pil_jpeg(astronaut, 90, "4:1:1") == _pil_jpeg(astronaut, 90, 2)


def test_411_without_simplejpeg_is_refused_with_the_install_hint(astronaut, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_simplejpeg(name, *args, **kwargs):
        if name == "simplejpeg":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_simplejpeg)
    with pytest.raises(jpeg.JpegUnavailable, match="pip install simplejpeg"):
        jpeg.encode_jpeg(astronaut, 94, "4:1:1")


def test_411_with_simplejpeg_quarters_the_chroma_at_the_tile_stage(astronaut, quadrat32):
    simplejpeg = pytest.importorskip("simplejpeg")
    with Image.open(io.BytesIO(jpeg.encode_jpeg(astronaut, 94, "4:1:1"))) as im:
        assert im.layer[0][1:3] == (4, 1) and im.layer[1][1:3] == (1, 1)
    cfg = PreprocessConfig(levels=(parse_level("square:2"),), input_size=64, jpeg_quality=94, subsampling="4:1:1")
    tiles, boxes, _ = quadrat_tiles(quadrat32, cfg)
    for tile, box in zip(tiles, boxes):
        resized = np.ascontiguousarray(quadrat32.resize((64, 64), LANCZOS, box=tuple(int(v) for v in box)))
        raw = simplejpeg.encode_jpeg(resized, quality=94, colorspace="RGB", colorsubsampling="411")
        assert np.array_equal(tile, _decode(raw))


@pytest.mark.parametrize("quality,subsampling,code", [(85, "4:2:2", 1), (95, "4:4:4", 0), (70, "4:2:0", 2)])
def test_tile_stage_is_encode_after_resize_byte_for_byte(quadrat32, quality, subsampling, code):
    cfg = PreprocessConfig(levels=(parse_level("square:2"),), input_size=64, jpeg_quality=quality,
                           subsampling=subsampling)
    assert cfg.jpeg_stage == "tile"  # the default when recompression is asked for
    tiles, boxes, _ = quadrat_tiles(quadrat32, cfg)
    for tile, box in zip(tiles, boxes):
        resized = quadrat32.resize((64, 64), LANCZOS, box=tuple(int(v) for v in box))
        raw = _pil_jpeg(resized, quality, code)
        assert jpeg.encode_jpeg(resized, quality, subsampling) == raw
        assert np.array_equal(tile, _decode(raw))


def test_image_stage_recompresses_the_quadrat_before_tiling(quadrat32):
    cfg = PreprocessConfig(levels=(parse_level("grid:2"),), input_size=48, jpeg_quality=80, jpeg_stage="image",
                           tile_policy="stretch")
    tiles, boxes, _ = quadrat_tiles(quadrat32, cfg)
    whole = Image.fromarray(_decode(_pil_jpeg(quadrat32, 80, 1)))
    want = np.asarray(whole.resize((48, 48), LANCZOS, box=tuple(int(v) for v in boxes[3])))
    assert np.array_equal(tiles[3], want)
    per_tile, _, _ = quadrat_tiles(quadrat32, PreprocessConfig(levels=cfg.levels, input_size=48, jpeg_quality=80,
                                                               tile_policy="stretch"))
    assert not np.array_equal(per_tile, tiles)


def test_tile_policies_on_a_3_2_tile(quadrat32):
    """grid:1 on a 384x256 image: one 3:2 tile. crop = its centred 256 px square; pad = letterbox
    (black bands of 1/6 of the height above and below); stretch = the whole tile squeezed."""
    size = 60
    out = {p: quadrat_tiles(quadrat32, PreprocessConfig(levels=(parse_level("grid:1"),), input_size=size,
                                                        tile_policy=p))[0][0] for p in ("crop", "pad", "stretch")}
    assert np.array_equal(out["crop"], np.asarray(quadrat32.resize((size, size), LANCZOS, box=(64, 0, 320, 256))))
    assert np.array_equal(out["stretch"], np.asarray(quadrat32.resize((size, size), LANCZOS)))
    band = (size - 40) // 2  # 384 -> 60, 256 -> 40
    assert not out["pad"][:band].any() and not out["pad"][band + 40:].any()
    assert np.array_equal(out["pad"][band:band + 40], np.asarray(quadrat32.resize((size, 40), LANCZOS)))


def test_padded_window_is_zero_past_the_edge(quadrat32):
    # window:300 on 384x256 with pad: starts 0, 300 along x (n = ceil(84/300) + 1 = 2); y: one window.
    cfg = PreprocessConfig(levels=(parse_level("window:300"),), input_size=300, border_mode="pad")
    tiles, boxes, _ = quadrat_tiles(quadrat32, cfg)
    assert boxes.tolist() == [[0, 0, 300, 300], [300, 0, 600, 300]]
    assert not tiles[1][:, 84:].any() and not tiles[1][256:].any()
    assert np.array_equal(tiles[1][:256, :84], np.asarray(quadrat32)[:, 300:])
    snap, sboxes, _ = quadrat_tiles(quadrat32, PreprocessConfig(levels=cfg.levels, input_size=300))
    assert sboxes.tolist() == [[0, 0, 300, 256], [84, 0, 384, 256]]
    # centre (kornia's compute_padding): x padded by 216 = 108 + 108, y by 44 = 22 + 22
    centred, cboxes, _ = quadrat_tiles(quadrat32, PreprocessConfig(levels=cfg.levels, input_size=300,
                                                                   border_mode="centre"))
    assert cboxes.tolist() == [[-108, -22, 192, 278], [192, -22, 492, 278]]
    assert not centred[0][:22].any() and not centred[0][:, :108].any() and not centred[0][278:].any()
    assert np.array_equal(centred[0][22:278, 108:], np.asarray(quadrat32)[:, :192])


def test_recompression_422_changes_the_pixels_and_differs_from_444(astronaut):
    out422 = np.asarray(recompress_jpeg(astronaut, 90, "4:2:2"), dtype=np.int16)
    out444 = np.asarray(recompress_jpeg(astronaut, 90, "4:4:4"), dtype=np.int16)
    src = np.asarray(astronaut, dtype=np.int16)
    assert np.abs(out422 - src).mean() > np.abs(out444 - src).mean() > 0.1


def test_tiles_shape_boxes_and_filters(astronaut):
    cfg = PreprocessConfig(levels=(parse_level("grid:2"), parse_level("full")), input_size=64, border=16)
    tiles, boxes, levels = quadrat_tiles(astronaut, cfg)
    assert tiles.shape == (5, 64, 64, 3) and tiles.dtype == np.uint8
    assert boxes[0].tolist() == [16, 16, 256, 256] and boxes[-1].tolist() == [16, 16, 496, 496]
    assert levels.tolist() == [0, 0, 0, 0, 1]
    ref = np.asarray(astronaut.crop((16, 16, 256, 256)).resize((64, 64), LANCZOS), dtype=np.int16)
    assert np.abs(tiles[0].astype(np.int16) - ref).mean() < 2.0
    bicubic, _, _ = quadrat_tiles(astronaut, PreprocessConfig(levels=cfg.levels, input_size=64, border=16,
                                                              resize_filter="bicubic"))
    assert not np.array_equal(bicubic, tiles)


@pytest.mark.parametrize("kwargs,match", [({"resize_filter": "nearest"}, "resize filter"),
                                          ({"subsampling": "4:1:0"}, "subsampling"),
                                          ({"jpeg_quality": 0}, "quality"), ({"jpeg_stage": "file"}, "JPEG stage"),
                                          ({"tile_policy": "fill"}, "tile policy"),
                                          ({"border_mode": "wrap"}, "border")])
def test_bad_options_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PreprocessConfig(**kwargs)


# --- each team's own tile pixels -----------------------------------------------------------------


def test_timm_policy_is_timms_eval_transform_on_each_tile(quadrat32):
    import timm

    cfg = timm.data.resolve_data_config({}, pretrained_cfg={"input_size": (3, 96, 96), "interpolation": "bicubic",
                                                            "crop_pct": 1.0})
    resize, crop = timm.data.create_transform(**cfg, is_training=False).transforms[:2]
    tiles, boxes, _ = quadrat_tiles(quadrat32, PreprocessConfig(levels=(parse_level("floor:3"),), input_size=96,
                                                                tile_policy="timm"))
    for tile, box in zip(tiles, boxes):
        assert np.array_equal(tile, np.asarray(crop(resize(quadrat32.crop(tuple(int(v) for v in box))))))
    # the kit's crop-then-resize differs: the centre crop offset falls between original pixels
    cropped, _, _ = quadrat_tiles(quadrat32, PreprocessConfig(levels=(parse_level("floor:3"),), input_size=96,
                                                              resize_filter="bicubic"))
    assert not np.array_equal(cropped, tiles)


def rust_winner_tiles(image, scale, size):
    """src/lib_dataset.rs init_with_geometry + get_item (f32 sizes, Rust round), with PIL Lanczos for Wand."""
    res = scale * size
    w, h = image.size
    if h < w:
        nh, nw = res, int(np.floor(float(np.float32(res) * np.float32(w) / np.float32(h)) + 0.5))
        cy, cx = 0, (nw - res) // 2
    else:
        nh, nw = int(np.floor(float(np.float32(res) * np.float32(h) / np.float32(w)) + 0.5)), res
        cy, cx = (nh - res) // 2, 0
    big = image.resize((nw, nh), LANCZOS).crop((cx, cy, cx + res, cy + res))
    return [np.asarray(big.crop((size * j, size * i, size * (j + 1), size * (i + 1))))
            for i in range(scale) for j in range(scale)]


@pytest.mark.parametrize("scale", [1, 2, 3])
def test_resized_level_is_the_winners_whole_image_resize_then_native_crops(quadrat32, scale):
    quadrat32 = quadrat32.crop((0, 0, 383, 257))  # a size whose tile edges fall between original pixels
    tiles, _, _ = quadrat_tiles(quadrat32, PreprocessConfig(levels=(parse_level(f"resized:{scale}"),), input_size=40))
    want = rust_winner_tiles(quadrat32, scale, 40)
    assert len(tiles) == len(want) and all(np.array_equal(a, b) for a, b in zip(tiles, want))
    # not the kit's square:N boxes resized one by one
    square, _, _ = quadrat_tiles(quadrat32, PreprocessConfig(levels=(parse_level(f"square:{scale}"),), input_size=40))
    assert not np.array_equal(square, tiles)


def test_resized_geometry_rounds_in_float32_like_rust():
    from agrieval.baselines.plantclef.geometry import resized_geometry

    # 518 * 4032 / 3023 = 690.9... in both; find a size where f32 and f64 rounding part ways
    found = [(w, h) for w in range(500, 3000) for h in (1001, 1003, 1999)
             if h < w and round(518 * w / h) != int(np.floor(float(np.float32(518) * np.float32(w) / np.float32(h)) + 0.5))]
    for w, h in found[:5]:
        assert resized_geometry(w, h, 1, 518)[0] == int(np.floor(float(np.float32(518) * np.float32(w) / np.float32(h)) + 0.5))
    assert resized_geometry(1536, 1024, 3, 518) == (2331, 1554, 388, 0)


def chlorophyll_tiles(image, scales, overlaps, size):
    """src/data.py MultitileDataset.__getitem__ with kornia 0.8.0's compute_padding and extract_tensor_patches
    re-stated (torch pad + unfold), float tiles."""
    import math

    import torch

    t = torch.from_numpy(np.asarray(image, dtype=np.float32) / np.float32(255.0)).permute(2, 0, 1)[None]
    h, w = t.shape[-2:]
    out = []
    for scale, overlap in zip(scales, overlaps):
        win = (math.ceil(h / scale), math.ceil(w / scale))
        stride = (math.ceil(win[0] * (1.0 - overlap)), math.ceil(win[1] * (1.0 - overlap)))
        pads = []
        for length, ws, st in ((h, win[0], stride[0]), (w, win[1], stride[1])):
            rem = (length - ws) % st
            p = st - rem if rem != 0 else 0
            pads.append((p // 2, math.ceil(p / 2)))
        x = torch.nn.functional.pad(t, (pads[1][0], pads[1][1], pads[0][0], pads[0][1]))
        x = x.unfold(2, win[0], stride[0]).unfold(3, win[1], stride[1])
        x = x.permute(0, 2, 3, 1, 4, 5).reshape(-1, 3, win[0], win[1])
        out.append(torch.nn.functional.interpolate(x, size=(size, size), mode="bilinear", align_corners=False))
    return torch.cat(out).permute(0, 2, 3, 1).numpy()


def test_scale_levels_are_chlorophylls_tiles_to_half_a_grey_level(quadrat32):
    levels = tuple(parse_level(t) for t in ("scale:1:0", "scale:2:0.5", "scale:5:0.25"))
    tiles, _, level_idx = quadrat_tiles(quadrat32, PreprocessConfig(levels=levels, input_size=48))
    want = chlorophyll_tiles(quadrat32, [1.0, 2.0, 5.0], [0.0, 0.5, 0.25], 48)
    assert np.bincount(level_idx).tolist() == [1, 9, 49]
    assert tiles.shape == want.shape
    assert np.abs(tiles.astype(np.float64) - want * 255.0).max() <= 0.5 + 1e-3


def test_wand_backend_is_imagemagicks_resize_then_native_crops(quadrat32):
    pytest.importorskip("wand.image")  # also skipped when the MagickWand system library is missing
    from wand.image import Image as WandImage

    img = quadrat32.crop((0, 0, 383, 257))
    cfg = PreprocessConfig(levels=(parse_level("resized:2"),), input_size=40, resize_backend="wand")
    tiles, _, _ = quadrat_tiles(img, cfg)
    # lib_dataset.rs: resize_image(W', H', Lanczos), crop_image(res, res, offset), then each tile's crop_image
    with WandImage.from_array(np.asarray(img)) as wi:
        wi.resize(119, 80, filter="lanczos")  # 80 * 383 / 257 = 119.2 -> 119 (f32, half away from zero)
        wi.crop(19, 0, width=80, height=80)
        big = np.array(wi)
    want = [big[40 * i:40 * (i + 1), 40 * j:40 * (j + 1)] for i in range(2) for j in range(2)]
    assert all(np.array_equal(a, b) for a, b in zip(tiles, want))
    pil, _, _ = quadrat_tiles(img, PreprocessConfig(levels=(parse_level("resized:2"),), input_size=40))
    diff = np.abs(pil.astype(int) - tiles.astype(int))
    assert 0 < diff.mean() < 0.5 and diff.max() <= 8  # PIL's Lanczos vs ImageMagick's: the residual is named
    assert "Wand" in cfg.describe()["resize_backend"]


def test_wand_backend_missing_names_the_install(quadrat32, monkeypatch):
    import builtins

    from agrieval.baselines.plantclef.preprocess import _ResizeUnavailable as ResizeUnavailable

    real_import = builtins.__import__

    def no_wand(name, *args, **kwargs):
        if name.startswith("wand"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_wand)
    with pytest.raises(ResizeUnavailable, match="pip install wand"):
        PreprocessConfig(levels=(parse_level("resized:1"),), input_size=40, resize_backend="wand").describe()


def test_centre_crop_is_torchvisions_center_crop_of_chlorophylls_size(quadrat32):
    import torchvision.transforms as T

    img = quadrat32.crop((0, 0, 383, 257))
    w, h = img.size
    cropped = T.CenterCrop((int(h * 0.9), int(w * 0.9)))(img)  # src/data.py ~84-89
    levels = (parse_level("scale:2:0.5"),)
    tiles, boxes, _ = quadrat_tiles(img, PreprocessConfig(levels=levels, input_size=48, centre_crop=0.1))
    want = chlorophyll_tiles(cropped, [2.0], [0.5], 48)
    assert np.abs(tiles.astype(np.float64) - want * 255.0).max() <= 0.5 + 1e-3
    with pytest.raises(ValueError, match="either a border crop or a centre crop"):
        PreprocessConfig(levels=levels, centre_crop=0.1, border=5)


@pytest.mark.parametrize("orientation", range(0, 9))
@pytest.mark.parametrize("mode, suffix", [("RGB", ".jpg"), ("L", ".jpg"), ("CMYK", ".jpg"), ("RGBA", ".png")])
def test_load_rgb_gives_the_pixels_of_exif_transpose_then_convert(tmp_path, orientation, mode, suffix):
    """load_rgb skips the copies exif_transpose and convert make when they change nothing; the pixels are
    those of the plain calls, on a real photo (scikit-learn's flower.jpg) with every EXIF orientation."""
    from pathlib import Path

    import sklearn
    from PIL import Image, ImageOps

    from agrieval.baselines.plantclef.preprocess import load_rgb

    photo = Image.open(Path(sklearn.__file__).parent / "datasets" / "images" / "flower.jpg").convert(mode)
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    path = tmp_path / f"q{suffix}"
    photo.save(path, exif=exif.tobytes())
    with Image.open(path) as im:
        want = ImageOps.exif_transpose(im).convert("RGB")
    got = load_rgb(path)
    assert got.mode == "RGB" and got.size == want.size and got.tobytes() == want.tobytes()


def test_scale_tiles_do_not_depend_on_torch_threads_and_equal_the_teams_call():
    """Chlorophyll Crew's float stretch: the same uint8 tiles on 1, 2 or 3 torch threads (DataLoader workers run
    one), equal to their (1, 3, H, W) interpolate on two threads (what the golden file recorded)."""
    import torch

    from agrieval.baselines.plantclef._synthetic import field_quadrat
    from agrieval.baselines.plantclef.geometry import parse_level
    from agrieval.baselines.plantclef.preprocess import PreprocessConfig, quadrat_tiles
    from agrieval.baselines.plantclef.preprocess import _bilinear_stretch as bilinear_stretch

    image = field_quadrat(1000, 750, seed=7)
    cfg = PreprocessConfig(levels=(parse_level("scale:2:0.5"), parse_level("scale:5:0.25")), centre_crop=0.1)
    before = torch.get_num_threads()
    try:
        got = {}
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            got[threads] = quadrat_tiles(image, cfg)[0]
        torch.set_num_threads(2)
        box = (13, 7, 413, 357)
        crop = np.asarray(image.crop(box), dtype=np.float32) / np.float32(255.0)
        theirs = torch.nn.functional.interpolate(torch.from_numpy(np.ascontiguousarray(crop.transpose(2, 0, 1)))[None],
                                                 size=(518, 518), mode="bilinear", align_corners=False)
        want = np.clip(np.rint(theirs[0].permute(1, 2, 0).numpy() * 255.0), 0, 255).astype(np.uint8)
        torch.set_num_threads(1)
        mine = bilinear_stretch(image, box, 518)
    finally:
        torch.set_num_threads(before)
    assert np.array_equal(got[1], got[2]) and np.array_equal(got[2], got[3])
    assert np.array_equal(mine, want)
