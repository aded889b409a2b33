"""The own server's store: one upload's bookkeeping and the per-team board, against their peers, in one run.

    python benchmarks/bench_store.py [--stored 100000] [--board-uploads 10000] [--repeats 5]

1. ``grade --store``: a store is filled with ``--stored`` scored uploads (100 teams, rows written directly,
   as the store's own transactions would), then the reference upload ``partial.csv`` is graded through it
   (``intake.grade_stored``: two transactions around the grading) against ``runtime.guard.grade`` of the same
   bytes without a store, both in this process, alternating, best of ``--repeats``. Target: within 1.2x.
2. ``server board``: the per-team board (rule ``selected``, private) of ``--board-uploads`` uploads read from
   the store (``boards.store_board``) against the former path, reading the same uploads from a ``log.csv``
   (``submission_log.read_log``, kept for ``server import``) and ranking them with the same
   ``team_board``. Target: within 1.0x.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agrieval.scoring._server import intake  # noqa: E402
from agrieval.scoring._server.boards import store_board, store_rows  # noqa: E402
from agrieval.scoring._server.limits import SubmissionLimits  # noqa: E402
from agrieval.scoring._server.settings import load_competition as load_stored  # noqa: E402
from agrieval.scoring._server.settings import new_settings, write_settings  # noqa: E402
from agrieval.scoring._server.store import create_store, open_store  # noqa: E402
from agrieval.scoring._server.submission_log import COLUMNS, read_log  # noqa: E402
from agrieval.scoring._server.team_board import team_board  # noqa: E402
from agrieval.scoring._server.timeline import Timeline, utc_text  # noqa: E402
from agrieval.scoring.authoring.definitions import load_competition  # noqa: E402
from agrieval.scoring.runtime.guard import grade  # noqa: E402
from agrieval.scoring.text.tables import csv_text  # noqa: E402

REF = REPO / "reference_submissions" / "plantclef2025"
T0 = dt.datetime(2026, 5, 1, tzinfo=dt.timezone.utc)


def filled(path: Path, n: int, teams: int = 100):
    store = create_store(path)
    write_settings(store, new_settings("plantclef2025", str(REF / "solution.csv"), SubmissionLimits(per_day=1000),
                                       Timeline(), 2, False), T0)
    rng = random.Random(0)
    with store.immediate() as conn:
        conn.executemany("INSERT INTO teams (name) VALUES (?)", [(f"team{t:03d}",) for t in range(teams)])
        for i in range(n):
            team = f"team{i % teams:03d}"
            at = utc_text(T0 + dt.timedelta(seconds=30 * i))
            uid = conn.execute("INSERT INTO uploads (team, submitted_at, name, status, number) VALUES (?, ?, ?, "
                               "'scored', ?)", (team, at, b"u.csv", i // teams + 1)).lastrowid
            pub, priv = rng.random(), rng.random()
            conn.execute("INSERT INTO scores (upload, version, public, private, shown) VALUES (?, 1, ?, ?, ?)",
                         (uid, pub, priv, pub))
    store.close()
    return open_store(path)


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stored", type=int, default=100_000)
    ap.add_argument("--board-uploads", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {platform.system()}")
    definition = load_competition("plantclef2025")
    data = (REF / "submissions" / "partial.csv").read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        store = filled(Path(tmp) / "big.db", args.stored)
        comp = load_stored(store)
        now = [T0 + dt.timedelta(days=400)]

        def through_store():
            now[0] += dt.timedelta(seconds=1)
            assert intake.grade_stored(store, data, "p.csv", "team000", now=now[0], competition=comp).status == "scored"

        def alone():
            assert grade(data, comp.solution, definition, filename="p.csv").status == "scored"

        alone()
        through_store()  # (warm both)
        t_alone, t_store = best_of(alone, args.repeats), best_of(through_store, args.repeats)
        print(f"grade, {args.stored:,} stored uploads: --store {t_store * 1000:.1f} ms, without {t_alone * 1000:.1f} ms, "
              f"ratio {t_store / t_alone:.2f} (target <= 1.2)")

        small = filled(Path(tmp) / "board.db", args.board_uploads)
        log = Path(tmp) / "log.csv"
        rows = store_rows(small)
        log.write_text(csv_text(COLUMNS, [r.cells() for r in rows]))  # the former log of the same uploads
        t_log = best_of(lambda: team_board(read_log(log), definition, rule="selected", reveal_private=True),
                        args.repeats)
        t_db = best_of(lambda: store_board(small, definition, "selected", reveal_private=True), args.repeats)
        print(f"per-team board, {args.board_uploads:,} uploads: store {t_db * 1000:.1f} ms, former log "
              f"{t_log * 1000:.1f} ms, ratio {t_db / t_log:.2f} (target <= 1.0)")


if __name__ == "__main__":
    main()
