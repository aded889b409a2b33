"""Scoring speed: the kit end to end against a plain reference pipeline, in the same run.

    python benchmarks/bench_scoring.py [--rows 2105 200000] [--repeat 3]

For each size it writes a PlantCLEF-style solution and submission (7,806 real
species ids, 1 to 15 labels per row), then times
  kit:       read + validate + score (``scoring.runtime.scorer.score_file``), and
  reference: pandas.read_csv + ast.literal_eval + MultiLabelBinarizer(sparse_output=True)
             + sklearn f1_score(average="samples"),
checks that both sample-averaged F1 agree to 1e-9, and prints the speed ratio.
Finally it times ``agrieval score`` as a fresh process on the 2,105-row case.
Targets: kit >= 10x faster at 200,000 rows; the fresh process under 1 s wall.
"""

from __future__ import annotations

import argparse
import ast
import csv
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np


def make_files(n: int, folder: Path, seed: int = 0) -> tuple[Path, Path]:
    from scoring.authoring.definitions import load_competition

    vocab = np.array(sorted(load_competition("plantclef2025").labels))
    rng = np.random.default_rng(seed)
    sol, sub = folder / f"solution_{n}.csv", folder / f"submission_{n}.csv"
    with sol.open("w", newline="") as fs, sub.open("w", newline="") as fp:
        ws, wp = csv.writer(fs, quoting=csv.QUOTE_ALL), csv.writer(fp, quoting=csv.QUOTE_ALL)
        ws.writerow(["quadrat_id", "species_ids", "Usage"])
        wp.writerow(["quadrat_id", "species_ids"])
        for i in range(n):
            qid = f"CBN-T{i // 5:06d}-A1-2023{(i % 5) + 1:02d}15"
            truth = rng.choice(vocab[:400], size=rng.integers(1, 16), replace=False)
            keep = truth[: rng.integers(0, len(truth) + 1)]
            pred = np.concatenate([keep, rng.choice(vocab, size=rng.integers(0, 8), replace=False)])
            pred = np.unique(pred)[:15] if len(pred) else rng.choice(vocab, size=1)
            ws.writerow([qid, "[" + ", ".join(map(str, truth)) + "]", "Public"])
            wp.writerow([qid, "[" + ", ".join(map(str, pred)) + "]"])
    return sol, sub


def definition():
    """plantclef2025 with room for the 200,000-row stress case (the shipped limit is 100,000 rows)."""
    from scoring.authoring.definitions import load_competition

    d = load_competition("plantclef2025")
    return replace(d, limits=replace(d.limits, max_rows=1_000_000, max_bytes=500_000_000))


def kit(sol: Path, sub: Path, d) -> float:
    from scoring.runtime.scorer import score_file

    report = score_file(sub, sol, d)
    assert report.status == "scored", report.errors
    return report.metrics.public["sample_f1"]


def reference(sol: Path, sub: Path) -> float:
    import pandas as pd
    from sklearn.metrics import f1_score
    from sklearn.preprocessing import MultiLabelBinarizer

    s = pd.read_csv(sol)
    p = pd.read_csv(sub)
    merged = s.merge(p, on="quadrat_id", suffixes=("_true", "_pred"))
    y_true = [ast.literal_eval(x) for x in merged["species_ids_true"]]
    y_pred = [ast.literal_eval(x) for x in merged["species_ids_pred"]]
    mlb = MultiLabelBinarizer(sparse_output=True)
    mlb.fit(y_true + y_pred)
    return f1_score(mlb.transform(y_true), mlb.transform(y_pred), average="samples", zero_division=1.0)


def best_of(fn, repeat: int, *args) -> tuple[float, float]:
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times), value


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[2105, 200_000])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'rows':>8} {'kit s':>8} {'ref s':>8} {'ratio':>7}  sample F1 (kit / reference)")
        for n in args.rows:
            sol, sub = make_files(n, folder)
            d = definition()
            kit(sol, sub, d)  # warm imports and the vocabulary cache
            reference(sol, sub) if n < 10_000 else None  # warm sklearn's imports
            t_kit, v_kit = best_of(kit, args.repeat, sol, sub, d)
            t_ref, v_ref = best_of(reference, max(1, args.repeat - 1), sol, sub)
            agree = abs(v_kit - v_ref) <= 1e-9
            ok &= agree
            print(f"{n:>8} {t_kit:>8.3f} {t_ref:>8.3f} {t_ref / t_kit:>6.1f}x  {v_kit:.12f} / {v_ref:.12f}"
                  f"{'' if agree else '  DISAGREE'}")
            if n >= 200_000 and t_ref / t_kit < 10:
                print(f"  below target: kit should be >= 10x faster at {n:,} rows")
                ok = False
        n0 = 2105  # the size of the real PlantCLEF 2025 test set, within the shipped row limit
        sol, sub = folder / f"solution_{n0}.csv", folder / f"submission_{n0}.csv"
        if not sol.exists():
            make_files(n0, folder)
        agrieval = Path(sys.executable).with_name("agrieval")
        walls = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([str(agrieval), "score", str(sub), "--solution", str(sol), "--competition", "plantclef2025"],
                           check=True, capture_output=True)
            walls.append(time.perf_counter() - t0)
        print(f"fresh process: agrieval score on {n0:,} rows: best {min(walls):.3f} s wall "
              f"(target < 1 s){'' if min(walls) < 1 else '  ABOVE TARGET'}")
        ok &= min(walls) < 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
