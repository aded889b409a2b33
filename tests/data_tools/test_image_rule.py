"""The catalog's and the resize's photos go through the image rule (``data_tools/untrusted_images.decode_image``):
the file is opened by the opening rule (a FIFO cannot hang the open, a device or a folder is refused, a file
past ``MAX_IMAGE_BYTES`` is refused unread) and Pillow reads the file object it opened; a bomb is refused on its
header. Each is an ``image_unreadable`` row naming the file, never a decode, never a hang."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageFile

from agrieval.data_tools._untrusted_images import MAX_IMAGE_BYTES, ImageUnreadable
from agrieval.data_tools.probe import exact_hash_task, probe_file
from agrieval.data_tools.resize import _resize_task
from tests.hostile_files import NOT_REGULAR, at_most, make_not_regular


def _png(side: int) -> bytes:
    buf = io.BytesIO()  # a 1-bit PNG of side x side, compressed to almost nothing: a decompression bomb
    Image.new("1", (side, side)).save(buf, "PNG", optimize=True)
    return buf.getvalue()


def _shape(tmp_path: Path, shape: str) -> Path:
    path = tmp_path / "photo.png"
    if shape in NOT_REGULAR:
        make_not_regular(path, shape)
    elif shape == "over the cap":
        with open(path, "wb") as fh:  # sparse: no disk is spent on it
            fh.truncate(MAX_IMAGE_BYTES + 1)
    elif shape == "bomb past the pixel cap":  # 9,000^2 = 81 Mpixel: past the catalog's 64 Mpixel, not a JPEG
        path.write_bytes(_png(9000))
    else:  # 14,000^2 = 196 Mpixel: past twice Pillow's limit, refused by Pillow's own header check
        path.write_bytes(_png(14000))
    return path


SAYS = {"fifo": "is a FIFO, not a regular file; it was not read (not_regular_file)",
        "device": "is a device, not a regular file; it was not read (not_regular_file)",
        "folder": "is a folder, not a regular file; it was not read (not_regular_file)",
        "over the cap": "bytes such a file can be; it was not read (file_too_large)",
        "bomb past the pixel cap": "refused before decoding: 9000x9000 = 81000000 pixels is above the cap",
        "bomb past Pillow's limit": "refused as a decompression bomb"}
READERS = {
    "catalog row": lambda p: probe_file(str(p)).error,
    "fast catalog row": lambda p: probe_file(str(p), True).error,
    "resize row": lambda p: _resize_task((str(p), str(p.parent / "out.jpg"), 32, False, "paper", 64_000_000,
                                          False))[2],
}


@pytest.fixture
def no_decode(monkeypatch):
    decoded = []
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: decoded.append(self) or None)
    return decoded


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("shape", sorted(SAYS))
def test_each_image_path_refuses_each_hostile_file_by_name_unread(tmp_path, reader, shape, no_decode):
    path = _shape(tmp_path, shape)
    with at_most(10, "the image"):
        error = READERS[reader](path)
    assert error.startswith(f"image_unreadable: {path}: ") and SAYS[shape] in error, error
    assert not no_decode and not (tmp_path / "out.jpg").exists()


def test_the_fast_mode_check_refuses_a_bomb_by_name(tmp_path, no_decode):
    path = _shape(tmp_path, "bomb past the pixel cap")
    with pytest.raises(ImageUnreadable) as err:
        exact_hash_task(str(path))
    assert err.value.code == "image_unreadable" and str(path) in err.value.message and not no_decode


def test_a_photo_under_the_caps_is_still_read(tmp_path, photos):
    """The rule refuses only what it should: the same photo as a regular file is hashed and resized."""
    path = tmp_path / "photo.jpg"
    photos["coffee"].save(path, "JPEG")
    assert probe_file(str(path)).readable
    assert _resize_task((str(path), str(tmp_path / "out.jpg"), 32, False, "paper", 64_000_000, False)) == (32, 32, "")
