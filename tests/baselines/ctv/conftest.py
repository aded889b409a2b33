"""A tiny CTV data set built from real photos shipped with scikit-image.

Two classes (crops of ``astronaut()`` vs crops of ``coffee()``), three teams
(each team sees its photos through a different colour cast, as team cameras
do), 40 px JPEGs; TOTO and LOTO manifests in the SPLITS layout.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

TEAMS = ("alpha", "beta", "gamma")
CLASSES = ("astro", "coffee")


def _crops(img: np.ndarray, n: int, rng: np.random.Generator, size: int = 40) -> list[np.ndarray]:
    from PIL import Image

    h, w = img.shape[:2]
    out = []
    for _ in range(n):
        s = int(rng.integers(min(h, w) // 4, min(h, w) // 2))
        y, x = int(rng.integers(0, h - s)), int(rng.integers(0, w - s))
        crop = Image.fromarray(img[y:y + s, x:x + s]).resize((size, size), Image.BICUBIC)
        out.append(np.asarray(crop))
    return out


def make_pool(root: Path, per_class: int = 8, seed: int = 0) -> list[dict]:
    from PIL import Image
    from skimage import data

    rng = np.random.default_rng(seed)
    sources = {"astro": data.astronaut(), "coffee": data.coffee()}
    casts = {"alpha": (1.0, 1.0, 1.0), "beta": (1.1, 0.95, 0.9), "gamma": (0.9, 1.0, 1.1)}
    rows = []
    for team in TEAMS:
        for cls in CLASSES:
            for k, crop in enumerate(_crops(sources[cls], per_class, rng)):
                img = np.clip(crop * np.array(casts[team]), 0, 255).astype(np.uint8)
                rel = f"{team}/{cls}/{team}_{cls}_{k:02d}.jpg"
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                Image.fromarray(img).save(root / rel, quality=92)
                rows.append({"image_id": f"{team}_{cls}_{k:02d}", "path": rel, "team": team, "class": cls})
    return rows


def write_splits(rows: list[dict], root: Path, splits: Path, seed: int = 0) -> None:
    import pandas as pd

    df = pd.DataFrame(rows)
    rng = np.random.default_rng(seed)
    for protocol in ("toto", "loto"):
        pdir = splits / protocol
        pdir.mkdir(parents=True, exist_ok=True)
        for team in TEAMS:
            inside = df["team"] == team if protocol == "toto" else df["team"] != team
            pool = df[inside].copy()
            val = np.zeros(len(pool), bool)
            for _, idx in pool.groupby("class").indices.items():
                pick = rng.permutation(idx)[: max(1, round(0.3 * len(idx)))]
                val[pick] = True
            pool["split"] = np.where(val, "val", "train")
            test = df[~inside].copy()
            test["split"] = "test"
            pd.concat([pool, test]).to_csv(pdir / f"{team}.csv", index=False)
        (pdir / "folds.json").write_text(json.dumps({"root": str(root), "protocol": protocol, "seed": seed}))


@pytest.fixture(scope="session")
def ctv_data(tmp_path_factory) -> tuple[Path, Path]:
    """(data root, splits dir) shared by the tests; read-only by convention."""
    base = tmp_path_factory.mktemp("ctvdata")
    root, splits = base / "pool", base / "splits"
    write_splits(make_pool(root), root, splits)
    return root, splits
