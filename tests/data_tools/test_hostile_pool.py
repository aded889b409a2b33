"""Issue 12, items 8 and 12: a hostile pool (links, loops, unlistable folders, FIFOs, names that are not
UTF-8, huge images) is catalogued without a traceback; every entry is a row or a listed skip."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from agrieval.data_tools.catalog import build_catalog, read_catalog, summarize_catalog
from agrieval.data_tools.probe import probe_file
from agrieval.data_tools.resize import resize_tree
from agrieval.data_tools.tables import write_table
from agrieval.scoring.cli.main import cli
from tests.data_tools.photos import jpeg_bytes, write

try:  # new in issue 12; imported softly so that the other tests run (and fail) on a tree without them
    from agrieval.data_tools.catalog import source_file
    from agrieval.data_tools.probe import bound_pixels
    from agrieval.scoring.text.file_names import display_name, escape_name, unescape_name
except ImportError:  # pragma: no cover
    source_file = bound_pixels = display_name = unescape_name = None

    def escape_name(name):
        return name

BAD = b"\xff\xfe"  # not UTF-8


def run(*args, code=0):
    result = CliRunner().invoke(cli, ["data", *map(os.fsdecode, map(os.fspath, args))])
    assert result.exit_code == code, result.output + repr(result.exception)
    return result.output


def all_entries(root: Path) -> set[str]:
    """Every directory entry under root (links not followed), relative, as the catalog names them."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for name in dirnames + filenames:
            found.add(escape_name(name if rel == "." else f"{rel}/{name}"))
    return found


@pytest.fixture
def hostile(tmp_path, photos) -> Path:
    root = tmp_path / "pool"
    photo = jpeg_bytes(photos["coffee"])
    write(root / "alpha" / "frenes" / "ok.jpg", photo)
    write(root / "alpha" / "frenes" / ("caf" + os.fsdecode(b"\xe9") + ".jpg"), jpeg_bytes(photos["chelsea"]))
    write(root / "alpha" / os.fsdecode(b"ch" + BAD + b"ne") / "x.jpg", jpeg_bytes(photos["china"]))
    write(root / "alpha" / "frenes" / "100%.jpg", jpeg_bytes(photos["flower"]))
    (root / "alpha" / "frenes" / "loop.jpg").symlink_to("loop.jpg")
    (root / "alpha" / "frenes" / "gone.jpg").symlink_to("nowhere.jpg")
    outside = write(tmp_path / "elsewhere" / "secret.jpg", jpeg_bytes(photos["astronaut"]))
    (root / "alpha" / "frenes" / "outside.jpg").symlink_to(outside)
    (root / "alpha" / "frenes" / "inside.jpg").symlink_to(root / "alpha" / "frenes" / "ok.jpg")
    (root / "beta").mkdir()
    (root / "beta" / "linked_team").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (root / "beta" / "loopdir").symlink_to(root / "beta", target_is_directory=True)
    write(root / "beta" / "locked" / "y.jpg", photo)
    os.mkfifo(root / "beta" / "pipe.jpg")
    write(root / "beta" / ".hidden.jpg", photo)
    return root


@pytest.fixture
def locked_folder(monkeypatch):
    """``beta/locked`` cannot be listed (as with chmod 000 for a user who is not root)."""
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith(os.path.join("beta", "locked")):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_every_entry_is_a_row_or_a_listed_skip(hostile, tmp_path, locked_folder):
    df = build_catalog(hostile, tmp_path / "cat.csv", workers=1, progress=False)
    skipped = dict(df.attrs["skipped"])
    rows = set(df["path"])
    covered = rows | set(skipped)
    # each entry is a row, a skip, or a folder whose entries are (a folder holding rows is not itself listed)
    for entry in all_entries(hostile):
        assert entry in covered or any(c.startswith(entry + "/") for c in covered), entry
    assert "loop" in skipped["alpha/frenes/loop.jpg"]
    assert "dangling" in skipped["alpha/frenes/gone.jpg"]
    assert "outside the pool" in skipped["alpha/frenes/outside.jpg"]
    assert "inside the pool" in skipped["alpha/frenes/inside.jpg"]
    assert "outside the pool" in skipped["beta/linked_team"] and "loop" not in skipped["beta/linked_team"]
    assert "inside the pool" in skipped["beta/loopdir"]
    assert "cannot be listed" in skipped["beta/locked"]
    assert "not a regular file" in skipped["beta/pipe.jpg"]
    assert "hidden" in skipped["beta/.hidden.jpg"]
    assert not any("secret" in p for p in rows)  # nothing from outside the tree
    text = summarize_catalog(df)
    text.encode("utf-8")  # printable whatever the names
    assert "skipped: beta/locked" in text


