"""``dedup --preset official``: AI-4o demoted by default, ``--order walk`` against the notebook's own loop."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.dedup import dedup
from agrieval.data_tools.errors import DataError
from tests.data_tools.photos import jpeg_bytes, photo_variant, write
from tests.data_tools.test_dedup import rows

H = "8f8f8f8f0f0f0f0f"


def test_ai4o_is_demoted_by_default():
    ai, other = ("AI-4o/c/x.jpg", 7, 1, 1, "unknown", H), ("zeta/c/x.jpg", 7, 1, 1, "unknown", H)
    by = dedup(rows(ai, other), preset="official").set_index("path")
    assert by.loc["zeta/c/x.jpg", "keep"] and by.loc["AI-4o/c/x.jpg", "reason"] == "deprioritised team"
    by = dedup(rows(ai, other), preset="official", deprioritise=[]).set_index("path")
    assert by.loc["AI-4o/c/x.jpg", "keep"] and by.loc["zeta/c/x.jpg", "reason"] == "catalog order"
    # the paper preset has no such rule: alphabetical team order keeps AI-4o
    assert dedup(rows(ai, other)).set_index("path").loc["AI-4o/c/x.jpg", "keep"]


def notebook_keep(root) -> set[str]:
    """The notebooks' own statements: os.walk listing, duplicates sorted by hash, the cell's selection loop."""
    import imagehash
    from PIL import Image

    records = []
    for dirpath, _, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == "." or len(rel.split(os.sep)) < 2:
            continue
        for name in filenames:
            path = os.path.join(dirpath, name)
            with Image.open(path) as img:
                records.append({"image_path": os.path.relpath(path, root).replace(os.sep, "/"),
                                "team": rel.split(os.sep)[0], "image_hash": str(imagehash.phash(img)),
                                "size_mb": round(os.path.getsize(path) / (1024 * 1024), 2), "width": img.width,
                                "height": img.height, "device": "unknown"})
    df = pd.DataFrame(records)
    df = df[df.duplicated(subset=["image_hash"], keep=False)].sort_values(by="image_hash").reset_index(drop=True)
    keep_paths = set()
    for _, group in df.groupby("image_hash"):
        candidates = group[group["size_mb"] == group["size_mb"].max()]
        if len(candidates) > 1:
            candidates = candidates.assign(resolution=candidates["width"] * candidates["height"])
            candidates = candidates[candidates["resolution"] == candidates["resolution"].max()]
        if len(candidates) > 1:
            known = candidates[candidates["device"] != "unknown"]
            candidates = known if len(known) else candidates
        if len(candidates) > 1:
            non_ai4o = candidates[candidates["team"] != "AI-4o"]
            candidates = non_ai4o if len(non_ai4o) else candidates
        keep_paths.add(df.loc[candidates.index[0], "image_path"])
    return keep_paths


def test_order_walk_equals_the_notebook(tmp_path, photos):
    root = tmp_path / "pool"
    names = sorted(photos)
    blob = jpeg_bytes(photo_variant(photos[names[0]], 3))
    # byte copies tie on every criterion but the last; the walk decides
    for team in ("tb", "AI-4o", "ta", "tc"):
        for folder in ("chene", "frene"):
            write(root / team / folder / f"copy_{team}.jpg", blob)
    for k in range(3):
        write(root / "tb" / "chene" / f"other{k}.jpg", jpeg_bytes(photo_variant(photos[names[k + 1]], k)))
    cat = build_catalog(root, workers=1, progress=False)
    walk = dedup(cat, preset="official", order="walk")
    kept = set(walk.loc[walk["keep"] & (walk["group_size"] > 1), "path"])
    assert kept == notebook_keep(root)
    assert "walk order" in set(walk["reason"]) and "AI-4o" not in {p.split("/")[0] for p in kept}
    with pytest.raises(DataError) as info:
        dedup(cat, order="walk")
    assert info.value.code == "bad_option" and "official" in info.value.message


def test_notebook_order_follows_the_listing_not_the_names(tmp_path, monkeypatch, photos):
    """With a file system that lists in reverse, the walk tie-break keeps another copy than sorted order."""
    import agrieval.data_tools.walk as walk_mod

    root = tmp_path / "pool"
    blob = jpeg_bytes(photos[sorted(photos)[0]])
    for team in ("ta", "tb", "tc"):
        write(root / team / "chene" / "x.jpg", blob)
    real_walk = os.walk

    def reversed_walk(top, *args, **kwargs):
        for dirpath, dirnames, filenames in real_walk(top, *args, **kwargs):
            dirnames.sort(reverse=True)
            yield dirpath, dirnames, sorted(filenames, reverse=True)

    monkeypatch.setattr(walk_mod.os, "walk", reversed_walk)
    cat = build_catalog(root, workers=1, progress=False)
    by_walk = dedup(cat, preset="official", order="walk").set_index("path")
    by_sorted = dedup(cat, preset="official").set_index("path")
    assert by_sorted.loc["ta/chene/x.jpg", "keep"] and by_walk.loc["tc/chene/x.jpg", "keep"]
    assert by_walk.loc["ta/chene/x.jpg", "reason"] == "walk order"
    assert notebook_keep(root) == {"tc/chene/x.jpg"}  # the notebook's loop on the same listing
