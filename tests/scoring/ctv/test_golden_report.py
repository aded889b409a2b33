"""`agrieval ctv report` writes the same bytes as before the record-table refactor (issue 58): every text output
(CSV, JSON, report.md, report.html, the command's stdout) of the examples' runs and of a generated 3-seed study
with held-out runs, under the flags that change outputs, against the SHA-256 recorded in
tests/fixtures/golden/ctv_report.json. Figures are compared by the numbers they draw (the CSV files beside them)
and their names, not their PNG bytes (the rasteriser's version decides those).

After an intended change of an output: ``python -m tests.scoring.ctv.test_golden_report`` rewrites the file; say in
the commit which outputs changed and why."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from tests.scoring.ctv.golden_trees import write_study

REPO = Path(__file__).resolve().parents[3]
GOLDEN_FILE = REPO / "tests" / "fixtures" / "golden" / "ctv_report.json"
EXAMPLES = "examples/ctv/runs"
# name -> (the tree, the command's arguments after `ctv report`); paths are relative to a scratch folder, so that
# the paths the report prints are the same on every machine
CASES = {
    "examples": ("examples", [EXAMPLES]),
    "examples_std": ("examples", [EXAMPLES, "--spread", "std"]),
    "examples_ddof1_digits3": ("examples", [EXAMPLES, "--ddof", "1", "--digits", "3", "--threshold", "60"]),
    "examples_plots": ("examples", [EXAMPLES, "--plots"]),
    "seeds3": ("study", ["runs"]),
    "seeds3_ci95": ("study", ["runs", "--spread", "ci95", "--ddof", "0"]),
    "seeds3_lodo": ("study", ["runs", "--lodo", "lodo"]),
    "seeds3_lodo_plots_std": ("study", ["runs", "--lodo", "lodo", "--plots", "--spread", "std"]),
}


def _env() -> dict:
    return {"numpy": np.__version__, "scipy": scipy.__version__, "pandas": pd.__version__}


def _tree(kind: str, where: Path) -> None:
    if kind == "examples":
        shutil.copytree(REPO / EXAMPLES, where / EXAMPLES)
    else:
        write_study(where)


def _hashes(args: list, where: Path) -> dict:
    """Run the command in ``where``; {output file or <stdout>: its SHA-256, or 'figure' for a figure}."""
    old = os.getcwd()
    os.chdir(where)
    try:
        result = CliRunner().invoke(cli, ["ctv", "report", *args, "--out", "out"], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    out = {"<stdout>": hashlib.sha256(result.stdout.encode()).hexdigest()}
    for f in sorted((where / "out").rglob("*")):
        if f.is_file():
            name = f.relative_to(where / "out").as_posix()
            out[name] = "figure" if name.startswith("plots/") else hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def _record(scratch: Path) -> dict:
    cases = {}
    for name, (kind, args) in CASES.items():
        where = scratch / name
        where.mkdir()
        _tree(kind, where)
        cases[name] = _hashes(args, where)
    return {"env": _env(), "cases": cases}


GOLDEN = json.loads(GOLDEN_FILE.read_text()) if GOLDEN_FILE.exists() else {"env": {}, "cases": {}}


@pytest.mark.skipif(GOLDEN["env"] != _env(), reason="golden hashes were recorded with other numpy/scipy/pandas "
                    "(the last bits of a float may differ)")
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_report_writes_the_recorded_bytes(name, tmp_path):
    kind, args = CASES[name]
    _tree(kind, tmp_path)
    got = _hashes(args, tmp_path)
    want = GOLDEN["cases"][name]
    differ = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    assert not differ, f"{name}: these outputs changed: {differ}"


def test_the_cases_cover_every_output_changing_flag():
    """Each flag that changes an output is in some case (a new one belongs here too)."""
    used = {a for _, args in CASES.values() for a in args if a.startswith("--")}
    assert used >= {"--spread", "--ddof", "--digits", "--threshold", "--plots", "--lodo"}
    assert set(GOLDEN["cases"]) == set(CASES)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN_FILE.write_text(json.dumps(_record(Path(tmp)), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN_FILE}", file=sys.stderr)
