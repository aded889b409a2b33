"""Fixtures of the data_tools tests (helpers live in photos.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests.data_tools.photos import PHOTOS, jpeg_bytes, photo_variant, write


@pytest.fixture(scope="session")
def photos() -> dict[str, Image.Image]:
    return PHOTOS


@pytest.fixture
def small_pool(tmp_path: Path, photos) -> Path:
    """3 teams x 2 classes x 4 photos from the real pictures, a planted cross-team copy."""
    root = tmp_path / "pool"
    names = sorted(photos)
    for t, team in enumerate(["alpha", "beta", "gamma"]):
        for c, folder in enumerate(["Chênes", "frenes"]):
            for k in range(4):
                img = photo_variant(photos[names[(t + c + k) % len(names)]], 10 * t + 3 * c + k)
                write(root / team / folder / f"img{k}.jpg", jpeg_bytes(img))
    copy = (root / "alpha" / "Chênes" / "img0.jpg").read_bytes()
    write(root / "beta" / "Chênes" / "copy_of_alpha.jpg", copy)
    return root
