"""Scoring speed: the kit against a plain reference pipeline, on every dialect PlantCLEF files come in.

    python benchmarks/bench_scoring.py [--rows 200000] [--repeat 3] [--dialects NAME ...] [--warm-n 300]

For each dialect it writes a solution (id, labels, split column, ``transect_id``)
and a submission of ``--rows`` rows: ids in every style of the real 2,105
PlantCLEF 2025 ids (CBN, GUARDEN, LISAH, OPTMix, RNNB, ``2024-CEV3``, several
dated surveys per transect), 7-digit species drawn from the real 7,806-species
vocabulary, 1 to 15 true labels, a kept subset of them plus up to 10 noise
labels per prediction. Dialects:

  quote-all-crlf  every field quoted, CRLF: as the real 2025 files in tests/fixtures/real/ (csv.writer's default)
  quote-all-lf    every field quoted, LF
  pandas          DataFrame.to_csv: minimal quoting (ids bare, lists quoted), LF
  pandas-crlf     the same written on Windows (CRLF)
  pandas-sorted   minimal quoting, the submission's rows in another order than the solution's
  semicolon-2024  the 2024 style: ``plot_id;species_ids``, nothing quoted, ``[1363875]``

Timed, best of ``--repeat``, in one process:
  kit:        ``scoring.runtime.scorer.score_file(..., reveal_private=True)``: load and check the
              solution, read and check the submission, every metric on both splits; by default the
              solution is read in a second thread while the submission is read (as ``agrieval score``
              does on two CPUs or more)
  1 thread:   the same with ``threads=1``: one after the other
  reference:  pandas.read_csv (both files) + merge on the id + ast.literal_eval
              + MultiLabelBinarizer(sparse_output=True) + sklearn f1_score(average="samples")
              on the public and on the private rows
The public and private sample F1 must agree to 1e-9. Then, on the real 2,105-row case (a real
submission from tests/fixtures/real/ against a solution built from its ids): a fresh
``agrieval score`` process (wall time), and the warm path
(``scoring.runtime.warm.Grader``: the solution loaded once, then submissions
scored one after the other, as ``agrieval leaderboard`` does).

Targets: worst dialect >= 20x at 200,000 rows (the default kit); fresh process < 0.3 s; warm >= 50 submissions/s.
"""

from __future__ import annotations

import argparse
import ast
import csv
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from scoring.cli.contract import exit_unless_installed

# The reference pipeline is pandas + scikit-learn (the `test` extra).
exit_unless_installed("python benchmarks/bench_scoring.py", "pandas", "sklearn")

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "fixtures" / "real"
REAL_SUBMISSIONS = ["plantclef2025_submission_topk5.csv", "plantclef2025_submission_vote_k5.csv",
                    "plantclef2025_submission_tiling_quadrat.csv"]


@dataclass(frozen=True)
class Dialect:
    competition: str
    quoting: int
    line_end: str
    shuffled: bool = False

    @property
    def delimiter(self) -> str:
        return ";" if self.competition == "plantclef2024" else ","


DIALECTS = {
    "quote-all-crlf": Dialect("plantclef2025", csv.QUOTE_ALL, "\r\n"),
    "quote-all-lf": Dialect("plantclef2025", csv.QUOTE_ALL, "\n"),
    "pandas": Dialect("plantclef2025", csv.QUOTE_MINIMAL, "\n"),
    "pandas-crlf": Dialect("plantclef2025", csv.QUOTE_MINIMAL, "\r\n"),
    "pandas-sorted": Dialect("plantclef2025", csv.QUOTE_MINIMAL, "\n", shuffled=True),
    "semicolon-2024": Dialect("plantclef2024", csv.QUOTE_MINIMAL, "\n"),
}


def vocabulary() -> np.ndarray:
    """The 7,806 species ids of the PlantCLEF pretrained model (its class_mapping.txt), as the shipped definition."""
    from scoring.runtime.definition import load_definition

    return np.array(sorted(int(v) for v in load_definition("plantclef2025").labels), dtype=np.int64)


def make_ids(n: int, rng: np.random.Generator) -> tuple[list[str], list[str]]:
    """``n`` unique quadrat ids in the styles of the real ones, and the transect (id without its date) of each."""
    letters = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))

    def word(k: int) -> str:
        return "".join(rng.choice(letters, size=k))

    styles = [  # (share of the real 2,105 ids, a transect name maker)
        (0.70, lambda t: f"CBN-{word(3).capitalize()}{word(1)}{t % 10}-{word(1)}{t % 7 + 1}"),
        (0.10, lambda t: f"GUARDEN-{word(3)}-CF{t % 100:02d}-{t % 5 + 1}-{(t % 9 + 1) * 10}"),
        (0.10, lambda t: f"LISAH-{word(3)}-{t % 4}-{(t % 9 + 1) * 10}"),
        (0.04, lambda t: f"OPTMix-{t % 10000:04d}-P{t % 3 + 1}-{t % 1000:03d}"),
        (0.05, lambda t: f"RNNB-{t % 12 + 1}-{t % 13 + 1}"),
        (0.01, lambda t: f"{2020 + t % 6}-{word(3)}{t % 9 + 1}"),
    ]
    shares = np.array([s for s, _ in styles])
    ids: list[str] = []
    transects: list[str] = []
    seen: set[str] = set()
    t = 0
    while len(ids) < n:
        name = styles[int(rng.choice(len(styles), p=shares / shares.sum()))][1](t)
        t += 1
        if name in seen:
            continue
        seen.add(name)
        for day in sorted(rng.choice(3650, size=int(rng.integers(1, 9)), replace=False)):
            date = np.datetime64("2013-01-01") + np.timedelta64(int(day), "D")
            ids.append(f"{name}-{str(date).replace('-', '')}")
            transects.append(name)
    return ids[:n], transects[:n]


