"""One error path: every failure of every command ends in one handler, ``ContractGroup.main`` (scoring/cli/group.py),
which prints the contract's one line (and, where ``--json`` promised it, the one JSON object) once."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli

REPO = Path(__file__).resolve().parents[3]
PC = REPO / "reference_submissions" / "plantclef2025"
SOL, GOOD = str(PC / "solution.csv"), str(PC / "submissions/partial.csv")
# The command-line modules of every package (PlantCLEF's `guard` maps its own known errors to codes and
# re-raises the rest; it catches no BaseException).
CLI_FILES = sorted((REPO / "scoring" / "cli").glob("*.py")) + [
    REPO / "data_tools" / "_cli.py", REPO / "baselines" / "_cli.py", REPO / "baselines" / "ctv" / "_cli.py",
    *sorted((REPO / "baselines" / "plantclef" / "_cli").glob("*.py"))]


def _catch_alls(path: Path) -> list[str]:
    """``function:line`` of each handler that catches everything (bare, BaseException, Exception) and does not
    re-raise what it does not know."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        for node in ast.walk(fn):
            if not isinstance(node, ast.ExceptHandler):
                continue
            names = [n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)] if node.type else ["<bare>"]
            if not {"<bare>", "BaseException", "Exception"} & set(names):
                continue
            if any(isinstance(n, ast.Raise) and n.exc is None for n in ast.walk(node)):
                continue  # re-raises what it does not map: not a catch-all
            found.append(f"{fn.name}:{node.lineno}")
    return found


def test_there_is_exactly_one_catch_all_and_it_is_the_root_groups_main():
    found = {str(p.relative_to(REPO)): _catch_alls(p) for p in CLI_FILES}
    found = {k: v for k, v in found.items() if v}
    assert list(found) == ["scoring/cli/group.py"] and [v.split(":")[0] for v in found["scoring/cli/group.py"]] \
        == ["main"], found


@pytest.fixture()
def broken_scorer(monkeypatch):
    import agrieval.scoring.runtime.scorer as scorer

    def boom(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(scorer, "score", boom)


def test_an_internal_error_under_json_is_one_object_on_stdout_and_one_line_on_stderr(broken_scorer):
    result = CliRunner().invoke(cli, ["score", GOOD, "-s", SOL, "-c", "plantclef2025", "--json"])
    assert result.exit_code == 3
    report = json.loads(result.stdout)  # the whole of stdout is one object
    assert report["status"] == "error" and report["competition"] == "plantclef2025"
    assert [e["code"] for e in report["errors"]] == ["internal_error"] and "simulated bug" in report["errors"][0]["message"]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error [internal_error] internal error: RuntimeError: simulated bug")


def test_without_json_the_same_failure_is_the_line_alone(broken_scorer):
    result = CliRunner().invoke(cli, ["score", GOOD, "-s", SOL, "-c", "plantclef2025"])
    assert result.exit_code == 3 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "[internal_error]" in result.stderr


def test_a_json_promise_does_not_outlive_its_run():
    """A run with --json that fails, then a run without it in the same process: the second prints no JSON."""
    runner = CliRunner()
    first = runner.invoke(cli, ["score", GOOD, "-s", SOL, "-c", "no_such_competition", "--json"])
    assert first.exit_code == 2 and json.loads(first.stdout)["errors"][0]["code"] == "unknown_competition"
    second = runner.invoke(cli, ["score", GOOD, "-s", SOL, "-c", "no_such_competition"])
    assert second.exit_code == 2 and second.stdout == "" and "[unknown_competition]" in second.stderr


def test_a_usage_error_under_json_prints_no_object_and_names_the_command():
    # the command line was wrong before the command ran: no report object, the usage line on stderr
    result = CliRunner().invoke(cli, ["validate", GOOD, "-c", "plantclef2025", "--json", "--solution", SOL,
                                      "--ids", SOL], prog_name="agrieval")
    assert result.exit_code == 2 and result.stdout == ""
    assert "error [bad_option] give --solution or --ids, not both (see 'agrieval validate --help')" in result.stderr


def test_a_broken_pipe_inside_a_command_is_exit_3_not_click_s_exit_1(monkeypatch):
    import errno

    import agrieval.scoring.runtime.scorer as scorer

    def gone(*args, **kwargs):
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(scorer, "score", gone)
    result = CliRunner().invoke(cli, ["score", GOOD, "-s", SOL, "-c", "plantclef2025"])
    assert result.exit_code == 3 and "error [output_incomplete] output: not written whole (Broken pipe)" in result.stderr
