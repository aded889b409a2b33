"""Issue 43, item 1: the ids of `agrieval data splits` reveal nothing, and its id key stays private.

The attack is the one that read 70 of 71 held-out labels off two folds of the demo pool when an id was
``team/sha256(path)[:16]``: hash every guess of a pool path (teams x class folders, from the shipped class map's
classes and aliases in the spellings teams use x sub-categories x camera file names x extensions) and look the
ids up. Run against the demo pool's test ids, it must recover no more labels than chance (a right guess for 1 in
6 images, plus four binomial standard deviations); run against the same images under the old scheme, it must
recover most of them, so that the test can fail.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import stat
from itertools import product
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from agrieval.data_tools._keyed_ids import ID_PREFIX, keyed_id, load_or_create_key, read_key
from agrieval.data_tools.catalog import build_catalog
from agrieval.data_tools.classes import load_class_map
from agrieval.data_tools.dedup import dedup
from agrieval.data_tools.demo_pool import make_demo_pool
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.splits import make_splits
from agrieval.scoring.cli.main import cli

SUBFOLDERS = ("", "Feuilles", "Tronc")
NAME_PATTERNS = ("IMG_{:04d}", "DSC{:05d}", "DSC_{:04d}", "{:04d}", "IMG_20240315_{:06d}")
NUMBERS = (*range(0, 41), *range(9000, 9004))
EXTENSIONS = ("jpg", "JPG", "jpeg", "JPEG", "png", "PNG", "heic", "HEIC")


def spellings(key: str) -> set[str]:
    """How a team may have written the folder of ``key`` (``faux_poivrier``): separators, case, plural,
    the French accent of chêne/frêne."""
    words = key.split("_")
    out = set()
    for joiner, plural, accent in product(("_", " ", "-"), ("", "s"), (False, True)):
        text = joiner.join(words) + plural
        if accent:
            text = text.replace("ene", "êne")
        out |= {text, text.lower(), text.upper(), text[:1].upper() + text[1:],
                joiner.join(w.capitalize() for w in text.split(joiner))}
    return out


def dictionary(teams: list[str]) -> dict[str, str]:
    """``sha256(path)[:16] -> class`` for every guessed path."""
    cmap = load_class_map()
    folders = {}
    for key in [*cmap.classes, *cmap.aliases]:
        for folder in spellings(key):
            cls = cmap.normalise(folder)
            if cls is not None:
                folders[folder] = cls
    names = [pattern.format(n) + "." + ext for pattern, n, ext in product(NAME_PATTERNS, NUMBERS, EXTENSIONS)]
    names = [n.encode("utf-8") for n in names]
    table = {}
    for team, (folder, cls), sub in product(teams, sorted(folders.items()), SUBFOLDERS):
        prefix = hashlib.sha256("/".join(p for p in (team, folder, sub) if p).encode("utf-8") + b"/")
        for name in names:
            h = prefix.copy()
            h.update(name)
            table[h.hexdigest()[:16]] = cls
    return table


def attack(ids: list[str], table: dict[str, str]) -> tuple[dict[str, str], int]:
    """The attacker's label for each id (a dictionary hit, else a fixed class: chance), and the hit count."""
    guesses, hits = {}, 0
    for image_id in ids:
        tail = image_id.rsplit("/", 1)[-1].removeprefix(ID_PREFIX)
        hit = table.get(tail)
        hits += hit is not None
        guesses[image_id] = hit or "caroubier"
    return guesses, hits


def old_id(team: str, path: str) -> str:
    """The scheme before issue 43: an unkeyed hash of a guessable path."""
    return f"{team}/{hashlib.sha256(path.encode('utf-8')).hexdigest()[:16]}"


def chance_bound(p: float, n: int) -> float:
    return p + 4 * math.sqrt(p * (1 - p) / n)


@pytest.fixture(scope="module")
def demo_catalog(tmp_path_factory) -> tuple[pd.DataFrame, Path]:
    top = tmp_path_factory.mktemp("attack")
    pool = make_demo_pool(top / "pool", teams=4, per_class=6, size=32, seed=0)
    catalog = build_catalog(pool, top / "catalog.csv", workers=1, progress=False)
    return dedup(catalog), top


