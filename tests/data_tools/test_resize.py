"""The clean tree: square 336 JPEGs at <team>/<class>/<phash>.jpg, never an overwrite."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.dedup import dedup
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.resize import _square_resize as square_resize
from agrieval.data_tools.resize import resize_tree
from agrieval.scoring.writing.policy import OutputRefused
from tests.data_tools.photos import tree_digest


def test_resize_kept_files(small_pool, tmp_path):
    before = tree_digest(small_pool)
    d = dedup(build_catalog(small_pool, workers=1, progress=False))
    out = tmp_path / "clean"
    m = resize_tree(d, out, workers=1, progress=False)
    assert tree_digest(small_pool) == before
    assert len(m) == int(d["keep"].sum()) and (m["status"] == "written").all()
    kept = d[d["keep"]]
    assert set(m["output_path"]) == {f"{t}/{c}/{h}.jpg" for t, c, h in zip(kept["team"], kept["class"], kept["phash"])}
    for rel in m["output_path"]:
        with Image.open(out / rel) as img:
            assert img.size == (336, 336) and img.mode == "RGB" and img.format == "JPEG"
    assert (out / "resize_manifest.csv").is_file()
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jpg"))
    assert files == sorted(m["output_path"])


def test_square_resize_geometry_matches_recipe(photos):
    img = photos["astronaut"].crop((0, 0, 200, 120))  # landscape 200x120
    got = square_resize(img, 64)
    # independent recipe: shorter side 120 -> 64, longer 200 -> round(200*64/120) = 107, centre crop
    ref = img.resize((107, 64), Image.Resampling.BICUBIC).crop((21, 0, 85, 64))
    assert np.array_equal(np.asarray(got), np.asarray(ref))
    tiny = photos["coffee"].resize((30, 20))
    assert square_resize(tiny, 64).size == (64, 64)  # upscaled
    square = photos["coffee"].resize((100, 100))
    assert np.array_equal(np.asarray(square_resize(square, 50)),
                          np.asarray(square.resize((50, 50), Image.Resampling.BICUBIC)))


def test_collision_names_both_sources(small_pool, tmp_path):
    cat = build_catalog(small_pool, workers=1, progress=False)
    # without dedup, the cross-team copy is fine (other team) -- plant a same-team copy
    (small_pool / "alpha" / "Chênes" / "again.jpg").write_bytes((small_pool / "alpha/Chênes/img0.jpg").read_bytes())
    cat = build_catalog(small_pool, workers=1, progress=False)
    with pytest.raises(DataError) as err:
        resize_tree(cat, tmp_path / "clean", workers=1, progress=False)
    assert err.value.code == "name_collision"
    assert "again.jpg" in err.value.message and "img0.jpg" in err.value.message
    assert not (tmp_path / "clean").exists()


def test_existing_output_is_never_overwritten_and_resume(small_pool, tmp_path):
    d = dedup(build_catalog(small_pool, workers=1, progress=False))
    out = tmp_path / "clean"
    m = resize_tree(d, out, workers=1, progress=False)
    victim = out / m["output_path"].iloc[0]
    with pytest.raises(OutputRefused) as err:
        resize_tree(d, out, workers=1, progress=False)
    assert err.value.code == "output_exists"
    victim.unlink()
    again = resize_tree(d, out, resume=True, workers=1, progress=False)
    assert (again["status"] == "reused").sum() == len(m) - 1 and (again["status"] == "written").sum() == 1
    victim.write_bytes(b"someone else's file")
    with pytest.raises(OutputRefused):
        resize_tree(d, out, resume=True, workers=1, progress=False)
    assert victim.read_bytes() == b"someone else's file"


def test_changed_source_and_unknown_class_are_errors(small_pool, tmp_path):
    cat = build_catalog(small_pool, workers=1, progress=False)
    (small_pool / "gamma" / "frenes" / "img0.jpg").write_bytes(b"changed")
    with pytest.raises(DataError) as err:
        resize_tree(cat, tmp_path / "a", workers=1, progress=False)
    assert err.value.code == "source_changed"
    cat2 = cat.copy()
    cat2.loc[0, "class"] = ""
    with pytest.raises(DataError) as err:
        resize_tree(cat2, tmp_path / "b", workers=1, progress=False)
    assert err.value.code == "unknown_class"
