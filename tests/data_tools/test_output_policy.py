"""Issue 12, data loss: no `agrieval data` command writes over source data, over its own input, over an
existing output without --overwrite, or two plans onto one file; outputs get the user's umask."""

from __future__ import annotations

import os
import stat
import unicodedata
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.dedup import dedup
from agrieval.data_tools.tables import write_table
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.atomic import write_text
from tests.data_tools.photos import jpeg_bytes, tree_digest, write

# The policy's own names are imported inside the tests that use them, so that the command-line tests
# also run (and fail for what they check) against a tree without the policy.


def run(*args, code=0):
    result = CliRunner().invoke(cli, ["data", *map(str, args)])
    assert result.exit_code == code, result.output + str(result.exception)
    return result.output


@pytest.fixture
def catalogued(small_pool, tmp_path):
    cat = tmp_path / "cat.csv"
    run("catalog", small_pool, "-o", cat, "--workers", "1", "--no-progress")
    return small_pool, cat


# -- item 2: output options never replace a source photo, nor the file the command reads ------------------

def test_catalog_output_onto_a_catalogued_photo_is_refused(small_pool):
    photo = small_pool / "alpha" / "Chênes" / "img0.jpg"
    before = tree_digest(small_pool)
    out = run("catalog", small_pool, "-o", photo, "--workers", "1", "--no-progress", code=2)
    assert "error [output_in_source]" in out and str(photo) in out
    out = run("catalog", small_pool, "-o", small_pool / "catalog.csv", "--workers", "1", "--no-progress", code=2)
    assert "error [output_in_source]" in out
    run("catalog", small_pool, "-o", photo, "--workers", "1", "--no-progress", "--overwrite", code=2)  # also then
    assert tree_digest(small_pool) == before


@pytest.mark.parametrize("command", ["dedup", "resize-manifest"])
def test_outputs_onto_source_photos_or_the_input_are_refused(catalogued, tmp_path, command):
    pool, cat = catalogued
    photo = pool / "beta" / "frenes" / "img1.jpg"
    before, cat_bytes = tree_digest(pool), cat.read_bytes()

    def attempt(target, *extra):
        if command == "dedup":
            return run("dedup", cat, "-o", target, *extra, code=2)
        return run("resize", cat, tmp_path / "clean", "--manifest", target, "--workers", "1", "--no-progress",
                   *extra, code=2)

    assert "error [output_in_source]" in attempt(photo)
    assert "error [output_is_input]" in attempt(cat)
    assert "error [output_in_source]" in attempt(photo, "--overwrite")
    assert "error [output_is_input]" in attempt(cat, "--overwrite")
    link = tmp_path / "link_to_catalog.csv"
    link.symlink_to(cat)
    assert "error [output_is_input]" in attempt(link, "--overwrite")
    assert tree_digest(pool) == before and cat.read_bytes() == cat_bytes
    assert not (tmp_path / "clean").exists()  # refused before anything was written


# -- item 3: an existing output is refused unless --overwrite, in every command ---------------------------

