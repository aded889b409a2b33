"""One contract for every command (``agrieval.scoring.cli._failures``): the same exit code for the same mistake, one
error line, no traceback without --debug, a broken pipe never turning a rejection into 0, and a --help with a
whole summary, every option described, an example and the exit codes, over the whole click tree."""

import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli

REPO = Path(__file__).resolve().parents[3]
REF = REPO / "reference_submissions"
PC = REF / "plantclef2025"
AG = REF / "agrichallenge2024"
SOL = str(PC / "solution.csv")
GOOD = str(PC / "submissions/partial.csv")
BAD = str(PC / "submissions/malformed/float_labels.csv")
LINE = re.compile(r"^(\S+: )?error \[[a-z_]+\] \S")


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def leaf_commands():
    """(path words, command) of every command of the tree, groups included."""
    out = []

    def walk(cmd, words, parent):
        ctx = click.Context(cmd, info_name=words[-1] if words else "agrieval", parent=parent)
        out.append((tuple(words), cmd, ctx))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), [*words, name], ctx)

    walk(cli, [], None)
    return out


TREE = leaf_commands()
LEAVES = [words for words, cmd, _ in TREE if not isinstance(cmd, click.Group)]


def assert_one_line(result, code, text):
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = result.output.strip().splitlines()  # stdout and stderr (a rejection's lines are the listing)
    assert lines and any(LINE.match(line) for line in lines), result.output
    assert text in result.output, result.output
    assert "Traceback" not in result.output and "Traceback" not in result.stderr


# (arguments, exit code, text of the error line): the same mistake, the same code, in every command.
MISSING = "no/such/file.csv"
CASES = [
    # a file or folder that does not exist: 2
    (["score", MISSING, "-s", SOL, "-c", "plantclef2025"], 2, "[file_not_found]"),
    (["validate", MISSING, "-c", "plantclef2025"], 2, "[file_not_found]"),
    (["grade", MISSING, "-s", SOL, "-c", "plantclef2025"], 2, "[file_not_found]"),
    (["bundle", "kaggle", "-c", "plantclef2025", "-s", MISSING, "{tmp}/b"], 2, "[file_not_found]"),
    (["leaderboard", "no/such/dir", "-s", SOL, "-c", "plantclef2025"], 2, "[file_not_found]"),
    (["rank-agreement", MISSING, MISSING, "--key", "team", "--value", "v"], 2, "[file_not_found]"),
    (["ctv", "summarize", MISSING], 2, "[file_not_found]"),
    (["ctv", "report", "no/such/dir"], 2, "[file_not_found]"),
    (["competitions", "freeze", "no/such.toml", "-o", "{tmp}/x.json"], 2, "[file_not_found]"),
    (["data", "catalog", "no/such/dir", "-o", "{tmp}/c.csv"], 2, "[file_not_found]"),
    (["data", "dedup", MISSING, "-o", "{tmp}/d.csv"], 2, "[file_not_found]"),
    (["data", "resize", MISSING, "{tmp}/out"], 2, "[file_not_found]"),
    (["data", "classes", "no/such/dir"], 2, "[file_not_found]"),
    (["data", "splits", MISSING, "--protocol", "toto", "-o", "{tmp}/s"], 2, "[file_not_found]"),
    (["data", "check-leakage", "no/such/dir", "--catalog", MISSING], 2, "[file_not_found]"),
    (["baselines", "plantclef", "aggregate", "no/such.parquet", "--out", "{tmp}/s.csv"], 2, "[file_not_found]"),
    (["baselines", "plantclef", "sweep", "no/such.parquet", "--solution", SOL], 2, "[file_not_found]"),
    (["baselines", "plantclef", "tiles", "no/such.jpg", "--out", "{tmp}/t.png"], 2, "[file_not_found]"),
    (["baselines", "ctv", "plan", "--splits", "no/such/dir", "--runs-dir", "{tmp}/runs"], 2, "[splits_missing]"),
    # an unknown competition: 2, with a suggestion
    (["score", GOOD, "-s", SOL, "-c", "PlantCLEF2025"], 2, "did you mean 'plantclef2025'"),
    (["validate", GOOD, "-c", "PlantCLEF2025"], 2, "did you mean 'plantclef2025'"),
    (["grade", GOOD, "-s", SOL, "-c", "PlantCLEF2025"], 2, "did you mean 'plantclef2025'"),
    (["bundle", "kaggle", "-c", "PlantCLEF2025", "-s", SOL, "{tmp}/b"], 2, "did you mean 'plantclef2025'"),
    (["leaderboard", str(PC / "submissions"), "-s", SOL, "-c", "PlantCLEF2025", "--out", "{tmp}/lb"], 2,
     "did you mean 'plantclef2025'"),
    (["competitions", "show", "PlantCLEF2025"], 2, "did you mean 'plantclef2025'"),
    # a bad option value: 2, wherever it is detected (issue 22: these were 3, definition_invalid)
    (["score", str(AG / "submissions/perfect.csv"), "-s", str(AG / "solution.csv"), "-c", "agrichallenge2024",
      "--val-accuracy", "nan"], 2, "[bad_option]"),
    (["score", str(AG / "submissions/perfect.csv"), "-s", str(AG / "solution.csv"), "-c", "agrichallenge2024",
      "--own-team", "nobody"], 2, "[bad_option]"),
    (["score", GOOD, "-s", SOL, "-c", "plantclef2025", "--own-team", "x"], 2, "[bad_option]"),
    # an input read and rejected: 1
    (["score", BAD, "-s", SOL, "-c", "plantclef2025"], 1, "[float_label]"),
    (["validate", BAD, "-c", "plantclef2025"], 1, "[float_label]"),
    (["rank-agreement", str(REPO / "examples/ctv/RESULTS.csv"), str(REPO / "examples/ctv/loto_swin_tiny.csv"),
      "--key", "team", "--value", "test_acc"], 1, "error ["),
    (["ctv", "summarize", SOL], 1, "[missing_column]"),
    # a wrong solution/competition pair: host-side (3), and it says so
    (["score", GOOD, "-s", str(AG / "solution.csv"), "-c", "plantclef2025"], 3,
     "looks like a solution of 'agrichallenge2024'"),
    (["validate", GOOD, "-s", str(AG / "solution.csv"), "-c", "plantclef2025"], 3,
     "looks like a solution of 'agrichallenge2024'"),
    (["bundle", "kaggle", "-c", "plantclef2025", "-s", str(AG / "solution.csv"), "{tmp}/b"], 3,
     "looks like a solution of 'agrichallenge2024'"),
    (["leaderboard", str(PC / "submissions"), "-s", str(AG / "solution.csv"), "-c", "plantclef2025",
      "--out", "{tmp}/lb"], 3, "[solution_invalid]"),
    (["grade", GOOD, "-s", str(AG / "solution.csv"), "-c", "plantclef2025"], 3, "[solution_invalid]"),
]


