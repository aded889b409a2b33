"""Tile geometry: every pixel covered, nothing out of bounds, deterministic, counts as expected."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.baselines.plantclef.geometry import (
    Level,
    border_box,
    parse_border,
    parse_level,
    tile_boxes,
)
from agrieval.baselines.plantclef.geometry import (
    _expected_count as expected_count,
)
from agrieval.baselines.plantclef.geometry import (
    _level_boxes as level_boxes,
)

sizes = st.integers(min_value=1, max_value=300)


@st.composite
def levels(draw):
    kind = draw(st.sampled_from(["grid", "grid-rect", "window", "cover", "square", "floor", "full"]))
    if kind == "grid":
        return parse_level(f"grid:{draw(st.integers(1, 6))}")
    if kind == "grid-rect":
        return parse_level(f"grid:{draw(st.integers(1, 6))}x{draw(st.integers(1, 6))}")
    if kind in ("square", "floor"):
        return parse_level(f"{kind}:{draw(st.integers(1, 6))}")
    if kind == "window":
        size = draw(st.integers(1, 200))
        return parse_level(f"window:{size}:{draw(st.integers(1, size))}")
    if kind == "cover":
        return parse_level(f"cover:{draw(st.integers(1, 200))}")
    return parse_level("full")


def coverage(width, height, boxes):
    cover = np.zeros((height, width), dtype=np.int32)
    for x0, y0, x1, y1 in boxes:
        cover[y0:y1, x0:x1] += 1
    return cover


def _too_small(width, height, level):
    if level.kind == "grid":
        return level.n > width or level.n_rows > height
    if level.kind == "square":
        return level.n > min(width, height)
    return level.kind == "floor" and level.n > min(width, height)


@settings(max_examples=200, deadline=None)
@given(width=sizes, height=sizes, level=levels(), border=st.sampled_from(["snap", "pad", "centre"]))
def test_boxes_cover_every_pixel_and_stay_inside(width, height, level, border):
    if _too_small(width, height, level):
        with pytest.raises(ValueError, match="needs an image of at least"):
            level_boxes(width, height, level, border)
        return
    boxes = level_boxes(width, height, level, border)
    padded = border != "snap" and level.kind == "window"
    for x0, y0, x1, y1 in boxes:
        assert x0 < x1 and y0 < y1 and x0 < width and y0 < height and x1 > 0 and y1 > 0
        if padded:
            assert x1 - x0 == y1 - y0 == level.size  # always a full window, zero past the edge
            assert border == "centre" or (x0 >= 0 and y0 >= 0)  # pad: only past the right and bottom
        else:
            assert 0 <= x0 and 0 <= y0 and x1 <= width and y1 <= height
    clipped = [(max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)) for x0, y0, x1, y1 in boxes]
    cover = coverage(width, height, clipped)
    if level.kind == "square":
        side = min(width, height)
        ox, oy = (width - side) // 2, (height - side) // 2
        inner = cover[oy:oy + side, ox:ox + side]
        assert inner.min() == inner.max() == 1 and cover.sum() == side * side  # partition of the centred square
    elif level.kind == "floor":
        gw, gh = width // level.n, height // level.n
        assert cover[:gh * level.n, :gw * level.n].min() == 1 and cover.max() == 1
        assert cover.sum() == gw * gh * level.n ** 2  # the right and bottom remainder is dropped
    else:
        assert cover.min() >= 1
    if level.kind == "grid":
        assert cover.max() == 1  # an exact partition
    assert len(boxes) == expected_count(width, height, level)
    assert boxes == level_boxes(width, height, level, border)  # deterministic


@settings(max_examples=60, deadline=None)
@given(length=st.integers(2, 400), size=st.integers(1, 100), data=st.data())
def test_window_count_matches_an_independent_walk(length, size, data):
    stride = data.draw(st.integers(1, size))
    # Oracle: walk by stride until the window reaches the far edge.
    starts, x = [], 0
    while True:
        if x + size >= length:
            starts.append(max(0, length - size))
            break
        starts.append(x)
        x += stride
    starts = sorted(set(starts))
    boxes = level_boxes(length, 1, Level("window", size=size, stride=stride))
    assert [b[0] for b in boxes] == starts


def test_grid_4_gives_16_row_major_tiles_and_levels_concatenate():
    boxes = tile_boxes(400, 300, [parse_level("grid:4"), parse_level("full")])
    assert len(boxes) == 17
    assert boxes[0] == (0, (0, 0, 100, 75)) and boxes[1] == (0, (100, 0, 200, 75))
    assert boxes[-1] == (1, (0, 0, 400, 300))


def kornia_compute_padding(original, window, stride):
    """kornia.contrib.compute_padding for one axis, re-stated: (front, back) zero padding."""
    remainder = (original - window) % stride
    padding = stride - remainder if remainder != 0 else 0
    return padding // 2, padding - padding // 2


@settings(max_examples=100, deadline=None)
@given(length=st.integers(1, 2000), size=st.integers(1, 600), data=st.data())
def test_centre_border_is_kornias_compute_padding(length, size, data):
    stride = data.draw(st.integers(1, size))
    front, back = kornia_compute_padding(length, size, stride)
    # extract_tensor_patches on the padded axis: windows at 0, stride, ... while they fit, shifted by -front
    padded = length + front + back
    if padded < size:  # kornia gives no window; the kit pads the axis to exactly one, centred
        front, padded = (size - length) // 2, size
    want = [i * stride - front for i in range((padded - size) // stride + 1)]
    got = [b[0] for b in level_boxes(length, 1, Level("window", size=size, stride=stride), border="centre")]
    assert got == want


def test_floor_grid_is_column_major_like_dsgt():
    # DS@GT's _split_into_grid: for i over columns, for j over rows: left = i * (W // N), upper = j * (H // N).
    want = []
    for i in range(3):
        for j in range(3):
            want.append((i * (400 // 3), j * (301 // 3), (i + 1) * (400 // 3), (j + 1) * (301 // 3)))
    assert level_boxes(400, 301, parse_level("floor:3")) == want


def test_rectangular_grid_and_cover_on_a_3_2_image():
    assert level_boxes(600, 400, parse_level("grid:3x2")) == [
        (0, 0, 200, 200), (200, 0, 400, 200), (400, 0, 600, 200),
        (0, 200, 200, 400), (200, 200, 400, 400), (400, 200, 600, 400)]
    # cover:250 on 600x400: ceil(600/250) = 3 columns at 0, 175, 350; ceil(400/250) = 2 rows at 0, 150.
    boxes = level_boxes(600, 400, parse_level("cover:250"))
    assert sorted({b[0] for b in boxes}) == [0, 175, 350] and sorted({b[1] for b in boxes}) == [0, 150]
    assert all(b[2] - b[0] == 250 and b[3] - b[1] == 250 for b in boxes)


def test_square_levels_are_the_winners_centre_square():
    assert level_boxes(600, 400, parse_level("square:2")) == [
        (100, 0, 300, 200), (300, 0, 500, 200), (100, 200, 300, 400), (300, 200, 500, 400)]
    assert str(parse_level("grid:3x2")) == "grid:3x2" and str(parse_level("grid:4x4")) == "grid:4"


@pytest.mark.parametrize("text", ["grid", "grid:0", "window:10:11", "window:0", "tile:3", "grid:-1", "grid:2x0",
                                  "cover:0", "square:0"])
def test_bad_levels_are_rejected_with_the_text(text):
    with pytest.raises(ValueError, match="tiling level"):
        parse_level(text)


def test_border_pixels_and_percent():
    assert border_box(100, 50, *parse_border("10")) == (10, 10, 90, 40)
    assert border_box(200, 100, *parse_border("5%")) == (10, 5, 190, 95)
    with pytest.raises(ValueError, match="leaves nothing"):
        border_box(20, 20, *parse_border("10"))
    for bad in ("abc", "-3", "60%", "2.5"):
        with pytest.raises(ValueError, match="border crop"):
            parse_border(bad)


@settings(max_examples=80, deadline=None)
@given(width=st.integers(1, 3000), height=st.integers(1, 3000), scale=st.sampled_from([1.0, 2.0, 3.0, 4.0, 5.0]),
       overlap=st.sampled_from([0.0, 0.25, 0.5]))
def test_scale_windows_cover_the_image_with_centred_padding(width, height, scale, overlap):
    import math

    from agrieval.baselines.plantclef.geometry import _scale_windows as scale_windows

    boxes = scale_windows(width, height, scale, overlap)
    win_w, win_h = math.ceil(width / scale), math.ceil(height / scale)
    assert all(b[2] - b[0] == win_w and b[3] - b[1] == win_h for b in boxes)
    xs, ys = sorted({b[0] for b in boxes}), sorted({b[1] for b in boxes})
    assert len(boxes) == len(xs) * len(ys)
    for starts, length, win in ((xs, width, win_w), (ys, height, win_h)):
        pad_before, pad_after = -starts[0], starts[-1] + win - length
        assert pad_before >= 0 and pad_after >= 0 and pad_after - pad_before in (0, 1)  # centred, odd one after


@settings(max_examples=80, deadline=None)
@given(width=st.integers(2, 5000), height=st.integers(2, 5000), n=st.integers(1, 4))
def test_resized_boxes_stay_inside_and_follow_f32_rounding(width, height, n):
    import numpy as np

    from agrieval.baselines.plantclef.geometry import resized_geometry

    w2, h2, ox, oy = resized_geometry(width, height, n, 518)
    assert min(w2, h2) == n * 518 and ox == (w2 - n * 518) // 2 and oy == (h2 - n * 518) // 2
    long_, short = (width, height) if height < width else (height, width)
    exact = float(np.float32(n * 518) * np.float32(long_) / np.float32(short))
    assert max(w2, h2) == int(np.floor(exact + 0.5))
    for x0, y0, x1, y1 in level_boxes(width, height, parse_level(f"resized:{n}:518")):
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
