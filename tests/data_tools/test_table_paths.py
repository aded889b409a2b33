"""Paths derived from table cells stay inside their folder (issue 22): resize, splits, dedup moves.

A catalog, dedup or split table is a file a person edits or receives. Each
test plants a hostile cell and a "victim" folder outside every folder the
command may write; the victim must stay byte-identical and nothing may appear,
change or vanish outside the output folder, with and without ``--overwrite``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.dedup import apply_drops, dedup
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.resize import resize_tree
from agrieval.data_tools.splits import make_splits
from agrieval.data_tools.tables import write_table
from agrieval.scoring.cli.main import cli
from agrieval.scoring.text.file_names import unescape_name
from agrieval.scoring.writing.policy import OutputPlan, OutputRefused
from agrieval.scoring.writing.table_paths import UnsafePath, inside
from tests.data_tools.photos import PHOTOS, jpeg_bytes, photo_variant, write

REFUSED = (UnsafePath, DataError, OutputRefused)


def snapshot(top: Path) -> dict[str, str]:
    """relative path -> sha256 of every file (links: their target text) under ``top``."""
    out = {}
    for dirpath, dirs, files in os.walk(top):
        for name in dirs + files:
            p = Path(dirpath) / name
            rel = p.relative_to(top).as_posix()
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            elif p.is_file():
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def changes(before: dict, after: dict) -> set[str]:
    return {k for k in set(before) | set(after) if before.get(k) != after.get(k)}


def outside(top: Path, *allowed: Path) -> dict[str, str]:
    """``snapshot(top)`` without the folders a command may write (its outputs, a private pool)."""
    keep = [a.relative_to(top).as_posix() for a in allowed]
    return {k: v for k, v in snapshot(top).items() if not any(k == a or k.startswith(a + "/") for a in keep)}


def scratch(top: Path) -> Path:
    """A new empty folder at ``top/work/<name>``: ``../../victim`` from it is the victim folder."""
    import tempfile

    return Path(tempfile.mkdtemp(dir=top / "work"))


def private_pool(top: Path, cat: pd.DataFrame) -> tuple[Path, pd.DataFrame]:
    """A copy of the pool at ``top/work/<name>`` (a move changes it) and its catalog."""
    pool = scratch(top)
    for r in cat.itertuples():
        write(pool / r.path, (Path(r.root) / r.path).read_bytes())
    return pool, build_catalog(pool, workers=1, progress=False)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """tmp/victim (must never change), tmp/work/pool (2 teams x 2 classes x 3 photos), its catalog."""
    top = tmp_path_factory.mktemp("world")
    victim = top / "victim"
    write(victim / "photo.jpg", jpeg_bytes(PHOTOS["coffee"]))
    write(victim / "other.csv", b"keep,me\n1,2\n")
    write(victim / "Chenes" / "x.jpg", jpeg_bytes(PHOTOS["china"]))
    write(victim / "tiny.jpg", jpeg_bytes(PHOTOS["china"].resize((8, 8))))  # smaller than every pool photo
    pool = top / "work" / "pool"
    names = sorted(PHOTOS)
    for t, team in enumerate(["alpha", "beta"]):
        for c, folder in enumerate(["Chenes", "frenes"]):
            for k in range(3):
                img = photo_variant(PHOTOS[names[(t + c + k) % len(names)]], 10 * t + 3 * c + k).resize((40, 30))
                write(pool / team / folder / f"img{k}.jpg", jpeg_bytes(img))
    write(pool / "beta" / "Chenes" / "dup.jpg", (pool / "alpha" / "Chenes" / "img0.jpg").read_bytes())
    cat = build_catalog(pool, workers=1, progress=False)
    return top, cat


def hostile(cat: pd.DataFrame, row: int, column: str, value: str) -> pd.DataFrame:
    """The catalog with one cell replaced; a ``path`` that names a file on disk gets its size and mtime,
    so that only the path rule (not the changed-source check) can stop it."""
    df = cat.copy()
    row = row % len(df)
    df.at[row, column] = value
    if column == "path":
        try:
            st_ = (Path(unescape_name(df.at[row, "root"])) / unescape_name(value)).stat()
            df.at[row, "bytes"], df.at[row, "mtime_ns"] = st_.st_size, st_.st_mtime_ns
        except (OSError, ValueError):
            pass
    return df


FRAGMENTS = ["..", ".", "victim", "photo", "other", "Chenes", "x", "", "/", "\\", "\x00", "%00", "%2e%2e", "C:",
             "c:\\", "//srv/share", "\\\\srv\\share", "~", "%25", " ", "...", "%2F", "%FF"]
values = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=7).map("".join),
    st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=7).map("/".join),
    st.text(max_size=12),
    st.sampled_from(["<VICTIM>", "<VICTIM>/photo", "<VICTIM>/photo.jpg"]),
)
PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _value(top: Path, v: str) -> str:
    return v.replace("<VICTIM>", str(top / "victim"))


# --- the one function -------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["..", ".", "", "/etc", "a/../../b", "a//b", "a/", "C:x", "c:\\x", "\\\\srv\\s",
                                   "\\x", "a\x00b", "a%00b", "//srv/share", "t/" + "n" * 256])
def test_inside_refuses_escapes(tmp_path, value):
    with pytest.raises(UnsafePath) as err:
        inside(tmp_path, value, where="t.csv line 2, column 'path'", nested=(0,))
    assert "t.csv line 2" in err.value.message and err.value.exit_code == 1


def test_inside_refuses_a_separator_in_a_single_name_and_a_link_out(tmp_path):
    with pytest.raises(UnsafePath):
        inside(tmp_path, "a/b", where="row 1")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "team").symlink_to(tmp_path)  # a link inside OUT that leads out of it
    with pytest.raises(UnsafePath) as err:
        inside(tmp_path / "out", "team", "c", "x.jpg", where="row 1")
    assert "outside" in err.value.message
    assert inside(tmp_path / "out", "t", "c", "h", suffix=".jpg", where="r") == tmp_path / "out" / "t" / "c" / "h.jpg"
    assert inside(tmp_path, "a/b%25c", where="r", nested=(0,)) == tmp_path / "a" / "b%c"


@pytest.mark.skipif(os.altsep is not None, reason="POSIX: a backslash is an ordinary character of a name")
def test_a_backslash_inside_a_posix_name_is_a_name(tmp_path):
    assert inside(tmp_path, "t/c/a\\..\\b.jpg", where="r", nested=(0,)) == tmp_path / "t" / "c" / "a\\..\\b.jpg"


# --- the three cases, through the command line ------------------------------------------------

def _cli(*args):
    return CliRunner().invoke(cli, ["data", *map(str, args)])


@pytest.mark.parametrize("overwrite", [False, True])
def test_resize_never_writes_outside_out(world, tmp_path, overwrite):
    top, cat = world
    df = hostile(cat, 0, "team", "../../victim")
    df.at[0, "class"], df.at[0, "phash"] = ".", "photo"  # OUT/../../victim/./photo.jpg
    table = tmp_path / "cat.csv"
    write_table(df, table)
    out = scratch(top)
    before = outside(top, out)
    r = _cli("resize", table, out, "--workers", "1", "--no-progress", *(["--overwrite"] if overwrite else []))
    assert r.exit_code == 1, r.output
    assert "unsafe_path" in r.output and "line 2" in r.output
    assert outside(top, out) == before and snapshot(out) == {}


@pytest.mark.parametrize("overwrite", [False, True])
def test_splits_never_replace_a_csv_outside_the_output(world, tmp_path, overwrite):
    top, cat = world
    df = cat.copy()
    df.loc[df["team"] == "beta", "team"] = "../../../victim/other"  # -o/toto/../../../victim/other.csv
    table = tmp_path / "cat.csv"
    write_table(df, table)
    out = scratch(top)
    before = outside(top, out)
    r = _cli("splits", table, "--protocol", "both", "-o", out, *(["--overwrite"] if overwrite else []))
    assert r.exit_code == 1, r.output
    assert "unsafe_path" in r.output
    assert outside(top, out) == before and snapshot(out) == {}  # nothing outside, no partial output inside


def test_dedup_move_never_takes_a_file_from_outside_the_pool(world, tmp_path):
    top, cat = world
    pool, mine = private_pool(top, cat)
    df = hostile(mine, 0, "path", "../../victim/tiny.jpg")  # the smallest copy of its group: dropped
    df.at[0, "phash"] = mine.loc[mine["path"] == "alpha/Chenes/img0.jpg", "phash"].iloc[0]
    table = tmp_path / "cat.csv"
    write_table(df, table)
    moved = scratch(top)
    before = outside(top, moved)
    r = _cli("dedup", table, "-o", tmp_path / "d.csv", "--move-to", moved, "--apply")
    assert r.exit_code == 1, r.output
    assert "unsafe_path" in r.output
    assert outside(top, moved) == before and snapshot(moved) == {}


# --- properties over generated rows ---------------------------------------------------------------

@PROPERTY
@given(row=st.integers(0, 100), column=st.sampled_from(["team", "class", "phash", "path"]), value=values,
       overwrite=st.booleans(), again=st.booleans())
@example(row=0, column="team", value="../../victim", overwrite=True, again=True)
def test_property_resize_outputs_stay_in_out(world, tmp_path_factory, row, column, value, overwrite, again):
    top, cat = world
    df = hostile(cat, row, column, _value(top, value))
    out = scratch(top)
    if again:  # an earlier clean run, so that --overwrite has files to replace
        resize_tree(cat, out, workers=1, progress=False)
    before, inside_before = outside(top, out), snapshot(out)
    try:
        resize_tree(df, out, workers=1, progress=False, plan=OutputPlan(overwrite=overwrite))
    except REFUSED:
        assert snapshot(out) == inside_before  # refused before anything was written
    assert outside(top, out) == before


@PROPERTY
@given(row=st.integers(0, 100), column=st.sampled_from(["team", "class", "path"]), value=values,
       overwrite=st.booleans())
@example(row=0, column="team", value="../../../victim/other", overwrite=True)
def test_property_splits_stay_in_output(world, tmp_path_factory, row, column, value, overwrite):
    top, cat = world
    df = hostile(cat, row, column, _value(top, value))
    out = scratch(top)
    before = outside(top, out)
    try:
        make_splits(df, "toto", out, plan=OutputPlan(overwrite=overwrite))
    except REFUSED:
        assert snapshot(out) == {}  # nothing half-written
    assert outside(top, out) == before


@PROPERTY
@given(row=st.integers(0, 100), value=values)
@example(row=0, value="../../victim/tiny.jpg")
def test_property_dedup_moves_only_pool_files_into_the_target(world, tmp_path_factory, row, value):
    top, cat = world
    pool, mine = private_pool(top, cat)
    df = hostile(mine, row, "path", _value(top, value))
    df.at[row % len(df), "phash"] = mine.loc[mine["path"] == "alpha/Chenes/img0.jpg", "phash"].iloc[0]
    moved = scratch(top)
    before, pool_before = outside(top, pool, moved), snapshot(pool)
    try:
        apply_drops(dedup(df), moved, how="move", dry_run=False)
    except REFUSED:
        assert snapshot(pool) == pool_before and snapshot(moved) == {}
    assert outside(top, pool, moved) == before
    gone = {k: v for k, v in pool_before.items() if k not in snapshot(pool)}
    assert {k: v for k, v in snapshot(moved).items() if k in gone} == gone  # what left the pool is in the target