def test_existing_outputs_need_overwrite(catalogued, tmp_path):
    pool, cat = catalogued
    assert "error [output_exists]" in run("catalog", pool, "-o", cat, "--workers", "1", "--no-progress", code=2)
    run("catalog", pool, "-o", cat, "--workers", "1", "--no-progress", "--overwrite")
    run("catalog", pool, "-o", cat, "--workers", "1", "--no-progress", "--resume")  # its own earlier output
    (tmp_path / "dedup.csv").write_text("mine\n")
    assert "error [output_exists]" in run("dedup", cat, "-o", tmp_path / "dedup.csv", code=2)
    assert (tmp_path / "dedup.csv").read_text() == "mine\n"
    run("dedup", cat, "-o", tmp_path / "dedup.csv", "--overwrite")

    clean = tmp_path / "clean"
    write(clean / "resize_manifest.csv", b"someone's manifest\n")
    out = run("resize", tmp_path / "dedup.csv", clean, "--workers", "1", "--no-progress", code=2)
    assert "error [output_exists]" in out and "resize_manifest.csv" in out
    assert (clean / "resize_manifest.csv").read_bytes() == b"someone's manifest\n"
    run("resize", tmp_path / "dedup.csv", clean, "--workers", "1", "--no-progress", "--overwrite")
    manifest = pd.read_csv(clean / "resize_manifest.csv")
    assert (manifest["status"] == "written").all()

    splits = tmp_path / "splits"
    run("splits", tmp_path / "dedup.csv", "--protocol", "toto", "-o", splits)
    fold = splits / "toto" / "alpha.csv"
    fold.write_text("edited by hand\n")
    out = run("splits", tmp_path / "dedup.csv", "--protocol", "toto", "-o", splits, code=2)
    assert "error [output_exists]" in out and fold.read_text() == "edited by hand\n"
    run("splits", tmp_path / "dedup.csv", "--protocol", "toto", "-o", splits, "--overwrite")
    assert fold.read_text().startswith("image_id,path,team,class,split")


# -- item 4: resize OUT inside the catalogued tree ----------------------------------------------------------

@pytest.mark.parametrize("inside", [".", "alpha", "derived/clean"])
def test_resize_into_the_source_tree_is_refused(catalogued, tmp_path, inside):
    pool, cat = catalogued
    before = tree_digest(pool)
    out = run("resize", cat, pool / inside, "--workers", "1", "--no-progress", code=2)
    assert "error [output_in_source]" in out
    assert tree_digest(pool) == before
    link = tmp_path / "looks_outside"
    link.symlink_to(pool / "beta", target_is_directory=True)  # a link into the pool is inside it
    assert "error [output_in_source]" in run("resize", cat, link, "--workers", "1", "--no-progress", code=2)
    assert tree_digest(pool) == before


def test_splits_and_move_to_inside_the_pool_are_refused(catalogued, tmp_path):
    pool, cat = catalogued
    run("dedup", cat, "-o", tmp_path / "d.csv")
    clean_cat = tmp_path / "d.csv"
    assert "error [output_in_source]" in run("splits", clean_cat, "--protocol", "toto", "-o", pool / "splits",
                                            code=2)
    out = run("dedup", cat, "-o", tmp_path / "d2.csv", "--move-to", pool / "dropped", "--apply", code=2)
    assert "error [output_in_source]" in out and not (tmp_path / "d2.csv").exists()


# -- item 1: two dropped files onto one destination ---------------------------------------------------------

def _two_root_catalog(tmp_path: Path, photos) -> Path:
    """Two pools with the same relative paths; in each, img0.jpg is a copy of keep.jpg (dropped by dedup)."""
    frames = []
    for name in ("pool_a", "pool_b"):
        root = tmp_path / name
        data = jpeg_bytes(photos["coffee" if name == "pool_a" else "chelsea"])
        write(root / "alpha" / "frenes" / "keep.jpg", data)
        write(root / "alpha" / "frenes" / "zz_copy.jpg", data)
        frames.append(build_catalog(root, workers=1, progress=False))
    both = tmp_path / "both.csv"
    write_table(pd.concat(frames, ignore_index=True), both)
    return both


def test_move_to_refuses_two_drops_with_one_destination(tmp_path, photos):
    both = _two_root_catalog(tmp_path, photos)
    dropped = tmp_path / "dropped"
    out = run("dedup", both, "-o", tmp_path / "d.csv", "--move-to", dropped, "--apply", code=2)
    assert "error [output_collision]" in out
    assert "pool_a" in out and "pool_b" in out  # names both sources
    for name in ("pool_a", "pool_b"):
        assert (tmp_path / name / "alpha" / "frenes" / "zz_copy.jpg").is_file()  # nothing moved, nothing lost
    assert not dropped.exists() and not (tmp_path / "d.csv").exists()


