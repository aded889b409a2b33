"""``server rescore`` of real-size uploads, against serial in-process scoring of the same uploads, in one run.

    python benchmarks/bench_server_rescore.py [--uploads 10000] [--distinct 400] [--jobs N]

No PlantCLEF ground truth is public, so one real submission plays the solution (as in tests/fixtures/real/README.md):
its 2,105 quadrat ids and species lists, each id public or private by a seeded draw. The uploads are varied as
participants' are: the three real PlantCLEF 2025 submissions, each edited by a seeded draw (species dropped, added
from the vocabulary, rows reordered), written in the quoting and line ends seen on the platforms, a few zipped and
a few malformed (rejected); ``--distinct`` different files, cycled over ``--uploads`` rows of 100 teams (the store
keeps identical bytes once, as it does for a team that re-uploads a file). Rows are written straight into the
store, as its own transactions would.

1. ``rescore`` (``scoring/_server/rescore.py``, the process pool of ``--jobs`` workers, default the machine's
   cores; the new version written and every rank change listed), timed whole. Target (issue 54): <= 60 s for
   10,000 uploads on the 2-core VM.
2. The peer: the same uploads scored one after another in this process (``rescore``'s own worker function, no
   pool, no store writes, no ranks): what the pool must beat.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import os
import platform
import random
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agrieval.scoring._server import rescore as rescore_module  # noqa: E402
from agrieval.scoring._server.limits import SubmissionLimits  # noqa: E402
from agrieval.scoring._server.settings import load_competition as load_stored  # noqa: E402
from agrieval.scoring._server.settings import new_settings, write_settings  # noqa: E402
from agrieval.scoring._server.store import create_store, open_store  # noqa: E402
from agrieval.scoring._server.timeline import Timeline, utc_text  # noqa: E402

REAL = REPO / "tests" / "fixtures" / "real"
BASES = ["plantclef2025_submission_topk5.csv", "plantclef2025_submission_vote_k5.csv",
         "plantclef2025_submission_tiling_quadrat.csv"]
T0 = dt.datetime(2026, 5, 1, tzinfo=dt.timezone.utc)


def _rows(name: str) -> list:
    with open(REAL / name, newline="") as fh:
        return list(csv.reader(fh))[1:]


def solution_text(rng: random.Random) -> str:
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(["quadrat_id", "species_ids", "Usage"])
    for qid, species in _rows(BASES[2]):
        w.writerow([qid, species, "Public" if rng.random() < 0.5 else "Private"])
    return out.getvalue()


def variant(i: int, rng: random.Random, vocabulary: list) -> tuple:
    """``(file name, bytes)`` of one varied upload."""
    rows = _rows(BASES[i % len(BASES)])
    edited = []
    for qid, species in rows:
        ids = [s.strip() for s in species.strip("[]").split(",") if s.strip()]
        if ids and rng.random() < 0.3:
            ids.pop(rng.randrange(len(ids)))
        if rng.random() < 0.2:
            ids.append(str(rng.choice(vocabulary)))
        edited.append([qid, "[" + ", ".join(dict.fromkeys(ids)) + "]"])
    if i % 5 == 1:
        rng.shuffle(edited)
    if i % 50 == 7:
        edited = edited[:-3]  # rejected: ids missing
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL if i % 2 else csv.QUOTE_MINIMAL, lineterminator="\r\n" if i % 3 else "\n")
    w.writerow(["quadrat_id", "species_ids"])
    w.writerows(edited)
    data = out.getvalue().encode()
    if i % 25 == 3:
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("submission.csv", data)
        return f"run{i}.zip", packed.getvalue()
    return f"run{i}.csv", data


def filled(folder: Path, n: int, distinct: int, teams: int = 100):
    rng = random.Random(0)
    solution = folder / "solution.csv"
    solution.write_text(solution_text(rng))
    store = create_store(folder / "comp.db")
    write_settings(store, new_settings("plantclef2025", str(solution), SubmissionLimits(), Timeline(), 2, False), T0)
    from agrieval.scoring.authoring.definitions import load_competition

    vocabulary = sorted(load_competition("plantclef2025").labels)
    files = [variant(i, rng, vocabulary) for i in range(distinct)]
    digests = [store.keep_upload(data) for _, data in files]
    with store.immediate() as conn:
        conn.executemany("INSERT INTO teams (name) VALUES (?)", [(f"team{t:03d}",) for t in range(teams)])
        numbers: dict = {}
        for i in range(n):
            team, k = f"team{i % teams:03d}", i % distinct
            at = utc_text(T0 + dt.timedelta(seconds=30 * i))
            if k % 50 == 7:  # the malformed ones were rejected when they came
                conn.execute("INSERT INTO uploads (team, submitted_at, name, sha256, status, codes) VALUES "
                             "(?, ?, ?, ?, 'rejected', 'missing_ids')", (team, at, files[k][0].encode(), digests[k]))
                continue
            numbers[team] = numbers.get(team, 0) + 1
            uid = conn.execute("INSERT INTO uploads (team, submitted_at, name, sha256, status, number) VALUES "
                               "(?, ?, ?, ?, 'scored', ?)", (team, at, files[k][0].encode(), digests[k],
                                                             numbers[team])).lastrowid
            pub, priv = rng.random(), rng.random()
            conn.execute("INSERT INTO scores (upload, version, public, private, shown) VALUES (?, 1, ?, ?, ?)",
                         (uid, pub, priv, pub))
    store.close()
    return open_store(folder / "comp.db")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uploads", type=int, default=10_000)
    ap.add_argument("--distinct", type=int, default=400)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--skip-peer", action="store_true", help="Time the rescore only.")
    args = ap.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {platform.system()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        store = filled(Path(tmp), args.uploads, args.distinct)
        comp = load_stored(store)
        t = time.perf_counter()
        report = rescore_module.rescore(store, comp, jobs=args.jobs)
        t_pool = time.perf_counter() - t
        print(f"server rescore, {report['uploads']:,} uploads ({args.distinct} distinct files), {report['jobs']} "
              f"jobs: {t_pool:.1f} s ({t_pool / report['uploads'] * 1000:.2f} ms an upload; target <= 60 s); "
              f"{len(report['rank_changes'])} rank changes listed")
        if args.skip_peer:
            return
        work = [(uid, store.upload_path(sha), sha, os.fsdecode(bytes(name))) for uid, sha, name in store.conn.execute(
            "SELECT id, sha256, name FROM uploads WHERE status IN ('scored', 'rejected') ORDER BY id")]
        settings = comp.settings
        t = time.perf_counter()
        rescore_module._start(settings.definition, settings.solution, settings.ladder)
        for job in work:
            rescore_module._score(job)
        t_serial = time.perf_counter() - t
        print(f"peer, serial in-process scoring of the same uploads: {t_serial:.1f} s; rescore / peer "
              f"{t_pool / t_serial:.2f}")


if __name__ == "__main__":
    main()