def make_files(dialect: Dialect, n: int, folder: Path, stem: str, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    vocab = vocabulary()
    ids, transects = make_ids(n, rng)
    id_col = "plot_id" if dialect.competition == "plantclef2024" else "quadrat_id"
    split_col, public, private = ("split", "public", "private") if dialect.competition == "plantclef2024" \
        else ("Usage", "Public", "Private")
    sol, sub = folder / f"{stem}_solution.csv", folder / f"{stem}_submission.csv"
    order = rng.permutation(n) if dialect.shuffled else np.arange(n)
    truth_rows, pred_rows = [], []
    for i in range(n):
        truth = rng.choice(vocab, size=int(rng.integers(1, 16)), replace=False)
        kept = truth[rng.random(len(truth)) < 0.6]
        noise = rng.choice(vocab, size=int(rng.integers(0, 11)), replace=False)
        pred = np.concatenate([kept, noise[~np.isin(noise, kept)]])
        rng.shuffle(pred)
        split = public if rng.random() < 0.4 else private
        truth_rows.append([ids[i], "[" + ", ".join(map(str, truth.tolist())) + "]", split, transects[i]])
        pred_rows.append([ids[i], "[" + ", ".join(map(str, pred.tolist())) + "]"])
    kw = dict(delimiter=dialect.delimiter, quoting=dialect.quoting, lineterminator=dialect.line_end)
    with sol.open("w", newline="") as fs, sub.open("w", newline="") as fp:
        ws, wp = csv.writer(fs, **kw), csv.writer(fp, **kw)
        ws.writerow([id_col, "species_ids", split_col, "transect_id"])
        ws.writerows(truth_rows)
        wp.writerow([id_col, "species_ids"])
        wp.writerows(pred_rows[i] for i in order.tolist())
    return sol, sub


def definition(competition: str):
    """The shipped definition with room for the 200,000-row stress case (the shipped limits are 100,000 rows, 20 MB)."""
    from scoring.runtime.definition import load_definition

    d = load_definition(competition)
    return replace(d, limits=replace(d.limits, max_rows=1_000_000, max_bytes=500_000_000))


def kit(sol: Path, sub: Path, d, threads: int | None = None) -> tuple[float, float]:
    from scoring.runtime.scorer import score_file

    report = score_file(sub, sol, d, reveal_private=True, threads=threads)
    assert report.status == "scored", report.errors
    return report.metrics.public["sample_f1"], report.metrics.private["sample_f1"]


def reference(sol: Path, sub: Path, d) -> tuple[float, float]:
    import pandas as pd
    from sklearn.metrics import f1_score
    from sklearn.preprocessing import MultiLabelBinarizer

    s = pd.read_csv(sol, sep=d.delimiter)
    p = pd.read_csv(sub, sep=d.delimiter)
    merged = s.merge(p, on=d.id_column, suffixes=("_true", "_pred"))
    y_true = [ast.literal_eval(x) for x in merged["species_ids_true"]]
    y_pred = [ast.literal_eval(x) for x in merged["species_ids_pred"]]
    mlb = MultiLabelBinarizer(sparse_output=True)
    mlb.fit(y_true + y_pred)
    t, p = mlb.transform(y_true), mlb.transform(y_pred)
    public = (merged[d.split.column] == d.split.public).to_numpy()
    return tuple(f1_score(t[m], p[m], average="samples", zero_division=1.0) for m in (public, ~public))


def _cpus() -> int:
    from scoring.runtime.scorer import _cpus

    return _cpus()


def best_of(fn, repeat: int, *args) -> tuple[float, float]:
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times), value


def real_case(folder: Path) -> tuple[Path, list[Path]]:
    """A 2,105-row solution built from the real 2025 ids, and the real submissions that go with it."""
    subs = [REAL / name for name in REAL_SUBMISSIONS]
    with subs[0].open(newline="") as fh:
        ids = [row[0] for row in list(csv.reader(fh))[1:]]
    rng = np.random.default_rng(1)
    vocab = vocabulary()
    sol = folder / "real_solution.csv"
    with sol.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(["quadrat_id", "species_ids", "Usage", "transect_id"])
        for id_ in ids:
            truth = rng.choice(vocab, size=int(rng.integers(1, 16)), replace=False)
            transect = id_[:-9] if id_[-9:-8] == "-" and id_[-8:].isdigit() else id_
            w.writerow([id_, "[" + ", ".join(map(str, truth.tolist())) + "]",
                        "Public" if rng.random() < 0.4 else "Private", transect])
    return sol, subs


