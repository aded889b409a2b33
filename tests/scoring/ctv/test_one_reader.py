"""One reader of CTV runs (issue 58): ``scoring/ctv/run_set.py`` with ``runs.py`` and ``script_runs.py`` reads the
run folders, ``records.py`` flattens the runs into the record table, and every other module queries that table.
This test reads every module's syntax tree (``scoring``, ``baselines``, ``data_tools``, ``scripts``, ``examples``,
``benchmarks``) and fails on a walker outside the reader: a module that takes ``Run`` objects (imports ``Run`` or a
function that reads one, or reads ``.runs`` of a run set) or names a run file (``run.json``, ``history.jsonl``, the
script's ``*_results.json`` ...) as a path would. What is allowed outside the reader is listed with its reason. The checker
is shown to catch a planted walker."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = ("scoring", "baselines", "data_tools", "scripts", "examples", "benchmarks")
READER = {"scoring/ctv/run_set.py", "scoring/ctv/runs.py", "scoring/ctv/_script_runs.py", "scoring/ctv/_records.py"}
# the names that hand out Run objects, and the run set's attributes that hold them
RUN_NAMES = {"Run", "read_agrieval_run", "read_run", "build_run"}
RUN_ATTRIBUTES = {"runs", "held_out"}
RUN_FILES = {"run.json", "history.jsonl", "predictions.csv", "*_results.json", "*_predictions.csv", "*_summary.json",
             "*_cross_team_matrix.csv", "_results.json", "_predictions.csv", "_summary.json",
             "_cross_team_matrix.csv"}

TRAINER = "the trainer's own run folder (it writes these files), not a report: "
ALLOWED = {
    ("baselines/ctv/runner.py", "run.json"): TRAINER + "a finished run is skipped, run.json written last",
    ("baselines/ctv/runner.py", "history.jsonl"): TRAINER + "appended each epoch",
    ("baselines/ctv/runner.py", "predictions.csv"): TRAINER + "written after the last epoch",
    ("baselines/ctv/_run_folders.py", "run.json"): TRAINER + "its presence says done (ctv plan, status)",
    ("baselines/ctv/sweep.py", "run.json"): TRAINER + "failed.json is never written beside a finished run",
    ("examples/ctv/make_examples.py", "run.json"): "the example generator writes the runs and counts them",
    ("examples/ctv/make_examples.py", "predictions.csv"): "the example generator writes it",
    ("examples/ctv/make_examples.py", "_predictions.csv"): "the example generator writes the script's tree",
    ("examples/ctv/make_examples.py", "_results.json"): "the example generator writes the script's tree",
    ("scoring/ctv/_selection_rules.py", "Run"): "its worked examples make one run's rows with Records.from_runs",
    ("scoring/ctv/__init__.py", "read_agrieval_run"): "the package's public reader of one run folder, named for type "
                                                      "checkers (imported on first use from runs.py)",
}


def walkers(path: Path) -> set[str]:
    """What ``path`` does that only the reader may: each name giving Run objects it imports, each run set's
    ``.runs``/``.held_out`` it reads (of ``read_runs(...)``, a name bound to it, or a ``runset``), each run file
    name it holds."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    runsets = {"runset"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _name(node.value.func) == "read_runs":
            runsets |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _name(node.annotation) == "RunSet":
            runsets.add(node.target.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agrieval.scoring.ctv"):
            found |= {a.name for a in node.names if a.name in RUN_NAMES}
        elif isinstance(node, ast.Attribute) and node.attr in RUN_ATTRIBUTES:
            base = node.value
            if (isinstance(base, ast.Call) and _name(base.func) == "read_runs") or _name(base) in runsets:
                found.add(f".{node.attr}")
        elif isinstance(node, ast.Constant) and node.value in RUN_FILES:
            found.add(node.value)
    return found


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _modules():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in READER:
                yield rel, path


def test_no_module_but_the_reader_walks_runs():
    found = {(rel, what) for rel, path in _modules() for what in walkers(path)}
    assert sorted(found - set(ALLOWED)) == [], "query the record table (scoring/ctv/_records.py) instead"
    assert sorted(set(ALLOWED) - found) == [], "an allowed walker that is gone: remove it from ALLOWED"


def test_the_reader_is_where_the_walking_is():
    """The checker finds the reader's own walking (so it would find the same code elsewhere)."""
    assert {"predictions.csv", "history.jsonl"} <= walkers(ROOT / "scoring/ctv/runs.py")
    assert {"Run", "read_agrieval_run"} <= walkers(ROOT / "scoring/ctv/run_set.py")


def test_a_planted_walker_is_caught(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from agrieval.scoring.ctv.run_set import read_runs\n"
        "from agrieval.scoring.ctv.runs import Run\n\n\n"
        "def mean_test(folder):\n"
        "    rs = read_runs(folder)\n"
        "    return sum(r.pct('test') for r in rs.runs) / len(read_runs(folder).runs)\n\n\n"
        "def epochs(run_dir):\n"
        "    return (run_dir / 'history.jsonl').read_text().splitlines()\n", encoding="utf-8")
    assert walkers(planted) == {"Run", ".runs", "history.jsonl"}
    clean = tmp_path / "clean.py"
    clean.write_text("from agrieval.scoring.ctv.run_set import read_runs\n\n\n"
                     "def mean_test(folder):\n"
                     "    rec = read_runs(folder).records\n"
                     "    return rec.query(epoch=-1, split='test', team='')['acc'].mean()\n", encoding="utf-8")
    assert walkers(clean) == set()


def test_every_allowed_walker_says_why():
    assert all(len(reason) > 20 for reason in ALLOWED.values())
