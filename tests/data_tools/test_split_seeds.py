"""The paper preset's seeding as documented in data_tools/splits.py: each stratum's rows, sorted by path, are
permuted by a generator seeded from sha256(seed|protocol|fold|team|class), recomputed here from that sentence;
so a team's validation images in one LOTO fold say nothing about its validation images in another
(scripts/mutation_check.py: ``split_seed_without_fold``)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from agrieval.data_tools.splits import make_splits
from tests.data_tools.test_splits import KEY, pool

TEAMS, CLASSES, N = ("t1", "t2", "t3"), ("chene", "frene"), 20


def documented_val(fold: str, team: str, cls: str, paths: list, k: int, seed: int = 42) -> set:
    digest = hashlib.sha256(f"{seed}|loto|{fold}|{team}|{cls}".encode("utf-8")).digest()
    rng = np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest[:16], "little")))
    ordered = sorted(paths)
    return {ordered[i] for i in rng.permutation(len(ordered))[:k]}


def test_loto_validation_images_follow_the_documented_per_fold_seed(tmp_path):
    df = pool({(t, c): N for t in TEAMS for c in CLASSES})
    files = {p.stem: pd.read_csv(p) for p in make_splits(df, "loto", tmp_path, stratify="team_class", id_key=KEY)}
    val_of = {}
    for fold, manifest in files.items():
        for team in TEAMS:
            for cls in CLASSES:
                rows = manifest[(manifest["team"] == team) & (manifest["class"] == cls)]
                if team == fold:
                    assert set(rows["split"]) == {"test"}
                    continue
                # class pool 2 x 20 images: floor(0.3 * 40 + 1/2) = 12 in validation, 6 per team (no remainder)
                val = set(rows.loc[rows["split"] == "val", "path"])
                assert val == documented_val(fold, team, cls, rows["path"].tolist(), 6), (fold, team, cls)
                val_of[fold, team, cls] = val
    # the same team and class in two folds: independent draws (equal only by a 1 in C(20, 6) = 38,760 chance)
    for team, (a, b) in (("t3", ("t1", "t2")), ("t1", ("t2", "t3")), ("t2", ("t1", "t3"))):
        for cls in CLASSES:
            assert val_of[a, team, cls] != val_of[b, team, cls]