def test_dictionary_attack_recovers_no_more_than_chance(demo_catalog, tmp_path):
    kept, _ = demo_catalog
    make_splits(kept, "loto", tmp_path / "splits", id_key=tmp_path / "pool.id-key")
    tests = pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False).query("split == 'test'")
                       for f in sorted((tmp_path / "splits" / "loto").glob("*.csv"))])
    n, k = len(tests), len(load_class_map().classes)
    assert n > 100 and tests["image_id"].is_unique
    table = dictionary(sorted(set(tests["team"])))
    assert len(table) > 1_000_000  # the size of the dictionary: a real attack, not a token one

    guesses, hits = attack(list(tests["image_id"]), table)
    right = sum(guesses[i] == c for i, c in zip(tests["image_id"], tests["class"]))
    assert hits == 0
    assert right / n <= chance_bound(1 / k, n)

    # The same attack on the same images under the old scheme reads nearly every label: the test can fail.
    old = [old_id(t, p) for t, p in zip(tests["team"], tests["path"])]
    guesses, hits = attack(old, table)
    right = sum(guesses[i] == c for i, c in zip(old, tests["class"]))
    assert hits >= 0.9 * n and right >= 0.9 * n


def test_ids_carry_neither_class_nor_team_and_are_keyed(demo_catalog, tmp_path):
    kept, _ = demo_catalog
    key = bytes(range(32))
    m = pd.read_csv(make_splits(kept, "toto", tmp_path / "s", id_key=key)[0], dtype=str, keep_default_na=False)
    assert list(m["image_id"]) == [keyed_id(key, p) for p in m["path"]]
    for image_id, team, cls in zip(m["image_id"], m["team"], m["class"]):
        assert image_id.startswith(ID_PREFIX) and len(image_id) == len(ID_PREFIX) + 16
        assert team not in image_id and cls not in image_id and "/" not in image_id
        expected = hmac.new(key, m.loc[m["image_id"] == image_id, "path"].iloc[0].encode(), "sha256").hexdigest()
        assert image_id == ID_PREFIX + expected[:16]  # HMAC-SHA256, checked with the standard library
    other = pd.read_csv(make_splits(kept, "toto", tmp_path / "t", id_key=bytes(32))[0], dtype=str)
    assert not set(other["image_id"]) & set(m["image_id"])  # another key: other ids


def _run(*args):
    return CliRunner().invoke(cli, ["data", *map(str, args)])


def test_the_key_is_made_once_private_reused_and_never_published(demo_catalog, tmp_path):
    kept, top = demo_catalog
    catalog = tmp_path / "clean.csv"
    kept.to_csv(catalog, index=False)
    res = _run("splits", catalog, "--protocol", "toto", "-o", tmp_path / "a")
    assert res.exit_code == 0, res.output
    key_file = tmp_path / "clean.csv.id-key"  # the default: beside the catalog
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = read_key(key_file)
    assert len(key) == 32
    # a rerun into another folder reuses the key: the same ids
    assert _run("splits", catalog, "--protocol", "toto", "-o", tmp_path / "b").exit_code == 0
    for fold in sorted((tmp_path / "a" / "toto").glob("*.csv")):
        assert fold.read_bytes() == (tmp_path / "b" / "toto" / fold.name).read_bytes()
    # the key is in no file the command wrote (neither as hex nor as bytes)
    for path in sorted((tmp_path / "a").rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            assert key.hex().encode() not in data and key not in data, path
    # --id-key chooses the file; a new key gives other ids
    assert _run("splits", catalog, "--protocol", "toto", "-o", tmp_path / "c",
                "--id-key", tmp_path / "keys" / "other.key").exit_code == 0
    a = pd.read_csv(tmp_path / "a" / "toto" / "team01.csv", dtype=str)
    c = pd.read_csv(tmp_path / "c" / "toto" / "team01.csv", dtype=str)
    assert list(a["path"]) != [] and not set(a["image_id"]) & set(c["image_id"])
    assert stat.S_IMODE((tmp_path / "keys" / "other.key").stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="file modes")
@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620, 0o644])
def test_a_key_others_may_read_is_refused(tmp_path, mode):
    key_file = tmp_path / "pool.id-key"
    load_or_create_key(key_file)
    key_file.chmod(mode)
    with pytest.raises(DataError) as err:
        load_or_create_key(key_file)
    assert err.value.code == "id_key_exposed" and "chmod 600" in err.value.message


@pytest.mark.parametrize("text", ["", "00" * 31 + "\n", "zz" * 32 + "\n", "00" * 32 + "\n" + "11" * 32 + "\n"])
def test_a_file_that_is_not_a_key_is_refused(tmp_path, text):
    key_file = tmp_path / "pool.id-key"
    key_file.write_text(text)
    key_file.chmod(0o600)
    with pytest.raises(DataError) as err:
        read_key(key_file)
    assert err.value.code == "id_key_invalid"


def test_an_existing_key_is_never_replaced(tmp_path):
    key_file = tmp_path / "pool.id-key"
    first = load_or_create_key(key_file)
    assert load_or_create_key(key_file) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.id-key"]  # no temporary file left
