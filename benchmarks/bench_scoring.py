"""Scoring speed: the kit against the peers a user would reach for, on every dialect PlantCLEF files come in.

    python benchmarks/bench_scoring.py [--rows 200000] [--repeat 3] [--fresh-repeat 5] [--dialects NAME ...]
                                       [--warm-n 300] [--baseline CHECKOUT]

(needs the ``bench`` extra for the polars and duckdb peers, and the ``test`` extra for scikit-learn)

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

In one process, best of ``--repeat``:
  kit:        ``agrieval.scoring.runtime.scorer.score_file(..., reveal_private=True)``: load and check the
              solution, read and check the submission, every metric on both splits
  reference:  benchmarks/peers/pandas_f1.py: pandas.read_csv (both files) + merge on the id +
              ast.literal_eval + MultiLabelBinarizer(sparse_output=True) + sklearn
              f1_score(average="samples") on the public and on the private rows

In fresh processes, the median of ``--fresh-repeat`` runs (the scorers taken in turn, so that a busy
moment of the machine falls on all of them), each given the same two files:
  kit:        ``agrieval score SUB -s SOL -c big.json --json --reveal-private``, where big.json is the
              shipped TOML definition with room for the stress case (1,000,000 rows, 500 MB), frozen by
              ``agrieval competitions freeze`` as an organiser does for a grading server
  kit toml:   the same with ``-c big.toml``, the TOML itself, as a participant passes their own definition:
              read and validated on every run (the fixed cost of imports plus a TOML definition)
  polars:     benchmarks/peers/polars_f1.py: scan_csv, str.extract_all, list.set_intersection, sample F1
  duckdb:     benchmarks/peers/duckdb_f1.py: read_csv, regexp_extract_all, list_intersect, sample F1
  pandas:     benchmarks/peers/pandas_f1.py (one run: it takes seconds)
The peers check nothing and compute the sample F1 only. Every public and private sample F1 must agree
with the kit's to 1e-9. Then one more run of each (pandas' aside) gives its peak resident memory
(``ru_maxrss`` from ``os.wait4``, interpreter and imports included, the process spawned from a small
interpreter), beside the two files' size.

Then, on the real 2,105-row case (a real submission from tests/fixtures/real/ against a solution
built from its ids): a fresh ``agrieval score`` process (wall time; with ``--baseline CHECKOUT``, the
same command run from another checkout of the project, such as an older commit, taken in turn with
this one), and the warm path (``agrieval.scoring.runtime.warm.Grader``: the solution loaded once, then
submissions scored one after the other, as ``agrieval leaderboard`` does).

The kit is numpy only, as the grading platforms run it (``scoring/runtime``). Targets at 200,000 rows, in
fresh processes on every dialect: the kit (frozen and TOML) at least as fast as polars (>= 1.0x) and >= 20x pandas, its
peak resident memory at most 3x the two files; the
in-process and duckdb ratios are shown, not judged. On the real case: a fresh process no slower than
the baseline checkout's (when given) and < 0.3 s; warm >= 250 submissions/s. Every F1 within 1e-9.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from agrieval.scoring.cli._failures import exit_unless_installed

# The reference pipeline is pandas + scikit-learn (the `test` extra); the peers polars and duckdb (`bench`).
exit_unless_installed("python benchmarks/bench_scoring.py", "pandas", "sklearn", "polars", "duckdb")

REPO = Path(__file__).resolve().parents[1]
PEERS = Path(__file__).resolve().parent / "peers"
sys.path.insert(0, str(PEERS))
import pandas_f1  # noqa: E402 (the reference, in one process and as a script)

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
    from agrieval.scoring.runtime.definition import load_definition

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
    from agrieval.scoring.runtime.definition import load_definition

    d = load_definition(competition)
    return replace(d, limits=replace(d.limits, max_rows=1_000_000, max_bytes=500_000_000))


def kit(sol: Path, sub: Path, d) -> tuple[float, float]:
    from agrieval.scoring.runtime.scorer import score_file

    report = score_file(sub, sol, d, reveal_private=True)
    assert report.status == "scored", report.errors
    return report.metrics.public["sample_f1"], report.metrics.private["sample_f1"]


def peer_args(sol: Path, sub: Path, d) -> list[str]:
    """The command-line arguments every peer script takes."""
    return [str(sol), str(sub), d.delimiter, d.id_column, d.prediction_column, d.split.column]


def by_split(values: dict, d) -> tuple[float, float]:
    """(public, private) from a peer's {split value: F1}."""
    return values[d.split.public], values[d.split.private]


def reference(sol: Path, sub: Path, d) -> tuple[float, float]:
    return by_split(pandas_f1.sample_f1(*peer_args(sol, sub, d)), d)


