"""``resize --preset official``: the public notebook's pixels bit for bit, on awkward sizes, against an
independent integer re-statement of the notebook's rule."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.dedup import dedup
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.resize import _square_resize as square_resize
from agrieval.data_tools.resize import resize_tree

AWKWARD = [(1201, 899), (1000, 339), (2709, 2738), (420, 380), (899, 1201), (339, 1000), (2738, 2709), (380, 420),
           (4032, 3024), (3024, 4032), (1599, 1066), (1080, 1920), (337, 1000), (1000, 337), (335, 500), (1279, 721),
           (2049, 1537), (641, 479), (500, 333), (333, 500), (1000, 999), (999, 1000), (300, 200), (200, 301)]


def noise(w: int, h: int, seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), "RGB")


def half_even(numerator: int) -> int:
    """round(numerator / 2) with ties to even, in integers."""
    q, r = divmod(numerator, 2)
    return q if r == 0 or q % 2 == 0 else q + 1


def notebook_rule(img: Image.Image, size: int) -> Image.Image:
    """The notebook's rule re-stated in integers: long side floor(long * size / short), then each crop
    coordinate (long' - size) / 2 and (long' - size) / 2 + size rounded half to even, as Pillow does."""
    w, h = img.size
    if w == h:
        return img.resize((size, size), Image.Resampling.BICUBIC)
    if w < h:
        nh = h * size // w
        tmp = img.resize((size, nh), Image.Resampling.BICUBIC)
        top, bottom = half_even(nh - size), half_even(nh - size + 2 * size)
        box = (0, top, size, bottom)
    else:
        nw = w * size // h
        tmp = img.resize((nw, size), Image.Resampling.BICUBIC)
        box = (half_even(nw - size), 0, half_even(nw - size + 2 * size), size)
    return tmp.crop(box)


@pytest.mark.parametrize("w, h", AWKWARD)
def test_official_equals_the_notebook_rule(w, h):
    img = noise(w, h, w * 7919 + h)
    got = square_resize(img, 336, "official")
    assert got.size == (336, 336)
    assert np.array_equal(np.asarray(got), np.asarray(notebook_rule(img, 336)))


def geometry(w: int, h: int, size: int, rule: str) -> tuple[int, int]:
    """(scaled long side, crop offset) of a non-square image, in integers."""
    short, long = min(w, h), max(w, h)
    if rule == "paper":  # round(long * size / short), offset (long' - size) // 2
        scaled = max(size, (2 * long * size + short) // (2 * short))
        return scaled, (scaled - size) // 2
    scaled = long * size // short
    return scaled, half_even(scaled - size)


def test_paper_rule_differs_where_its_geometry_differs():
    differ = {(w, h) for w, h in AWKWARD
              if not np.array_equal(np.asarray(square_resize(noise(w, h, 1), 336, "paper")),
                                    np.asarray(square_resize(noise(w, h, 1), 336, "official")))}
    expected = {(w, h) for w, h in AWKWARD
                if w != h and geometry(w, h, 336, "paper") != geometry(w, h, 336, "official")}
    assert differ == expected
    assert (1201, 899) in differ and (420, 380) in differ  # 448.67 -> 449 vs 448; 371.37 -> 371, offset 17.5 -> 18
    assert 0 < len(differ) < len(AWKWARD)
    import agrieval.data_tools.resize as R

    assert "different pixels" in R.__doc__ and "half" in R.__doc__
    with pytest.raises(DataError):
        square_resize(noise(10, 12, 0), 8, "nearest")


def test_resize_tree_official_preset(small_pool, tmp_path):
    d = dedup(build_catalog(small_pool, workers=1, progress=False))
    out = tmp_path / "clean"
    m = resize_tree(d, out, workers=1, progress=False, rule="official")
    assert (m["status"] == "written").all()
    row = d[d["keep"]].iloc[0]
    with Image.open(small_pool / row["path"]) as src:
        expected = np.asarray(notebook_rule(src.convert("RGB"), 336))
    with Image.open(out / f"{row['team']}/{row['class']}/{row['phash']}.jpg") as img:
        # JPEG q95 round trip of the same pixels: close, not equal; the exact pixels are tested above
        assert img.size == (336, 336)
        ref = Image.fromarray(expected)
        import io

        buf = io.BytesIO()
        ref.save(buf, "JPEG", quality=95)
        assert np.array_equal(np.asarray(img), np.asarray(Image.open(buf)))
