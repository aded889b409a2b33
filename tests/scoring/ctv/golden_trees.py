"""A 3-seed CTV study written by formula (no random generator, so every machine writes the same bytes): TOTO and
LOTO runs of two architectures over four teams, three classes, per-epoch histories with the test accuracy, and
the held-out runs of leave-one-team-out selection. The golden report test (test_golden_report.py) reads it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

TEAMS = ["t1", "t2", "t3", "t4"]
CLASSES = ["chene", "frene", "tipu"]
SEEDS = [42, 43, 44]
ARCHS = ["net_a", "net_b"]
EPOCHS = 4
HEADER = ["image_id", "team", "split", "true_label", "predicted_label", "confidence"]


def _fraction(*key: int) -> float:
    """A number in [0, 1) from integers, the same on every machine."""
    h = 0
    for k in key:
        h = (h * 1_000_003 + k * 7919 + 17) % 104_729
    return h / 104_729


def _write(d: Path, protocol: str, arch: str, fold: str, train: list, test: list, seed: int, salt: int) -> None:
    d.mkdir(parents=True)
    skill = 0.3 + 0.6 * _fraction(salt, seed, 1)
    rows = []
    for s, (split, teams) in enumerate((("val", train), ("test", test))):
        for t, team in enumerate(teams):
            for k in range(6 + int(6 * _fraction(salt, seed, s, t))):
                true = CLASSES[k % 3]
                ok = _fraction(salt, seed, s, t, k) < skill * (0.6 if true == "tipu" else 1.0)
                rows.append([f"{team}/{split}/{k}.jpg", team, split, true, true if ok else CLASSES[(k + 1) % 3], "0.5"])
    with (d / "predictions.csv").open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(HEADER)
        w.writerows(rows)
    history = [{"epoch": e, "val_acc": round(0.2 + 0.75 * _fraction(salt, seed, e, 5), 6),
                "test_acc": round(0.1 + 0.8 * _fraction(salt, seed, e, 6), 6)} for e in range(1, EPOCHS + 1)]
    (d / "history.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))
    (d / "run.json").write_text(json.dumps({"protocol": protocol.lower(), "arch": arch, "fold": fold,
                                            "train_teams": train, "base_seed": seed}))


def write_study(root: Path) -> tuple[Path, Path]:
    """``root/runs`` (seed-S/<protocol>/<arch>/<fold>) and ``root/lodo`` (the held-out runs of each LOTO fold T,
    under lodo/T/seed-S/loto/<arch>/<h>); returns both."""
    runs, lodo = root / "runs", root / "lodo"
    salt = 0
    for seed in SEEDS:
        for protocol in ("TOTO", "LOTO"):
            for arch in ARCHS:
                for fold in TEAMS:
                    salt += 1
                    others = [t for t in TEAMS if t != fold]
                    train, test = ([fold], others) if protocol == "TOTO" else (others, [fold])
                    _write(runs / f"seed-{seed}" / protocol.lower() / arch / fold, protocol, arch, fold, train, test,
                           seed, salt)
                    if protocol == "LOTO":
                        for h in others:
                            salt += 1
                            rest = [t for t in others if t != h]
                            _write(lodo / fold / f"seed-{seed}" / "loto" / arch / h, "LOTO", arch, h, rest, [h],
                                   seed, salt)
    return runs, lodo