@pytest.mark.parametrize("args, code, text", CASES, ids=[" ".join(c[0][:2]) + f" -> {c[1]}" for c in CASES])
def test_the_same_mistake_gives_the_same_exit_code_and_one_line(tmp_path, args, code, text):
    result = run(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    if args[0] == "grade":  # a server parses stdout: still one JSON object
        assert result.stdout.lstrip().startswith("{")
    assert_one_line(result, code, text)


@pytest.mark.parametrize("words", LEAVES, ids=[" ".join(w) for w in LEAVES])
def test_an_unknown_option_is_a_usage_error_in_every_command(words):
    result = run(*words, "--no-such-option")
    assert_one_line(result, 2, "[bad_option]")
    assert " ".join(words) in result.stderr  # the line points at that command's --help


def test_refused_output_paths_are_usage_errors_everywhere(tmp_path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "leaderboard.csv").write_text("x\n")
    (tmp_path / "x.json").write_text("{}")
    (tmp_path / "sum.md").write_text("x")
    for args in (["leaderboard", PC / "submissions", "-s", SOL, "-c", "plantclef2025", "--out", taken],
                 ["bundle", "kaggle", "-c", "plantclef2025", "-s", SOL, taken],
                 ["ctv", "summarize", REPO / "examples/ctv/RESULTS.csv", "--out", tmp_path / "sum.md"],
                 ["competitions", "freeze", REPO / "scoring/competitions/plantclef2025.toml", "-o",
                  tmp_path / "x.json"]):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output


def test_an_internal_error_is_one_line_and_the_traceback_only_with_debug(monkeypatch):
    import agrieval.scoring.runtime.validate as validate_module

    def boom(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(validate_module, "validate_and_say", boom)
    quiet = run("validate", GOOD, "-c", "plantclef2025")
    assert_one_line(quiet, 3, "[internal_error]")
    assert "--debug" in quiet.stderr
    import agrieval.scoring.cli._failures as failures

    monkeypatch.setattr(failures, "_debug", False)
    loud = run("--debug", "validate", GOOD, "-c", "plantclef2025")
    assert loud.exit_code == 3 and "Traceback" in loud.stderr and "simulated bug" in loud.stderr


def test_a_broken_pipe_never_turns_a_rejected_file_into_exit_0():
    # `validate bad.csv | head -1`: head exits after one line; the verdict must survive it, every time.
    cmd = (f"{sys.executable} -m agrieval.scoring.cli.main validate {BAD} -c plantclef2025 | head -1; "
           "echo rc=${PIPESTATUS[0]}")
    for _ in range(5):
        out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=REPO, timeout=60)
        assert out.stdout.strip().endswith("rc=1"), out.stdout + out.stderr
        assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr


@pytest.mark.parametrize("words", [w for w, _, _ in TREE], ids=[" ".join(w) or "agrieval" for w, _, _ in TREE])
def test_help_has_a_whole_summary_every_option_an_example_and_the_exit_codes(words):
    cmd, ctx = next((c, x) for w, c, x in TREE if w == words)
    result = run(*words, "--help")
    assert result.exit_code == 0
    text = result.output
    listing = text.split("Commands:")[1].split("\n\n")[0] if "Commands:" in text else ""
    assert "..." not in listing, listing  # each command's summary whole, wrapped rather than cut
    summary = " ".join((cmd.help or "").strip().split("\n\n")[0].split())
    assert summary.endswith("."), summary
    assert "Example" in text, f"{' '.join(words)}: no example in --help"
    assert "Exit codes" in text, f"{' '.join(words)}: no exit codes in --help"
    undocumented = [p.opts[-1] for p in cmd.params if isinstance(p, click.Option) and not p.help]
    assert not undocumented, f"{' '.join(words)}: options without help: {undocumented}"


def test_validate_help_lists_every_exit_code():
    text = " ".join(run("validate", "--help").output.split())
    for code in ("0", "1", "2", "3"):
        assert re.search(rf"\b{code} [a-z]", text.split("Exit codes")[1]), text


def test_the_docs_exit_code_table_covers_every_command():
    from agrieval.scoring.cli.main import _SUBCOMMANDS as SUBCOMMANDS

    readme = (REPO / "docs" / "scoring.md").read_text(encoding="utf-8")
    header = next(line for line in readme.splitlines() if line.startswith("| exit | meaning |"))
    assert sorted(re.findall(r"`([a-z-]+)`", header)) == sorted(SUBCOMMANDS)


def test_a_library_warning_is_one_line_of_ours(monkeypatch, tmp_path):
    """Issue 22: numpy's RuntimeWarning (or any library's) never shows Python's source line on stderr."""
    import subprocess
    import sys

    code = ("import warnings, numpy as np\n"
            "import agrieval.scoring.ctv.summarize as s\n"
            "orig = s.summarize\n"
            "def noisy(*a, **k):\n"
            "    np.mean(np.array([]))\n"  # RuntimeWarning: Mean of empty slice
            "    return orig(*a, **k)\n"
            "s.summarize = noisy\n"
            "import sys\nfrom agrieval.scoring.cli.main import cli\n"
            "sys.argv = ['agrieval'] + sys.argv[1:]\ncli()\n")
    for debug in ([], ["--debug"]):
        res = subprocess.run([sys.executable, "-c", code, *debug, "ctv", "summarize",
                              str(REPO / "examples/ctv/RESULTS.csv")], capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        if debug:
            assert "RuntimeWarning" in res.stderr  # Python's own display, for whoever debugs
        else:
            lines = [line for line in res.stderr.splitlines() if "Warning" in line]
            assert lines and all(line.startswith("warning [library_warning] RuntimeWarning: ") for line in lines)
            assert "Mean of empty slice" in lines[0], res.stderr
            assert "np.mean" not in res.stderr and ".py:" not in res.stderr
