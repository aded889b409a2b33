"""One file at a time: hashes equal imagehash's, EXIF device, broken files become rows."""

from __future__ import annotations

import io

import imagehash
import pytest
from PIL import Image

from agrieval.data_tools.probe import probe_file
from tests.data_tools.photos import jpeg_bytes, write


@pytest.mark.parametrize("fmt,suffix", [("JPEG", ".jpg"), ("PNG", ".png"), ("BMP", ".bmp"), ("TIFF", ".tif"),
                                        ("WEBP", ".webp"), ("HEIF", ".heic")])
def test_exact_hash_equals_imagehash_on_real_photos(tmp_path, photos, fmt, suffix):
    for name, img in photos.items():
        buf = io.BytesIO()
        img.save(buf, fmt)
        path = write(tmp_path / f"{name}{suffix}", buf.getvalue())
        got = probe_file(str(path))
        assert got.readable, got.error
        assert got.phash == str(imagehash.phash(Image.open(path)))
        assert len(got.phash) == 16
        assert (got.width, got.height) == img.size
        assert got.format == fmt


def test_hash_ignores_exif_orientation_like_the_study(tmp_path, photos):
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 on display; the study hashed stored pixels
    buf = io.BytesIO()
    photos["chelsea"].save(buf, "JPEG", exif=exif.tobytes())
    path = write(tmp_path / "rotated.jpg", buf.getvalue())
    assert probe_file(str(path)).phash == str(imagehash.phash(Image.open(path)))


def test_device_from_exif_make_and_model(tmp_path, photos):
    path = write(tmp_path / "a.jpg", jpeg_bytes(photos["coffee"], device=("  Apple\x00", "iPhone 12 ")))
    assert probe_file(str(path)).device == "Apple iPhone 12"
    only_model = write(tmp_path / "b.jpg", jpeg_bytes(photos["coffee"], device=("", "SM-A515F")))
    assert probe_file(str(only_model)).device == "SM-A515F"
    plain = write(tmp_path / "c.jpg", jpeg_bytes(photos["coffee"]))
    assert probe_file(str(plain)).device == "unknown"


def test_truncated_and_empty_files_are_rows_not_crashes(tmp_path, photos):
    data = jpeg_bytes(photos["astronaut"])
    truncated = write(tmp_path / "t.jpg", data[: len(data) // 2])
    empty = write(tmp_path / "e.jpg", b"")
    text = write(tmp_path / "x.jpg", b"this is not an image")
    r = probe_file(str(truncated))
    assert not r.readable and "truncated" in r.error and r.phash == ""
    assert r.format == "JPEG" and r.width == photos["astronaut"].width  # header was readable
    r = probe_file(str(empty))
    assert not r.readable and "0 bytes" in r.error
    r = probe_file(str(text))
    assert not r.readable and "UnidentifiedImageError" in r.error


def test_fast_hash_is_close_to_exact_on_large_jpeg(tmp_path, photos):
    big = photos["china"].resize((1600, 1200), Image.Resampling.BICUBIC)
    path = write(tmp_path / "big.jpg", jpeg_bytes(big))
    exact, fast = probe_file(str(path)), probe_file(str(path), fast=True)
    assert (fast.width, fast.height) == (1600, 1200)  # original size, not the draft's
    assert imagehash.hex_to_hash(exact.phash) - imagehash.hex_to_hash(fast.phash) <= 6
