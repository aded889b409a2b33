"""Regenerate the bundled CTV example inputs (deterministic, seed 42).

The numbers are ILLUSTRATIVE, drawn to look like a CTV study (high in-team
validation accuracy, lower and more spread cross-team test accuracy under
TOTO, a smaller gap under LOTO); they are not the paper's results.

    python examples/ctv/make_examples.py

writes ``RESULTS.csv`` (12 teams x 2 archs x 2 protocols), ``loto_<arch>.csv``
(team, test_acc: two rankings for ``agrieval rank-agreement``) and ``runs/``: the
agrieval baselines layout ``runs/<protocol>/<arch>/<fold>/{run.json,predictions.csv}``
for 4 teams, plus ``runs/agri_script/`` in the public AgrI training script's
layout (``*_predictions.csv`` + ``*_results.json``, Swin-Base, TOTO).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
TEAMS = [f"team{i:02d}" for i in range(1, 13)]
ARCHS = ["densenet121", "swin_tiny"]
CLASSES = ["caroubier", "chene", "faux_poivrier", "frene", "pistachier", "tipu"]


def results_table(rng: np.random.Generator) -> list[list]:
    skill = rng.uniform(-1, 1, len(TEAMS))  # a team's data quality, shared by both archs
    rows = []
    for protocol in ("TOTO", "LOTO"):
        for a, arch in enumerate(ARCHS):
            for t, team in enumerate(TEAMS):
                if protocol == "TOTO":
                    val = 97.5 + 1.5 * rng.uniform(-1, 1) + a * 0.4
                    test = 72 + 9 * skill[t] + 4 * a + rng.normal(0, 2.5)
                else:
                    val = 95.5 + 1.0 * rng.uniform(-1, 1) + a * 0.3
                    test = 86 + 4 * skill[t] + 2 * a + rng.normal(0, 1.5)
                rows.append([protocol, arch, team, round(min(val, 100), 2), round(min(test, 100), 2)])
    return rows


def predictions(rng, team_acc: dict[str, float], split_of: dict[str, str], n_per_team: int):
    out = []
    for team in sorted(team_acc):
        for k in range(n_per_team):  # noqa: B007
            true = CLASSES[int(rng.integers(len(CLASSES)))]
            correct = rng.random() < team_acc[team]
            pred = true if correct else CLASSES[(CLASSES.index(true) + 1 + int(rng.integers(5))) % 6]
            conf = round(float(rng.uniform(0.55, 0.99) if correct else rng.uniform(0.2, 0.7)), 4)
            out.append((f"{team}/{true}/{team}_{split_of[team]}_{k:03d}.jpg", team, split_of[team], true, pred, conf))
    return out


def write_csv(path: Path, header: list[str], rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def main() -> None:
    rng = np.random.default_rng(42)
    table = results_table(rng)
    write_csv(HERE / "RESULTS.csv", ["protocol", "arch", "team", "val_acc", "test_acc"], table)
    # two rankings of the same teams, for `agrieval rank-agreement`
    for arch in ARCHS:
        write_csv(HERE / f"loto_{arch}.csv", ["team", "test_acc"],
                  [[r[2], r[4]] for r in table if r[0] == "LOTO" and r[1] == arch])

    teams = TEAMS[:4]
    quality = dict(zip(teams, [0.9, 0.75, 0.6, 0.82]))
    header = ["image_id", "team", "split", "true_label", "predicted_label", "confidence"]
    for protocol in ("TOTO", "LOTO"):
        for a, arch in enumerate(ARCHS):
            for fold in teams:
                if protocol == "TOTO":
                    split_of = {t: "val" if t == fold else "test" for t in teams}
                    acc = {t: 0.97 if t == fold else (quality[t] + quality[fold]) / 2 - 0.1 + 0.04 * a for t in teams}
                    train = [fold]
                else:
                    split_of = {t: "test" if t == fold else "val" for t in teams}
                    acc = {t: 0.95 if t != fold else quality[t] + 0.03 * a for t in teams}
                    train = [t for t in teams if t != fold]
                preds = predictions(rng, acc, split_of, 40)
                run = HERE / "runs" / protocol / arch / fold
                write_csv(run / "predictions.csv", header, preds)
                val = [p[3] == p[4] for p in preds if p[2] == "val"]
                test = [p[3] == p[4] for p in preds if p[2] == "test"]
                meta = {"protocol": protocol, "arch": arch, "fold": fold, "train_teams": train,
                        "val_acc": round(sum(val) / len(val), 6), "test_acc": round(sum(test) / len(test), 6),
                        "seed": 42, "preset": "paper"}
                (run / "run.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    script = HERE / "runs" / "agri_script"
    for fold in teams:
        split_of = {t: "val" if t == fold else "test" for t in teams}
        acc = {t: 0.98 if t == fold else (quality[t] + quality[fold]) / 2 - 0.05 for t in teams}
        preds = predictions(rng, acc, split_of, 40)
        rows = [(p[0], p[1], p[2], p[3], p[4], p[5], int(p[3] == p[4])) for p in preds]
        stem = f"swin_base_toto_{fold}"
        write_csv(script / f"{stem}_predictions.csv",
                  ["file_path", "team", "split", "true_label", "predicted_label", "confidence", "correct"], rows)
        val = [r[6] for r in rows if r[2] == "val"]
        test = [r[6] for r in rows if r[2] == "test"]
        res = {"model": "swin_base", "mode": "toto", "team": fold,
               "val_acc": sum(val) / len(val), "test_acc": sum(test) / len(test)}
        (script / f"{stem}_results.json").write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
