"""`python examples/ctv/make_examples.py` says what it wrote, and writes the shipped examples byte for byte."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples" / "ctv"


def test_make_examples_prints_what_it_wrote_and_reproduces_the_shipped_files(tmp_path):
    copy = tmp_path / "examples" / "ctv"
    copy.mkdir(parents=True)
    shutil.copy(EXAMPLES / "make_examples.py", copy)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, str(copy / "make_examples.py")], capture_output=True, text=True,
                         env=env, timeout=300, check=True)
    assert out.stdout.startswith("wrote ") and "RESULTS.csv" in out.stdout
    made = sorted(p.relative_to(copy) for p in copy.rglob("*") if p.is_file() and p.suffix in (".csv", ".json"))
    shipped = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*") if p.is_file() and p.suffix in (".csv", ".json"))
    assert made == shipped and f"wrote {len(made)} files" in out.stdout
    assert all((copy / p).read_bytes() == (EXAMPLES / p).read_bytes() for p in made)
