"""The tiling drawing shows overlapping windows apart, how many tiles see each part, and the padding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from agrieval.baselines.plantclef._draw import PAD_FILL, PAD_HATCH, layout, render
from agrieval.baselines.plantclef.geometry import parse_level
from agrieval.baselines.plantclef.preprocess import PreprocessConfig, policy_box, quadrat_boxes


def _cfg(levels, border="snap", policy="crop"):
    return PreprocessConfig(levels=tuple(parse_level(t) for t in levels), input_size=518, tile_policy=policy,
                            border_mode=border, border=0, border_percent=False)


_levels = st.one_of(st.builds(lambda n: f"grid:{n}", st.integers(1, 5)),
                    st.builds(lambda n: f"square:{n}", st.integers(1, 4)),
                    st.builds(lambda size, k: f"window:{size}:{max(1, size * k // 4)}", st.integers(80, 400),
                              st.integers(1, 4)))


@settings(max_examples=60, deadline=None)
@given(st.integers(200, 900), st.integers(200, 900), st.lists(_levels, min_size=1, max_size=2),
       st.sampled_from(["snap", "pad", "centre"]))
def test_tiles_that_overlap_or_touch_never_share_an_edge_line(w, h, levels, border):
    lay = layout(w, h, _cfg(levels, border), max_side=100_000)  # 1:1, so boxes are the tiles' own
    for i, (k, a) in enumerate(lay.tiles):
        for j in range(i + 1, len(lay.tiles)):
            kk, b = lay.tiles[j]
            if k != kk:
                continue
            for axis in (0, 1):
                meets = a[axis] <= b[axis + 2] and b[axis] <= a[axis + 2]
                if meets and (a[axis], a[axis + 2]) != (b[axis], b[axis + 2]):
                    assert lay.classes[i][axis] != lay.classes[j][axis], (levels, a, b)


@settings(max_examples=40, deadline=None)
@given(st.integers(200, 700), st.integers(200, 700), st.lists(_levels, min_size=1, max_size=2),
       st.sampled_from(["snap", "pad"]), st.sampled_from(["crop", "stretch"]))
def test_coverage_counts_the_tiles_that_see_each_pixel(w, h, levels, border, policy):
    cfg = _cfg(levels, border, policy)
    lay = layout(w, h, cfg, max_side=100_000)
    ox, oy = lay.offset
    rng = np.random.default_rng(w * 1000 + h)
    for x, y in zip(rng.integers(0, w, 30), rng.integers(0, h, 30)):
        seen = sum(1 for _, box in quadrat_boxes(w, h, cfg)
                   if (lambda b: b[0] <= x < b[2] and b[1] <= y < b[3])(policy_box(box, policy)))
        assert lay.coverage[y + oy, x + ox] == seen
        assert lay.unseen[y + oy, x + ox] == (seen == 0)


def test_the_organisers_windows_overlap_and_their_padding_is_hatched():
    image = Image.new("RGB", (600, 400), (30, 120, 30))
    cfg = _cfg(["window:518:259"], border="pad")
    lay = layout(600, 400, cfg, max_side=100_000)
    assert lay.coverage.max() == 2 and lay.classes == [(0, 0), (1, 0)]
    # windows at x 0 and 259, 518 wide: zero padding past the right (777 > 600) and the bottom (518 > 400)
    assert (600, 0, 777, 518) in lay.padding and (0, 400, 518, 518) in lay.padding
    canvas, summary = render(image, cfg, max_side=100_000)
    a = np.asarray(canvas)
    strip = a[420:510, 620:760].reshape(-1, 3)  # inside the padding, away from the outlines
    colours = {tuple(c) for c in strip}
    assert colours <= {PAD_FILL, PAD_HATCH} and PAD_HATCH in colours and PAD_FILL in colours
    # the overlap (seen by both windows) is lighter than the part only the first window sees
    left, both = a[200, 100].astype(int), a[200, 400].astype(int)
    assert both.sum() > left.sum()
    assert canvas.height > 518 and "2 tiles of 518x518 px" in summary


def test_a_grid_has_no_overlap_key_and_no_padding_key():
    lay = layout(600, 400, _cfg(["grid:3"]), max_side=100_000)
    assert lay.coverage.max() == 1 and not lay.padding
    from agrieval.baselines.plantclef._draw import _keys

    texts = " ".join(t for _, t in _keys(lay))
    assert "overlap" not in texts.replace("overlapping or touching", "") and "padding" not in texts
    assert "darkened" in texts  # crop: a 200x133 tile loses its sides


@pytest.mark.parametrize("levels", [["window:518:259"], ["grid:4"], ["square:3"], ["window:518:259", "grid:2"]])
def test_every_key_line_fits_the_drawing(levels):
    from agrieval.baselines.plantclef._draw import _font, _keys, _wrap

    image = Image.new("RGB", (1536, 1024), (30, 120, 30))
    lay = layout(1536, 1024, _cfg(levels, "pad"), max_side=720)
    font = _font(max(11, round(max(lay.size) / 55)))
    for swatches, text in _keys(lay):
        room = lay.size[0] - 6 - len(swatches) * (font.size + 6) - 10
        assert all(font.getlength(line) <= room for line in _wrap(text, font, room))
    canvas, _ = render(image, _cfg(levels, "pad"), max_side=720)
    assert canvas.width == lay.size[0]
