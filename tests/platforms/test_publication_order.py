"""Nothing published tells the truth by its order (issue 33): the sample submission of a solution written class
by class, of one written split by split, and of one made from `agrieval data splits` manifests, attacked as a
participant would attack it, gives labels and splits no better than chance; and `bundle` warns about the
solutions whose order gives them away.

The attacks: each team's rows of the sample, in its order, cut into equal runs, one per class in sorted order
(the attack that named 120 of 120 AgrI labels); for the split, each team's first half guessed public, or every
other row public. A position-free guess is right with probability 1/K (classes) or 1/2 (split); an attack is
"no better than chance" when it stays below that plus four binomial standard deviations.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from agrieval.data_tools.catalog import _CATALOG_COLUMNS as CATALOG_COLUMNS
from agrieval.data_tools.splits import make_splits
from agrieval.scoring.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "reference_submissions" / "agrichallenge2024" / "solution.csv"
PLATFORMS = ("codabench", "codalab", "evalai", "hf", "kaggle")
HEADER = ["image_id", "label", "team", "Usage"]


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _write(rows: list[dict], path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, HEADER, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return path


def class_ordered(tmp: Path) -> Path:
    """The AgrI example as it was shipped before issue 33: team by team, class by class, the split
    alternating row by row."""
    rows = sorted(_rows(SHIPPED), key=lambda r: (r["team"], r["label"], r["image_id"]))
    rows = [dict(r, Usage="Public" if k % 2 == 0 else "Private") for k, r in enumerate(rows)]
    return _write(rows, tmp / "class_ordered.csv")


def split_ordered(tmp: Path) -> Path:
    """Each team's public rows first, then its private rows."""
    rows = sorted(_rows(SHIPPED), key=lambda r: (r["team"], r["Usage"] != "Public", r["image_id"]))
    return _write(rows, tmp / "split_ordered.csv")


def from_data_splits(tmp: Path) -> Path:
    """The test rows of `data splits --protocol loto --preset official` (the preset that kept the script's
    test order, teams then team/class/file paths), fold by fold, in the files' order; the organizer draws
    the split (here by a hash of the id, independent of any order)."""
    paths = [f"team_{t}/{c}/img_{k:02d}.jpg" for t in "abcd"
             for c in ("caroubier", "chene", "faux_poivrier", "frene", "pistachier", "tipu") for k in range(8)]
    catalog = pd.DataFrame([{"root": "/data/clean", "path": p, "team": p.split("/")[0], "class_raw": p.split("/")[1],
                             "class": p.split("/")[1], "subcategory": "", "format": "JPEG", "width": 336,
                             "height": 336, "bytes": 1, "mtime_ns": 0, "device": "unknown", "phash": f"{k:016x}",
                             "phash_mode": "exact", "readable": True, "error": ""} for k, p in enumerate(paths)],
                           columns=CATALOG_COLUMNS)
    files = make_splits(catalog, "loto", tmp / "splits", stratify="class", method="script")
    rows = []
    for f in files:
        m = pd.read_csv(f)
        for r in m[m["split"] == "test"].itertuples():
            usage = "Public" if hashlib.sha256(r.image_id.encode()).digest()[0] % 2 else "Private"
            rows.append({"image_id": r.image_id, "label": r._4, "team": r.team, "Usage": usage})
    return _write(rows, tmp / "from_data_splits.csv")


