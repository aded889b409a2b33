"""Tile geometry: every pixel covered, nothing out of bounds, deterministic, counts as expected."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.plantclef.geometry import (Level, border_box, expected_count, level_boxes, parse_border,
                                          parse_level, tile_boxes)

sizes = st.integers(min_value=1, max_value=300)


@st.composite
def levels(draw):
    kind = draw(st.sampled_from(["grid", "window", "full"]))
    if kind == "grid":
        return parse_level(f"grid:{draw(st.integers(1, 6))}")
    if kind == "window":
        size = draw(st.integers(1, 200))
        return parse_level(f"window:{size}:{draw(st.integers(1, size))}")
    return parse_level("full")


def coverage(width, height, boxes):
    cover = np.zeros((height, width), dtype=np.int32)
    for x0, y0, x1, y1 in boxes:
        cover[y0:y1, x0:x1] += 1
    return cover


@settings(max_examples=150, deadline=None)
@given(width=sizes, height=sizes, level=levels())
def test_boxes_cover_every_pixel_and_stay_inside(width, height, level):
    if level.kind == "grid" and level.n > min(width, height):
        with pytest.raises(ValueError, match="needs an image of at least"):
            level_boxes(width, height, level)
        return
    boxes = level_boxes(width, height, level)
    for x0, y0, x1, y1 in boxes:
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
    cover = coverage(width, height, boxes)
    assert cover.min() >= 1
    if level.kind == "grid":
        assert cover.max() == 1  # an exact partition
    assert len(boxes) == expected_count(width, height, level)
    assert boxes == level_boxes(width, height, level)  # deterministic


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


@pytest.mark.parametrize("text", ["grid", "grid:0", "window:10:11", "window:0", "tile:3", "grid:-1"])
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