def big_definition(competition: str, folder: Path) -> tuple[Path, Path]:
    """The shipped TOML definition with room for the stress case, as an organiser writes their own (limits
    raised, the vocabulary file beside it), and that TOML frozen to JSON as for a grading server."""
    import re
    import shutil

    from agrieval.scoring.authoring.definitions import TOML_DIR
    from agrieval.scoring.runtime.definition import load_definition

    text = (TOML_DIR / f"{competition}.toml").read_text(encoding="utf-8")
    for key, value in (("max_bytes", "500_000_000"), ("max_rows", "1_000_000"), ("max_unzipped_bytes", "500_000_000")):
        text, n = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        assert n == 1, key
    out = folder / f"big_{competition}.toml"
    out.write_text(text, encoding="utf-8")
    vocabulary = re.search(r'(?m)^vocabulary_file = "(.*)"', text)
    if vocabulary:
        shutil.copy(TOML_DIR / vocabulary.group(1), folder / vocabulary.group(1))
    frozen = out.with_suffix(".json")
    subprocess.run([str(Path(sys.executable).with_name("agrieval")), "competitions", "freeze", str(out), "-o",
                    str(frozen)], check=True, capture_output=True)
    assert load_definition(str(frozen)).limits.max_rows == 1_000_000
    return frozen, out


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_json(cmd: list[str], env: dict) -> tuple[float, float, dict]:
    """Wall and CPU time (user + system, all its threads) of one process, and the JSON it printed."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return wall, cpu, json.loads(done.stdout)


# Started from a small interpreter: a child's ru_maxrss starts at the high-water mark of the process it was
# spawned from (Linux keeps it across exec), which for this benchmark, holding pandas and the files' rows, is
# several hundred MB.
_PEAK = ("import os, sys; pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, "
         "file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]); _, status, usage = os.wait4(pid, 0); "
         "print(usage.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 else -1)")


def peak_rss(cmd: list[str], env: dict) -> float:
    """Peak resident memory (MB) of one run of ``cmd`` (``ru_maxrss``, in KiB on Linux)."""
    done = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, text=True, env=env, check=True)
    kib = int(done.stdout.strip())
    if kib < 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    return kib * 1024 / 1e6


def fresh_scorers(sol: Path, sub: Path, d, frozen: tuple[Path, Path]) -> dict[str, list[str]]:
    agrieval = str(Path(sys.executable).with_name("agrieval"))
    args = peer_args(sol, sub, d)
    kit = [agrieval, "score", str(sub), "--solution", str(sol), "--json", "--reveal-private", "--competition"]
    return {
        "kit": [*kit, str(frozen[0])],
        "kit toml": [*kit, str(frozen[1])],
        "polars": [sys.executable, str(PEERS / "polars_f1.py"), *args],
        "duckdb": [sys.executable, str(PEERS / "duckdb_f1.py"), *args],
        "pandas": [sys.executable, str(PEERS / "pandas_f1.py"), *args],
    }


def fresh_values(name: str, out: dict, d) -> tuple[float, float]:
    if name.startswith("kit"):
        assert out["status"] == "scored", out["errors"]
        return out["metrics"]["public"]["sample_f1"], out["metrics"]["private"]["sample_f1"]
    return by_split(out, d)


def fresh_compare(sol: Path, sub: Path, d, frozen: tuple[Path, Path], repeat: int, env: dict
                  ) -> tuple[dict[str, float], dict[str, float], dict[str, float], dict[str, tuple[float, float]]]:
    """Median wall and CPU time of each scorer in fresh processes (pandas once), the peak resident memory of
    one more run of each (pandas' not taken), the F1s."""
    cmds = fresh_scorers(sol, sub, d, frozen)
    run_json(cmds["kit toml"], env)  # untimed: the kit's bytecode compiled and cached, as for an installed package
    values = {}
    walls: dict[str, list[float]] = {name: [] for name in cmds}
    cpus: dict[str, list[float]] = {name: [] for name in cmds}
    for k in range(repeat):
        for name in cmds:
            if name == "pandas" and k:
                continue
            wall, cpu, out = run_json(cmds[name], env)
            walls[name].append(wall)
            cpus[name].append(cpu)
            values[name] = fresh_values(name, out, d)
    median = lambda runs: {name: float(np.median(v)) for name, v in runs.items()}  # noqa: E731
    # one more run of each (pandas' peak is not taken: seconds more for a peer that is not judged on memory)
    peaks = {name: peak_rss(cmd, env) for name, cmd in cmds.items() if name != "pandas"}
    return median(walls), median(cpus), peaks, values


def _cpus() -> int:
    """CPUs this process may run on (its affinity, as in a container)."""
    from agrieval.data_tools._parallel import default_workers

    return default_workers()


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


def fresh_process(sol: Path, sub: Path, repeat: int, envs: dict[str, dict]) -> dict[str, float]:
    """Best wall time of a fresh ``agrieval score`` process with each environment (a checkout on PYTHONPATH),
    the environments taken in turn."""
    agrieval = Path(sys.executable).with_name("agrieval")
    cmd = [str(agrieval), "score", str(sub), "--solution", str(sol), "--competition", "plantclef2025"]
    for env in envs.values():
        subprocess.run(cmd, check=True, capture_output=True, env=env)  # untimed: bytecode compiled
    walls: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(repeat):
        for name, env in envs.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env)
            walls[name].append(time.perf_counter() - t0)
    return {name: min(w) for name, w in walls.items()}


