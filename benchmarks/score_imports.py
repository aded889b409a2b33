"""What a fresh ``agrieval score`` imports, and for how long (``python -X importtime``).

    python benchmarks/score_imports.py [--runs 7] [--checkout PATH]

Scores a reference submission with a custom TOML definition (a copy of the shipped
PlantCLEF 2025 one) in fresh processes, the console script's way
(``agrieval.scoring.cli.main.cli``, or ``agrieval.scoring.cli.entry.main`` in an older checkout that has it),
after one untimed warm-up run. Prints the
top-level imports (the least of ``--runs`` runs for each, in microseconds as
importtime reports them, shown in ms), their total, and whether click,
pydantic, pandas and zipfile were imported. ``--checkout``: score with another
checkout of the kit on PYTHONPATH (e.g. an older commit, for a before/after).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PC = REPO / "reference_submissions" / "plantclef2025"
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")
WATCHED = ("click", "pydantic", "pandas", "zipfile")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--checkout", type=Path, default=REPO)
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    checkout = args.checkout.resolve()
    entry = ("from agrieval.scoring.cli.entry import main" if (checkout / "scoring" / "cli" / "entry.py").exists()
             else "from agrieval.scoring.cli.main import cli as main")  # (entry.py: the plain path of older checkouts)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copy(checkout / "scoring" / "competitions" / "plantclef2025.toml", folder / "mine.toml")
        shutil.copy(checkout / "scoring" / "competitions" / "plantclef_species.txt", folder)
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        argv = ["score", str(PC / "submissions" / "partial.csv"), "-s", str(PC / "solution.csv"),
                "-c", str(folder / "mine.toml"), "--json"]
        code = f"import sys; sys.argv = ['agrieval', *sys.argv[1:]]; {entry}; main()"
        best: dict[str, int] = {}
        for k in range(args.runs + 1):
            done = subprocess.run([sys.executable, "-X", "importtime", "-c", code, *argv], capture_output=True,
                                  text=True, env=env, cwd=folder)
            if done.returncode != 0:
                print(done.stderr[-2000:], file=sys.stderr)
                return 1
            if k == 0:
                continue  # a warm-up (the bytecode of a fresh checkout)
            seen = {}
            for line in done.stderr.splitlines():
                m = LINE.match(line)
                if m and not m.group(3):
                    seen[m.group(4)] = int(m.group(2))
            for name, us in seen.items():
                best[name] = min(best.get(name, us), us)
            modules = {m.group(4).split(".")[0] for m in map(LINE.match, done.stderr.splitlines()) if m}
    print(f"checkout: {checkout}")
    print(f"top-level imports of a fresh `agrieval score ... -c mine.toml --json` (least of {args.runs} runs):")
    for name, us in sorted(best.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {us / 1000:7.1f} ms  {name}")
    print(f"  {sum(best.values()) / 1000:7.1f} ms  total")
    print("imported: " + ", ".join(f"{m} {'yes' if m in modules else 'no'}" for m in WATCHED))
    return 0


if __name__ == "__main__":
    sys.exit(main())