def test_move_never_replaces_a_file_that_appears_after_planning(small_pool, tmp_path):
    from agrieval.data_tools.dedup import execute_drops, plan_drops
    from agrieval.scoring.writing.policy import OutputRefused

    df = dedup(build_catalog(small_pool, workers=1, progress=False))
    pairs = plan_drops(df, tmp_path / "moved", how="move")
    (src, dst), = pairs
    write(Path(dst), b"arrived meanwhile")
    with pytest.raises(OutputRefused) as err:
        execute_drops(pairs, how="move")
    assert err.value.code == "output_exists"
    assert Path(dst).read_bytes() == b"arrived meanwhile" and Path(src).is_file()


_letter = st.sampled_from(list("aAeEiIßsSkK") + ["\u00e9", "e\u0301", "\u00c9", "E\u0301", "\u212a", "\u00df"])
_names = st.lists(_letter, min_size=1, max_size=6).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=_names, b=_names)
def test_destinations_are_compared_case_folded_and_nfc_normalised(tmp_path, a, b):
    """A family of names: two drops collide exactly when a case-insensitive, normalising volume would merge them."""
    from agrieval.data_tools.dedup import plan_drops
    from agrieval.scoring.writing.policy import OutputRefused

    df = pd.DataFrame({"root": [str(tmp_path / "r1"), str(tmp_path / "r2")],
                       "path": [f"t/c/{a}.jpg", f"t/c/{b}.jpg"], "keep": [False, False]})
    def caseless(x):  # Unicode canonical caseless match (D145), the oracle
        return unicodedata.normalize("NFD", unicodedata.normalize("NFD", x).casefold())

    same = caseless(a) == caseless(b)
    try:
        pairs = plan_drops(df, tmp_path / "out", how="link")
    except OutputRefused as exc:
        assert exc.code == "output_collision" and same
    else:
        assert not same and len(pairs) == 2


# -- the policy itself ---------------------------------------------------------------------------------------

def test_policy_codes_and_rules(tmp_path):
    from agrieval.scoring.writing.policy import CODES, OutputPlan, OutputRefused

    src = tmp_path / "pool"
    write(src / "t" / "c" / "a.jpg", b"x")
    reads = write(tmp_path / "in.csv", b"id\n")
    plan = OutputPlan(sources=[src], inputs=[reads])
    with pytest.raises(OutputRefused) as err:
        plan.claim(src / "t" / "c" / "a.jpg")
    assert err.value.code == "output_in_source" and err.value.code in CODES
    with pytest.raises(OutputRefused) as err:
        plan.claim(reads)
    assert err.value.code == "output_is_input"
    hard = tmp_path / "hard.csv"
    os.link(reads, hard)
    with pytest.raises(OutputRefused) as err:
        plan.claim(hard)
    assert err.value.code == "output_is_input"
    plan.claim(tmp_path / "Out.csv")
    with pytest.raises(OutputRefused) as err:
        plan.claim(tmp_path / "out.CSV")
    assert err.value.code == "output_collision"
    with pytest.raises(OutputRefused) as err:
        OutputPlan(overwrite=True).claim(tmp_path)  # a folder is never replaced by a file
    assert err.value.code == "output_exists"
    assert "--overwrite" in CODES["output_exists"]
    for message in CODES.values():
        assert "\n" not in message


# -- umask ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002, 0o077])
def test_atomic_outputs_get_the_users_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        write_text(tmp_path / "a.txt", "x")
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o666 & ~mask == stat.S_IMODE(plain.stat().st_mode)


def test_resized_tree_is_readable_by_the_group(catalogued, tmp_path):
    pool, cat = catalogued
    old = os.umask(0o022)
    try:
        run("resize", cat, tmp_path / "clean", "--workers", "1", "--no-progress")
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "clean").rglob("*") if p.is_file()]
    assert files and {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o644}