def fresh_process(sol: Path, sub: Path, repeat: int) -> float:
    agrieval = Path(sys.executable).with_name("agrieval")
    walls = []
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([str(agrieval), "score", str(sub), "--solution", str(sol), "--competition", "plantclef2025"],
                       check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - t0)
    return min(walls)


def warm_throughput(sol: Path, subs: list[Path], n: int, *, limits: bool = False) -> tuple[float, float]:
    """Submissions per second through one ``Grader``, and the time to load it.

    ``limits=False``: the warm path's own cost, in this process; ``limits=True`` (``Grader``'s default) adds a
    forked child per submission for the competition's time and memory limits."""
    from scoring.runtime.warm import Grader

    t0 = time.perf_counter()
    grader = Grader(sol, "plantclef2025", limits=limits)
    load = time.perf_counter() - t0
    for path in subs:
        assert grader.score(path).status == "scored"
    t0 = time.perf_counter()
    for k in range(n):
        grader.score(subs[k % len(subs)])
    return n / (time.perf_counter() - t0), load


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dialects", nargs="+", default=sorted(DIALECTS), choices=sorted(DIALECTS))
    ap.add_argument("--warm-n", type=int, default=300, help="submissions scored for the warm throughput")
    args = ap.parse_args()
    ok = True
    ratios, one_thread = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{args.rows:,} rows; kit and reference: best of {args.repeat}")
        print(f"kit: the default (the solution read in a second thread when {_cpus()} CPUs allow it); "
              "1 thread: threads=1")
        print(f"{'dialect':<16} {'MB':>5} {'kit s':>7} {'1 thr s':>7} {'ref s':>7} {'ratio':>7} {'1 thr':>6}  "
              "sample F1 public, private: kit / reference")
        for name in args.dialects:
            dialect = DIALECTS[name]
            sol, sub = make_files(dialect, args.rows, folder, name)
            d = definition(dialect.competition)
            kit(sol, sub, d)  # warm imports and the vocabulary lookup
            t_kit, v_kit = best_of(kit, args.repeat, sol, sub, d)
            t_one, v_one = best_of(kit, args.repeat, sol, sub, d, 1)
            reference(sol, sub, d) if args.rows < 10_000 else None  # warm sklearn's imports
            t_ref, v_ref = best_of(reference, args.repeat, sol, sub, d)
            agree = max(abs(a - b) for a, b in zip(v_kit, v_ref)) <= 1e-9 and v_one == v_kit
            ok &= agree
            ratios[name] = t_ref / t_kit
            one_thread[name] = t_ref / t_one
            mb = (sol.stat().st_size + sub.stat().st_size) / 1e6
            print(f"{name:<16} {mb:>5.1f} {t_kit:>7.3f} {t_one:>7.3f} {t_ref:>7.3f} {t_ref / t_kit:>6.1f}x "
                  f"{t_ref / t_one:>5.1f}x  "
                  f"{v_kit[0]:.12f}, {v_kit[1]:.12f} / {v_ref[0]:.12f}, {v_ref[1]:.12f}"
                  f"{'' if agree else '  DISAGREE'}", flush=True)
            sol.unlink()
            sub.unlink()
        worst = min(ratios, key=ratios.get)
        met = ratios[worst] >= 20 or args.rows < 200_000
        ok &= met
        print(f"worst dialect: {worst} {ratios[worst]:.1f}x (target >= 20x at 200,000 rows"
              f"{'' if args.rows >= 200_000 else ', not judged at this size'}){'' if met else '  BELOW TARGET'}")
        slowest = min(one_thread, key=one_thread.get)
        print(f"worst dialect in one thread: {slowest} {one_thread[slowest]:.1f}x")

        sol, subs = real_case(folder)
        wall = fresh_process(sol, subs[0], 5)
        print(f"fresh process: agrieval score, real 2,105-row submission ({subs[0].name}): best of 5 "
              f"{wall:.3f} s wall (target < 0.3 s){'' if wall < 0.3 else '  ABOVE TARGET'}")
        ok &= wall < 0.3
        rate, load = warm_throughput(sol, subs, args.warm_n)
        print(f"warm: Grader(limits=False) loaded in {load:.3f} s, then {rate:.0f} submissions/s of 2,105 rows "
              f"({args.warm_n} scored, the 3 real submissions in turn; target >= 50/s)"
              f"{'' if rate >= 50 else '  BELOW TARGET'}")
        limited, _ = warm_throughput(sol, subs, max(1, args.warm_n // 3), limits=True)
        print(f"warm with the competition's limits (the default: a forked child per submission): "
              f"{limited:.0f} submissions/s (not judged)")
        ok &= rate >= 50
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
