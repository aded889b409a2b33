"""The distribution users `pip install`: one import namespace (``agrieval.*``, nothing generic at the top of
site-packages), a wheel and an sdist that carry the runtime and the licence, install into a fresh virtual
environment and run the command there, and grade on Python 3.8 with numpy only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tests.platform_pythons import python

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    res = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    # what `make demo`'s pip install would print: no setuptools banner
    assert "Warning" not in res.stderr and "Package would be ignored" not in res.stdout + res.stderr, res.stderr[-3000:]
    return out


@pytest.mark.slow
def test_wheel_and_sdist_contents(dist):
    wheel = next(dist.glob("agrieval-*-py3-none-any.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("scoring/runtime/guard.py", "scoring/runtime/_platforms/kaggle.py",
                   "scoring/runtime/competitions/plantclef2025.json", "scoring/competitions/plantclef2025.toml",
                   "scoring/competitions/plantclef_species.txt", "scoring/authoring/_bundles/codabench.py",
                   "data_tools/class_map.toml", "baselines/ctv/runner.py",
                   # the templates of the bundles' prose and of the job scripts (package data)
                   "scoring/authoring/_bundles/templates/codabench_readme.md.tmpl",
                   "baselines/templates/ctv_array.sh.tmpl"):
        assert "agrieval/" + needed in names, needed
    # One namespace: every file is under agrieval/ or the dist-info folder; agrieval/ itself has no __init__
    # (an implicit namespace package holding scoring, data_tools and baselines).
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"agrieval", wheel.name.split("-py3")[0] + ".dist-info"}, tops
    assert "agrieval/__init__.py" not in names
    assert {n.split("/")[1] for n in names if n.startswith("agrieval/")} == {"scoring", "data_tools", "baselines"}
    licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert licence and b"MIT License" in zipfile.ZipFile(wheel).read(licence[0])
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    metadata = zipfile.ZipFile(wheel).read(meta).decode()
    assert "Requires-Python: >=3.8" in metadata
    assert "Requires-Dist: tomli>=1.1; python_version < \"3.11\"" in metadata
    assert "Provides-Extra: baselines" in metadata
    sdist = next(dist.glob("agrieval-*.tar.gz"))
    members = {m.split("/", 1)[1] for m in tarfile.open(sdist).getnames() if "/" in m}
    assert {"pyproject.toml", "README.md", "LICENSE", "scoring/runtime/definition.py"} <= members


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
    assert res.stdout.splitlines() == [str(target / "agrieval" / "scoring" / "runtime" / "guard.py"), "scored 1.0"]


def _declared_packages() -> list[str]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]


def test_pyproject_lists_every_package_folder_under_the_namespace():
    """pyproject.toml lists the packages by hand (the package-dir mapping needs it): a folder with an
    ``__init__.py`` that the list forgets would be missing from the wheel."""
    on_disk = sorted("agrieval." + ".".join(p.parent.relative_to(REPO).parts)
                     for top in ("scoring", "data_tools", "baselines") for p in (REPO / top).rglob("__init__.py")
                     if "__pycache__" not in p.parts)
    # the data-only folders the wheel carries (no __init__.py): declared too, or setuptools prints its
    # "Package would be ignored" banner at every install (make demo)
    data = sorted("agrieval." + ".".join(d.relative_to(REPO).parts)
                  for top in ("scoring", "data_tools", "baselines") for name in ("competitions", "templates")
                  for d in (REPO / top).rglob(name) if d.is_dir() and not (d / "__init__.py").exists())
    assert data == ["agrieval.baselines.templates", "agrieval.scoring.authoring._bundles.templates",
                    "agrieval.scoring.competitions", "agrieval.scoring.runtime.competitions"]
    assert sorted(_declared_packages()) == sorted(on_disk + data)


@pytest.mark.slow
def test_the_wheel_installs_into_a_fresh_venv_with_nothing_generic_at_the_top(dist, tmp_path):
    """The wheel with its dependencies in a new virtual environment: the command runs from an empty folder
    (no checkout on the path), the code comes from site-packages, and `scoring`, `baselines`, `data_tools`
    are not importable names there."""
    wheel = next(dist.glob("agrieval-*-py3-none-any.whl"))
    root = tmp_path / "venv"
    venv.create(root, with_pip=False)
    py = root / "bin" / "python"
    # this venv's pip installs into the new one (pip --python): no pip of its own to set up, and no bytecode
    # compiled ahead for the dependencies (most of the install's CPU: python compiles what it imports)
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-compile",
                          "-c", str(REPO / "constraints.txt"), str(wheel)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    work = tmp_path / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True, env=env).stdout.strip())
    for generic in ("scoring", "baselines", "data_tools"):
        assert not (site / generic).exists() and not (site / f"{generic}.py").exists(), generic
        gone = subprocess.run([str(py), "-c", f"import {generic}"], capture_output=True, text=True, cwd=work, env=env)
        assert gone.returncode != 0 and "ModuleNotFoundError" in gone.stderr, generic
    where = subprocess.run([str(py), "-c", "import agrieval.scoring.cli.main as m; print(m.__file__)"],
                           capture_output=True, text=True, cwd=work, env=env)
    assert where.stdout.strip() == str(site / "agrieval" / "scoring" / "cli" / "main.py"), where.stderr
    ref = REPO / "reference_submissions" / "plantclef2025"
    cli = root / "bin" / "agrieval"
    assert subprocess.run([str(cli), "--help"], capture_output=True, cwd=work, env=env).returncode == 0
    scored = subprocess.run([str(cli), "score", str(ref / "submissions" / "perfect.csv"), "-s", str(ref / "solution.csv"),
                             "-c", "plantclef2025", "--json"], capture_output=True, text=True, cwd=work, env=env)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["status"] == "scored"
    # Package data found through the namespace (a resource looked up under a bare name would fail here).
    classes = subprocess.run([str(py), "-c", "from agrieval.data_tools.classes import load_class_map; "
                              "print(len(load_class_map().classes))"], capture_output=True, text=True, cwd=work, env=env)
    assert classes.returncode == 0 and int(classes.stdout) == 6, classes.stderr


@pytest.mark.slow
def test_make_demo_installs_without_a_banner(tmp_path):
    """`make demo`'s install line, as make runs it (dependencies left out: the banner is the build's), prints
    nothing: neither setuptools' "Package would be ignored" nor its editable-installation notice."""
    venv = tmp_path / "v"
    plan = subprocess.run(["make", "-n", "-W", "pyproject.toml", f"VENV={venv}", f"{venv}/.agrieval-scoring"],
                          cwd=REPO, capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    (install,) = [line for line in plan if "-e ." in line]
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    res = subprocess.run(install + " --no-deps", shell=True, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout + res.stderr == "", res.stderr[-3000:]