def test_names_that_are_not_utf8_survive_csv_and_parquet(hostile, tmp_path, locked_folder):
    raw = {"alpha/frenes/caf" + os.fsdecode(b"\xe9") + ".jpg", "alpha/" + os.fsdecode(b"ch" + BAD + b"ne") + "/x.jpg",
           "alpha/frenes/100%.jpg"}
    out = run("catalog", hostile, "-o", tmp_path / "cat.csv", "--workers", "1", "--no-progress")
    out.encode("utf-8")
    assert "ch%FF%FEne" in out  # the unknown class folder, named printably
    for suffix in ("csv", "parquet"):
        df = build_catalog(hostile, tmp_path / f"c.{suffix}", workers=1, progress=False)
        back = read_catalog(tmp_path / f"c.{suffix}")
        assert list(back["path"]) == list(df["path"])
        on_disk = {p: source_file(r, p) for r, p in zip(back["root"], back["path"])}
        assert raw <= {os.path.relpath(f, hostile) for f in on_disk.values()}  # the exact names, back
        assert all(f.is_file() for f in on_disk.values())
    text = (tmp_path / "c.csv").read_bytes().decode("utf-8")  # valid UTF-8 on disk
    assert "caf%E9.jpg" in text and "ch%FF%FEne" in text and "100%25.jpg" in text
    # later stages act on the exact files: resize reads the sources through the escaped catalog
    cat = read_catalog(tmp_path / "c.csv").assign(**{"class": "frene"})
    m = resize_tree(cat, tmp_path / "clean", workers=1, progress=False, size=32)
    assert (m["status"] == "written").all() and escape_name(sorted(raw)[0]) in set(m["source_path"])
    assert (tmp_path / "clean" / "alpha" / "frene").is_dir()


_byte_names = st.binary(min_size=1, max_size=12).filter(
    lambda b: b"/" not in b and b"\x00" not in b and not b.startswith(b".")).map(lambda b: b + b".jpg")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_byte_names, min_size=1, max_size=4, unique=True))
def test_any_byte_name_round_trips_through_the_catalog(photos, names):
    data = jpeg_bytes(photos["coffee"].resize((32, 32)))
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(os.fsencode(tmp), b"pool", b"t", b"c")
        os.makedirs(folder)
        for n in names:
            with open(os.path.join(folder, n), "wb") as fh:
                fh.write(data)
        df = build_catalog(os.path.join(tmp, "pool"), os.path.join(tmp, "c.parquet"), workers=1, progress=False)
        back = read_catalog(os.path.join(tmp, "c.parquet"))
        write_table(back, os.path.join(tmp, "c.csv"))
        again = read_catalog(os.path.join(tmp, "c.csv"))
        assert list(back["path"]) == list(df["path"]) == list(again["path"])
        found = sorted(os.fsencode(source_file(r, p)) for r, p in zip(again["root"], again["path"]))
        assert found == sorted(os.path.join(folder, n) for n in names)  # byte for byte


@given(st.lists(st.characters(exclude_categories=("Cs",)) | st.sampled_from(
    [chr(c) for c in range(0xDC80, 0xDD00)] + ["%", "%2", "%25", "%FF", "%e9"])).map("".join))
def test_escape_is_lossless_and_always_utf8(name):
    text = escape_name(name)
    text.encode("utf-8")
    display_name(name).encode("utf-8")
    assert unescape_name(text) == name


# -- item 12: decoded pixels per worker are bounded ---------------------------------------------------------

