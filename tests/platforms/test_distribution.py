"""The distribution organizers `pip install`: a wheel and an sdist that carry the runtime and install on Python 3.8."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from platform_pythons import python

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    res = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return out


@pytest.mark.slow
def test_wheel_and_sdist_contents(dist):
    wheel = next(dist.glob("agrieval-*-py3-none-any.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("scoring/runtime/guard.py", "scoring/runtime/platforms/kaggle.py",
                   "scoring/runtime/competitions/plantclef2025.json", "scoring/competitions/plantclef2025.toml",
                   "scoring/competitions/plantclef_species.txt", "scoring/authoring/bundles/codabench.py",
                   "scoring/cli/failures.py", "data_tools/class_map.toml", "baselines/ctv/runner.py"):
        assert f"agrieval/{needed}" in names, needed  # (the one import namespace: agrieval.scoring, ...)
    assert not any(n.startswith(("tests/", "benchmarks/", "reference_submissions/")) for n in names)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    metadata = zipfile.ZipFile(wheel).read(meta).decode()
    assert "Requires-Python: >=3.8" in metadata
    assert "Requires-Dist: tomli>=1.1; python_version < \"3.11\"" in metadata
    assert "Provides-Extra: baselines" in metadata
    sdist = next(dist.glob("agrieval-*.tar.gz"))
    members = {m.split("/", 1)[1] for m in tarfile.open(sdist).getnames() if "/" in m}
    assert {"pyproject.toml", "README.md", "scoring/runtime/definition.py"} <= members


@pytest.mark.slow
def test_the_installed_wheel_grades_under_python_3_8_with_numpy_only(dist, tmp_path):
    wheel = next(dist.glob("agrieval-*-py3-none-any.whl"))
    py38 = python("py3.8-numpy1.21")
    target = tmp_path / "site"
    res = subprocess.run([py38, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    solution = REPO / "reference_submissions" / "plantclef2025" / "solution.csv"
    sub = REPO / "reference_submissions" / "plantclef2025" / "submissions" / "perfect.csv"
    code = (f"import agrieval.scoring.runtime.guard as g; r = g.grade({str(sub)!r}, {str(solution)!r}, 'plantclef2025'); "
            "print(g.__file__); print(r.status, r.primary)")
    res = subprocess.run([py38, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env={"PYTHONPATH": str(target)})
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [str(target / "scoring" / "runtime" / "guard.py"), "scored 1.0"]