def label_attack(order: list, truth: dict) -> float:
    """Accuracy of: each team's rows (``order``), cut into equal runs, one per class in sorted order."""
    classes = sorted({r["label"] for r in truth.values()})
    right = 0
    for team in sorted({r["team"] for r in truth.values()}):
        mine = [i for i in order if truth[i]["team"] == team]
        right += sum(truth[i]["label"] == classes[k * len(classes) // len(mine)] for k, i in enumerate(mine))
    return right / len(order)


def split_attacks(order: list, truth: dict) -> dict:
    """Accuracy of two guesses per team: its first half public; every other row public."""
    right = {"halves": 0, "alternating": 0}
    for team in sorted({r["team"] for r in truth.values()}):
        mine = [i for i in order if truth[i]["team"] == team]
        for k, i in enumerate(mine):
            public = truth[i]["Usage"] == "Public"
            right["halves"] += public == (k < (len(mine) + 1) // 2)
            right["alternating"] += public == (k % 2 == 0)
    return {name: n / len(order) for name, n in right.items()}


def chance_bound(p: float, n: int) -> float:
    return p + 4 * math.sqrt(p * (1 - p) / n)


def assert_order_tells_nothing(order: list, truth: dict) -> None:
    n, k = len(order), len({r["label"] for r in truth.values()})
    assert label_attack(order, truth) <= chance_bound(1 / k, n)
    for name, acc in split_attacks(order, truth).items():
        assert acc <= chance_bound(0.5, n), name


def _sample_ids(text: bytes) -> list:
    return [row[0] for row in csv.reader(io.StringIO(text.decode("utf-8")))][1:]


SOLUTIONS = {"class_ordered": class_ordered, "split_ordered": split_ordered, "from_data_splits": from_data_splits}


@pytest.mark.parametrize("case", sorted(SOLUTIONS))
def test_the_sample_submission_tells_neither_labels_nor_split_by_position(tmp_path, case):
    solution = SOLUTIONS[case](tmp_path)
    truth = {r["image_id"]: r for r in _rows(solution)}
    res = CliRunner().invoke(cli, ["bundle", "kaggle", "-c", "agrichallenge2024", "-s",
                                                    str(solution), str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    sample = _sample_ids((tmp_path / "b" / "sample_submission.csv").read_bytes())
    assert sorted(sample) == sorted(truth)
    assert_order_tells_nothing(sample, truth)
    assert_order_tells_nothing(sorted(sample), truth)  # an attacker sorts the ids: they are hashes, no better
    # and the attacks work: on the solution's own order they name what that order gives away
    own = list(truth)
    if case == "class_ordered":
        assert label_attack(own, truth) == 1.0 and split_attacks(own, truth)["alternating"] == 1.0
        assert "[order_reveals_labels]" in res.stderr and "[order_reveals_split]" in res.stderr
        assert "order_reveals_labels" in (tmp_path / "b" / "README.md").read_text()
    elif case == "split_ordered":
        assert split_attacks(own, truth)["halves"] >= 0.95
        assert "[order_reveals_split]" in res.stderr and "[order_reveals_labels]" not in res.stderr
    else:  # the manifests' own order tells nothing either: the solution made from them keeps it
        assert_order_tells_nothing(own, truth)
        assert "order_reveals" not in res.stderr


def test_every_published_copy_of_the_sample_has_the_same_order(tmp_path):
    solution = class_ordered(tmp_path)
    copies = {}
    for platform in PLATFORMS:
        res = CliRunner().invoke(cli, ["bundle", platform, "-c", "agrichallenge2024", "-s", str(solution),
                                       str(tmp_path / platform)])
        assert res.exit_code == 0, res.output
        copies[platform] = (tmp_path / platform / "sample_submission.csv").read_bytes()
    for platform, upload in (("codabench", "codabench_competition.zip"), ("codalab", "codalab_competition.zip")):
        with zipfile.ZipFile(tmp_path / platform / upload) as zf:
            kit = zipfile.ZipFile(io.BytesIO(zf.read("starting_kit.zip")))
            copies[f"{platform} starting kit"] = kit.read("sample_submission.csv")
    assert len(set(copies.values())) == 1, sorted(copies)
    truth = {r["image_id"]: r for r in _rows(solution)}
    assert_order_tells_nothing(_sample_ids(copies["kaggle"]), truth)


def test_the_order_is_the_recorded_keyed_hash_and_the_key_is_an_option(tmp_path):
    from agrieval.scoring.authoring import publication_order

    solution = class_ordered(tmp_path)
    ids = [r["image_id"] for r in _rows(solution)]
    for key, args in (("agrichallenge2024", []), ("another key", ["--order-key", "another key"])):
        out = tmp_path / key.replace(" ", "_")
        res = CliRunner().invoke(cli, ["bundle", "hf", "-c", "agrichallenge2024", "-s", str(solution), *args,
                                       str(out)])
        assert res.exit_code == 0, res.output
        sample = _sample_ids((out / "sample_submission.csv").read_bytes())
        rebuilt = sorted(ids, key=lambda i: hashlib.sha256(f"{key}\n{i}".encode()).hexdigest())
        assert sample == rebuilt == publication_order(ids, key)
        assert f"KEY `{key}`" in (out / "README.md").read_text()
    assert _sample_ids((tmp_path / "agrichallenge2024" / "sample_submission.csv").read_bytes()) != \
        _sample_ids((tmp_path / "another_key" / "sample_submission.csv").read_bytes())
