"""Recompression, resize filters and tile crops on a real photo (skimage's astronaut)."""

import io

import numpy as np
import pytest
from PIL import Image, JpegImagePlugin
from skimage import data

from baselines.plantclef.geometry import parse_level
from baselines.plantclef.preprocess import SUBSAMPLING, PreprocessConfig, quadrat_tiles, recompress_jpeg


@pytest.fixture(scope="module")
def astronaut():
    return Image.fromarray(data.astronaut())


def _sampling_of(image, quality, subsampling):
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality, subsampling=SUBSAMPLING[subsampling])
    buf.seek(0)
    with Image.open(buf) as im:
        return JpegImagePlugin.get_sampling(im)


@pytest.mark.parametrize("name,code", [("4:4:4", 0), ("4:2:2", 1), ("4:2:0", 2)])
def test_subsampling_is_what_the_encoded_jpeg_says(astronaut, name, code):
    assert _sampling_of(astronaut, 90, name) == code


def test_recompression_422_changes_the_pixels_and_differs_from_444(astronaut):
    out422 = np.asarray(recompress_jpeg(astronaut, 90, "4:2:2"), dtype=np.int16)
    out444 = np.asarray(recompress_jpeg(astronaut, 90, "4:4:4"), dtype=np.int16)
    src = np.asarray(astronaut, dtype=np.int16)
    assert out422.shape == src.shape
    assert np.abs(out422 - src).mean() > 0.5
    assert np.abs(out422 - out444).mean() > 0.1
    # Chroma halved horizontally: 4:2:2 loses more colour detail than 4:4:4.
    assert np.abs(out422 - src).mean() > np.abs(out444 - src).mean()


def test_tiles_shape_boxes_and_filters(astronaut):
    cfg = PreprocessConfig(levels=(parse_level("grid:2"), parse_level("full")), input_size=64, border=16)
    tiles, boxes, levels = quadrat_tiles(astronaut, cfg)
    assert tiles.shape == (5, 64, 64, 3) and tiles.dtype == np.uint8
    assert boxes[0].tolist() == [16, 16, 256, 256] and boxes[-1].tolist() == [16, 16, 496, 496]
    assert levels.tolist() == [0, 0, 0, 0, 1]
    # The first tile equals a plain crop + resize of the same box (oracle: PIL directly).
    ref = np.asarray(astronaut.crop((16, 16, 256, 256)).resize((64, 64), Image.Resampling.LANCZOS), dtype=np.int16)
    assert np.abs(tiles[0].astype(np.int16) - ref).mean() < 2.0
    bicubic, _, _ = quadrat_tiles(astronaut, PreprocessConfig(levels=cfg.levels, input_size=64, border=16,
                                                              resize_filter="bicubic"))
    assert not np.array_equal(bicubic, tiles)


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="resize filter"):
        PreprocessConfig(resize_filter="nearest")
    with pytest.raises(ValueError, match="subsampling"):
        PreprocessConfig(subsampling="4:1:1")
    with pytest.raises(ValueError, match="quality"):
        PreprocessConfig(jpeg_quality=0)