def _image_bytes(fmt: str, size: tuple[int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (90, 140, 60)).save(buf, fmt)
    return buf.getvalue()


def test_a_jpeg_above_the_cap_is_decoded_reduced(tmp_path):
    path = write(tmp_path / "big.jpg", _image_bytes("JPEG", (1600, 1200)))
    with Image.open(path) as img:
        assert bound_pixels(img, 200_000)
        img.load()
        assert img.size[0] * img.size[1] <= 200_000 and img.size == (400, 300)  # 1/4: the first scale that fits
    r = probe_file(str(path), max_pixels=200_000)
    assert r.readable and r.phash_mode == "reduced" and (r.width, r.height) == (1600, 1200)
    assert probe_file(str(path)).phash_mode == ""  # under the default cap: exact


def test_catalog_and_resize_respect_max_pixels(tmp_path):
    root = tmp_path / "pool"
    write(root / "t1" / "frene" / "big.png", _image_bytes("PNG", (900, 900)))
    write(root / "t1" / "frene" / "big.jpg", _image_bytes("JPEG", (1200, 900)))
    write(root / "t2" / "frene" / "small.png", _image_bytes("PNG", (100, 100)))
    out = run("catalog", root, "-o", tmp_path / "cat.csv", "--workers", "1", "--no-progress",
              "--max-pixels", "300000")
    df = read_catalog(tmp_path / "cat.csv").set_index("path")
    assert not df.loc["t1/frene/big.png", "readable"] and "--max-pixels" in df.loc["t1/frene/big.png", "error"]
    assert df.loc["t1/frene/big.jpg", "readable"] and df.loc["t1/frene/big.jpg", "phash_mode"] == "reduced"
    assert df.loc["t2/frene/small.png", "phash_mode"] == "exact"
    assert "unreadable: t1/frene/big.png" in out
    # resize with a cap: the JPEG is reduced first, a PNG above the cap is an error row, not a crash
    cat = read_catalog(tmp_path / "cat.csv").assign(readable=True)
    # the unreadable row has no pHash; an empty cell never names an output (it would be ".jpg")
    cat.loc[cat["phash"] == "", "phash"] = "f" * 16
    m = resize_tree(cat, tmp_path / "clean", size=64, workers=1, progress=False, max_pixels=300_000).set_index(
        "source_path")
    assert m.loc["t1/frene/big.jpg", "status"] == "written" and m.loc["t2/frene/small.png", "status"] == "written"
    assert m.loc["t1/frene/big.png", "status"] == "error" and "--max-pixels" in m.loc["t1/frene/big.png", "error"]
    # resume keeps the reduced rows
    again = build_catalog(root, tmp_path / "cat.csv", workers=1, progress=False, resume=True, max_pixels=300_000)
    assert again.attrs["reused"] == 3


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_max_pixels_bounds_the_real_decode(tmp_path, fmt):
    """The cap is enforced before the decoder runs: no image buffer PIL allocates exceeds it (a PNG's EXIF
    read would decode it whole, so the check comes first)."""
    path = write(tmp_path / f"huge.{fmt.lower()}", _image_bytes(fmt, (4000, 3000)))
    seen = [0]
    real_new = Image.core.new

    def spy(mode, size, *a):
        seen.append(size[0] * size[1])
        return real_new(mode, size, *a)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Image.core, "new", spy)
        r = probe_file(str(path), max_pixels=1_000_000)
    assert max(seen) <= 1_000_000
    assert r.readable == (fmt == "JPEG") and (r.width, r.height) == (4000, 3000)


def test_classes_on_the_hostile_pool_lists_without_a_traceback(hostile, locked_folder):
    result = CliRunner().invoke(cli, ["data", "classes", str(hostile)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), repr(result.exception)
    out = result.output
    out.encode("utf-8")
    assert "alpha/ch%FF%FEne -> UNKNOWN" in out and "alpha/frenes -> frene" in out
    assert "linked_team" not in out and "loopdir" not in out  # links are not followed


def test_a_very_deep_tree_is_walked_without_recursion(tmp_path, photos):
    root = tmp_path / "pool"
    write(root / "t" / "frene" / "ok.jpg", jpeg_bytes(photos["coffee"]))
    top = deep = str(root / "t" / "frene")
    try:
        for _ in range(1200):  # deeper than Python's recursion limit; os.makedirs itself recurses
            deep = os.path.join(deep, "d")
            os.mkdir(deep)
        write(Path(deep) / "lost.jpg", b"x")
        df = build_catalog(root, workers=1, progress=False)
        assert list(df["path"]) == ["t/frene/ok.jpg"]
        (path, reason), = df.attrs["skipped"]
        assert path.endswith("/d/lost.jpg") and "depth 1203" in reason
    finally:  # shutil.rmtree recurses too: leave tmp_path easy to clean, whatever happened
        if os.path.exists(os.path.join(deep, "lost.jpg")):
            os.unlink(os.path.join(deep, "lost.jpg"))
        while deep != top:
            os.rmdir(deep)
            deep = os.path.dirname(deep)


def test_a_changed_source_with_a_name_that_is_not_utf8_is_a_printable_error(tmp_path, photos):
    root = tmp_path / "pool"
    bad = os.path.join(os.fsencode(root), b"t", b"frene", b"x\xff.jpg")
    os.makedirs(os.path.dirname(bad))
    with open(bad, "wb") as fh:
        fh.write(jpeg_bytes(photos["coffee"]))
    run("catalog", root, "-o", tmp_path / "c.csv", "--workers", "1", "--no-progress")
    with open(bad, "ab") as fh:
        fh.write(b"changed")
    out = run("resize", tmp_path / "c.csv", tmp_path / "clean", "--no-progress", code=1)
    assert "error [source_changed]" in out and "x%FF.jpg" in out