def warm_throughput(sol: Path, subs: list[Path], n: int, *, limits: bool = False) -> tuple[float, float]:
    """Submissions per second through one ``Grader``, and the time to load it.

    ``limits=False``: the warm path's own cost, in this process; ``limits=True`` (``Grader``'s default) adds a
    forked child per submission for the competition's time and memory limits."""
    from agrieval.scoring.runtime.warm import Grader

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
    ap.add_argument("--repeat", type=int, default=3, help="in-process runs of each scorer (best taken)")
    ap.add_argument("--fresh-repeat", type=int, default=5, help="fresh-process runs of each scorer (median taken)")
    ap.add_argument("--dialects", nargs="+", default=sorted(DIALECTS), choices=sorted(DIALECTS))
    ap.add_argument("--warm-n", type=int, default=300, help="submissions scored for the warm throughput")
    ap.add_argument("--baseline", type=Path, help="another checkout of the project (e.g. `git worktree add "
                    "/tmp/base COMMIT`): its fresh `agrieval score` on the real case is timed beside this one's")
    args = ap.parse_args()
    ok = True
    judged = args.rows >= 200_000
    ratios, fresh_rows = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # the fresh processes: this checkout; Python's bytecode cached as for any installed package (a machine
        # may set PYTHONDONTWRITEBYTECODE, as ours does: the kit's modules, run from this checkout, would then
        # be compiled by every process while the peers' libraries come compiled by pip), in a folder of the
        # run's own
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        frozen = {c: big_definition(c, folder) for c in sorted({DIALECTS[n].competition for n in args.dialects})}
        print(f"{args.rows:,} rows; {_cpus()} CPUs; the kit with numpy only, as the grading platforms run it")
        print(f"in one process, best of {args.repeat}: kit, ref (pandas + ast + MultiLabelBinarizer + scikit-learn)")
        print(f"{'dialect':<16} {'MB':>5} {'kit s':>7} {'ref s':>7} {'ratio':>7}  "
              "sample F1 public, private: kit / reference")
        for name in args.dialects:
            dialect = DIALECTS[name]
            sol, sub = make_files(dialect, args.rows, folder, name)
            d = definition(dialect.competition)
            kit(sol, sub, d)  # warm imports and the vocabulary lookup
            t_kit, v_kit = best_of(kit, args.repeat, sol, sub, d)
            reference(sol, sub, d) if args.rows < 10_000 else None  # warm sklearn's imports
            t_ref, v_ref = best_of(reference, args.repeat, sol, sub, d)
            agree = max(abs(a - b) for a, b in zip(v_kit, v_ref)) <= 1e-9
            ok &= agree
            ratios[name] = t_ref / t_kit
            mb = (sol.stat().st_size + sub.stat().st_size) / 1e6
            print(f"{name:<16} {mb:>5.1f} {t_kit:>7.3f} {t_ref:>7.3f} {t_ref / t_kit:>6.1f}x  "
                  f"{v_kit[0]:.12f}, {v_kit[1]:.12f} / {v_ref[0]:.12f}, {v_ref[1]:.12f}"
                  f"{'' if agree else '  DISAGREE'}", flush=True)
            walls, cpus, peaks, values = fresh_compare(sol, sub, d, frozen[dialect.competition], args.fresh_repeat,
                                                       env)
            worst_gap = max(abs(a - b) for peer in values for a, b in zip(values[peer], v_kit))
            fresh_rows.append((name, walls, cpus, peaks, mb, worst_gap, t_kit))
            sol.unlink()
            sub.unlink()
        worst = min(ratios, key=ratios.get)
        print(f"worst dialect: {worst} {ratios[worst]:.1f}x (not judged: the targets are the fresh processes')")
        ok &= print_fresh(fresh_rows, args, judged)

        sol, subs = real_case(folder)
        envs = {"this checkout": env}
        if args.baseline:
            envs["baseline"] = {**env, "PYTHONPATH": str(args.baseline.resolve()),
                                "PYTHONPYCACHEPREFIX": str(folder / "pycache-baseline")}
        walls = fresh_process(sol, subs[0], 7, envs)
        wall = walls["this checkout"]
        base = walls.get("baseline")
        met = wall < 0.3 and (base is None or wall <= base * 1.05)  # (5%: two runs of one command differ so much)
        print(f"fresh process: agrieval score, real 2,105-row submission ({subs[0].name}): best of 7 "
              f"{wall:.3f} s wall" + (f", baseline {args.baseline} {base:.3f} s" if base is not None else "")
              + f" (target < 0.3 s{', no slower than the baseline' if base is not None else ''})"
              + ("" if met else "  ABOVE TARGET"))
        ok &= met
        rate, load = warm_throughput(sol, subs, args.warm_n)
        print(f"warm: Grader(limits=False) loaded in {load:.3f} s, then {rate:.0f} submissions/s of 2,105 rows "
              f"({args.warm_n} scored, the 3 real submissions in turn; target >= 250/s)"
              f"{'' if rate >= 250 else '  BELOW TARGET'}")
        limited, _ = warm_throughput(sol, subs, max(1, args.warm_n // 3), limits=True)
        print(f"warm with the competition's limits (the default: a forked child per submission): "
              f"{limited:.0f} submissions/s (not judged)")
        ok &= rate >= 250
    return 0 if ok else 1


def print_fresh(rows: list, args, judged: bool) -> bool:
    """The fresh-process table and its targets; True when every one is met (or not judged at this size)."""
    print(f"\nin fresh processes, median of {args.fresh_repeat} (pandas: 1 run); kit: agrieval score --json "
          "--reveal-private with a custom definition frozen to JSON; toml: the same with the TOML itself; "
          "peers: sample F1 only")
    print(f"{'dialect':<16} {'kit s':>6} {'toml s':>6} {'in-proc':>7} {'polars':>7} {'duckdb':>7} {'pandas':>7}  "
          f"{'polars/kit':>10} {'polars/toml':>11} {'duckdb/kit':>10} {'pandas/kit':>10}  F1 gap   "
          "CPU s: kit toml polars duckdb")
    ok = True
    memory = []
    for name, walls, cpus, peaks, mb, gap, in_process in rows:
        kit_s, toml_s = walls["kit"], walls["kit toml"]
        r = {peer: walls[peer] / kit_s for peer in ("polars", "duckdb", "pandas")}
        r_toml = walls["polars"] / toml_s
        met = (min(r["polars"], r_toml) >= 1.0 and walls["pandas"] / max(kit_s, toml_s) >= 20) or not judged
        agree = gap <= 1e-9
        ok &= met and agree
        print(f"{name:<16} {kit_s:>6.3f} {toml_s:>6.3f} {in_process:>7.3f} {walls['polars']:>7.3f} "
              f"{walls['duckdb']:>7.3f} {walls['pandas']:>7.2f}  {r['polars']:>9.2f}x {r_toml:>10.2f}x "
              f"{r['duckdb']:>9.2f}x {r['pandas']:>9.1f}x  {gap:.1e}  {cpus['kit']:>5.2f} {cpus['kit toml']:>5.2f} "
              f"{cpus['polars']:>5.2f} {cpus['duckdb']:>5.2f}"
              f"{'' if agree else '  DISAGREE'}{'' if met else '  BELOW TARGET'}", flush=True)
        memory.append((name, peaks, mb))
    print("targets in fresh processes (wall): kit and toml >= 1.0x polars, >= 20x pandas, on every dialect "
          "(duckdb shown)"
          f"{'' if judged else ' (not judged at this size)'}; CPU s: user + system time of all a process's threads "
          "(medians; on a busy machine the wall follows it)")
    print("\npeak resident memory (ru_maxrss of one more run of each, interpreter and imports included), MB and "
          "multiple of the two files")
    print(f"{'dialect':<16} {'files':>6} {'kit':>13} {'toml':>13} {'polars':>13} {'duckdb':>13}")
    for name, peaks, mb in memory:
        met = max(peaks["kit"], peaks["kit toml"]) <= 3 * mb or not judged
        ok &= met
        print(f"{name:<16} {mb:>6.1f} " + " ".join(f"{peaks[p]:>6.0f} {peaks[p] / mb:>4.1f}x" for p in
                                                     ("kit", "kit toml", "polars", "duckdb"))
              + ("" if met else "  BELOW TARGET"))
    print(f"target: the kit's peak <= 3x the two files{'' if judged else ' (not judged at this size)'}")
    return ok


if __name__ == "__main__":
    sys.exit(main())
