"""A static analyser follows the editable install of a fresh clone: mypy, run on a file that imports ``agrieval.*``
against the venv `make demo` made in a fresh clone, resolves the names to their definitions,
a module added to the clone after the install included (no reinstall), and Python imports the same files."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """\
from agrieval.scoring.runtime.scorer import score_file
from agrieval.scoring.runtime import added_after_install
reveal_type(score_file)
reveal_type(added_after_install.ADDED)
"""


@pytest.mark.slow
def test_mypy_resolves_agrieval_names_in_a_fresh_clone(demo_clone, scoring_venv, tmp_path):
    clone = demo_clone.path
    added = clone / "scoring" / "runtime" / "added_after_install.py"
    added.write_text('ADDED = "yes"\n')
    try:
        probe = tmp_path / "probe.py"
        probe.write_text(PROBE)
        res = subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(scoring_venv / "python"),
                              "--no-incremental", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
                              probe.name], capture_output=True, text=True, cwd=tmp_path, timeout=300)
        out = res.stdout + res.stderr
        assert "Cannot find implementation or library stub" not in out and "import-untyped" not in out, out
        assert res.returncode == 0, out
        revealed = [line.split('Revealed type is "', 1)[1].rstrip('"') for line in out.splitlines()
                    if "Revealed type is" in line]
        assert len(revealed) == 2, out
        # the function itself, with its signature (a name an analyser cannot follow reveals "Any")
        assert revealed[0].startswith("def (") and "ScoreReport" in revealed[0], revealed
        assert revealed[1] in ("str", "builtins.str"), revealed
        # Python imports the clone's files, the module added after the install too.
        where = subprocess.run([str(scoring_venv / "python"), "-c",
                                "from pathlib import Path; from agrieval.scoring.runtime import scorer, "
                                "added_after_install as a; print(Path(scorer.__file__).resolve()); print(a.ADDED)"],
                               capture_output=True, text=True, cwd=tmp_path, timeout=60)
        assert where.stdout.splitlines() == [str(clone.resolve() / "scoring" / "runtime" / "scorer.py"), "yes"], \
            where.stderr
    finally:
        added.unlink()
