"""Rescoring speed: the warm in-process scorer against a plain-Python scorer, per upload, on the real 2,105 ids.

    python benchmarks/bench_rescore.py [--repeat 15] [--profile KIND] [--top 30]

What an organiser pays per stored upload when rescoring a competition (``server rescore``), a leaderboard
over a folder or an audit: one ``Grader.score`` (``scoring/runtime/warm.py``) with the solution loaded
once, ``limits=False`` (the caller's process), ``reveal_private=True``: strict validation of the upload and
every metric on both splits. Its peer, loaded once as well, is benchmarks/peers/plain_f1.py: the csv
module and sets, the transect F1 of the public split only, no validation.

The solution is built from the 2,105 real PlantCLEF 2025 ids (tests/fixtures/real/), 1 to 15 true species
from the real vocabulary, 40% public, the transect the id without its date. Five kinds of upload of those
ids, each in the quoting of the real files (csv.writer's defaults):

  empty   every list empty, ``[]``
  half    each row keeps half of its true species (rounded up)
  noisy   about 60% of the true species and up to 10 wrong ones (bench_scoring.py's submissions)
  over    the true species and 40 wrong ones per row (a top-k with a large k)
  perfect the true species

Each kind is scored by both in turn, ``--repeat`` times (medians). The kit's public transect F1 must equal
the peer's to 1e-9. Target: kit/peer <= 1.0 on every kind (wall; the ratio of the medians of the thread's CPU
time is printed beside it, which a shared machine moves less). ``--profile KIND`` prints instead a cProfile
of 200 ``Grader.score`` calls on that kind (cumulative time, the ``--top`` lines).
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))
import plain_f1  # noqa: E402 (the peer)

REAL_IDS = REPO / "tests" / "fixtures" / "real" / "plantclef2025_submission_topk5.csv"
KINDS = ["empty", "half", "noisy", "over", "perfect"]


def _vocabulary() -> np.ndarray:
    from agrieval.scoring.runtime.definition import load_definition

    return np.array(sorted(int(v) for v in load_definition("plantclef2025").labels), dtype=np.int64)


def _cell(labels) -> str:
    return "[" + ", ".join(map(str, labels)) + "]"


def make_case(folder: Path, seed: int = 1) -> tuple[Path, dict[str, Path]]:
    """The solution of the real ids and one upload of each kind."""
    with REAL_IDS.open(newline="") as fh:
        ids = [row[0] for row in list(csv.reader(fh))[1:]]
    rng = np.random.default_rng(seed)
    vocab = _vocabulary()
    truths = [rng.choice(vocab, size=int(rng.integers(1, 16)), replace=False) for _ in ids]
    sol = folder / "solution.csv"
    with sol.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(["quadrat_id", "species_ids", "Usage", "transect_id"])
        for id_, truth in zip(ids, truths):
            transect = id_[:-9] if id_[-9:-8] == "-" and id_[-8:].isdigit() else id_
            w.writerow([id_, _cell(truth.tolist()), "Public" if rng.random() < 0.4 else "Private", transect])

    def wrong(truth, k):
        pool = rng.choice(vocab, size=k + len(truth), replace=False)
        return pool[~np.isin(pool, truth)][:k]

    makers = {
        "empty": lambda t: [],
        "half": lambda t: t[: (len(t) + 1) // 2].tolist(),
        "noisy": lambda t: rng.permutation(np.concatenate([t[rng.random(len(t)) < 0.6],
                                                           wrong(t, int(rng.integers(0, 11)))])).tolist(),
        "over": lambda t: rng.permutation(np.concatenate([t, wrong(t, 40)])).tolist(),
        "perfect": lambda t: t.tolist(),
    }
    uploads = {}
    for kind, make in makers.items():
        uploads[kind] = folder / f"{kind}.csv"
        with uploads[kind].open("w", newline="") as fh:
            w = csv.writer(fh, quoting=csv.QUOTE_ALL)
            w.writerow(["quadrat_id", "species_ids"])
            w.writerows([id_, _cell(make(t))] for id_, t in zip(ids, truths))
    return sol, uploads


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--profile", choices=KINDS)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--sort", default="cumulative", help="the profile's order (pstats key: cumulative, tottime)")
    args = ap.parse_args()
    from agrieval.scoring.runtime.warm import Grader

    with tempfile.TemporaryDirectory() as tmp:
        sol, uploads = make_case(Path(tmp))
        grader = Grader(sol, "plantclef2025", reveal_private=True, limits=False)
        if args.profile:
            path = uploads[args.profile]
            grader.score(path)
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(200):
                grader.score(path)
            prof.disable()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats(args.sort).print_stats(args.top)
            print(out.getvalue())
            return 0
        truth = plain_f1.load_truth(sol, ",", "quadrat_id", "species_ids", "Usage", "Public")
        kit_s = {k: [] for k in KINDS}
        peer_s = {k: [] for k in KINDS}
        kit_cpu = {k: [] for k in KINDS}
        peer_cpu = {k: [] for k in KINDS}
        values = {}
        for _ in range(args.repeat):
            for kind in KINDS:
                c0, t0 = time.thread_time(), time.perf_counter()
                report = grader.score(uploads[kind])
                kit_s[kind].append(time.perf_counter() - t0)
                kit_cpu[kind].append(time.thread_time() - c0)
                c0, t0 = time.thread_time(), time.perf_counter()
                peer = plain_f1.transect_f1(truth, uploads[kind], ",", "quadrat_id", "species_ids")
                peer_s[kind].append(time.perf_counter() - t0)
                peer_cpu[kind].append(time.thread_time() - c0)
                assert report.status == "scored", report.errors
                values[kind] = (report.metrics.public["transect_f1"], peer)
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(f"2,105 real PlantCLEF 2025 ids; {cpus} CPUs; Python {sys.version.split()[0]}, numpy {np.__version__}; "
              f"medians of {args.repeat}, taken in turn")
        print("kit: Grader.score (limits=False, reveal_private=True: strict validation, every metric, both splits); "
              "peer: benchmarks/peers/plain_f1.py (csv + sets, public transect F1 only)")
        print(f"{'upload':8} {'kit ms':>8} {'peer ms':>8} {'kit/peer':>9} {'CPU ratio':>9}  "
              "transect F1 public: kit / peer")
        worst = 0.0
        for kind in KINDS:
            k, p = statistics.median(kit_s[kind]), statistics.median(peer_s[kind])
            cpu = statistics.median(kit_cpu[kind]) / statistics.median(peer_cpu[kind])
            worst = max(worst, k / p)
            kv, pv = values[kind]
            assert abs(kv - pv) < 1e-9, (kind, kv, pv)
            print(f"{kind:8} {k * 1e3:8.2f} {p * 1e3:8.2f} {k / p:8.2f}x {cpu:8.2f}x  {kv:.12f} / {pv:.12f}")
        slowest = max(statistics.median(v) for v in kit_s.values())
        print(f"worst kit/peer {worst:.2f}x (target <= 1.0: {'met' if worst <= 1.0 else 'NOT MET'}); "
              f"10,000 uploads at the slowest kind's {slowest * 1e3:.1f} ms: {10_000 * slowest:.0f} s on one core, "
              f"{10_000 * slowest / 2:.0f} s on 2 workers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
