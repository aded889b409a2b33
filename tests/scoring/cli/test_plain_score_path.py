"""``agrieval score`` on a plain command line runs without click (scoring/cli/entry.py): the same stdout,
stderr and exit code as through the click tree, for every outcome; anything else goes to click."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.cli.entry import plain_score_args

REPO = Path(__file__).resolve().parents[3]
PC = REPO / "reference_submissions" / "plantclef2025"
AG = REPO / "reference_submissions" / "agrichallenge2024"
SOL, GOOD = str(PC / "solution.csv"), str(PC / "submissions" / "partial.csv")
BAD = str(PC / "submissions" / "malformed" / "float_labels.csv")
PLAIN = "import sys; from scoring.cli.entry import main; main()"
CLICK = "import sys; from scoring.cli.main import cli; cli()"
CONSOLE = "import sys; from scoring.cli.entry import console; console()"  # the console script: one_shot settings


def run(code: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=cwd)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("plain")
    shutil.copy(REPO / "scoring" / "competitions" / "plantclef2025.toml", folder / "mine.toml")
    shutil.copy(REPO / "scoring" / "competitions" / "plantclef_species.txt", folder / "plantclef_species.txt")
    (folder / "broken.toml").write_text("task = [\n")
    (folder / "a_dir").mkdir()
    (folder / "empty.csv").write_bytes(b"")
    return folder


CASES = {  # name -> arguments after `agrieval`; the ones taken by the plain path are marked below
    "scored json": ["score", GOOD, "-s", SOL, "-c", "plantclef2025", "--json"],
    "scored text": ["score", GOOD, "-s", SOL, "-c", "plantclef2025"],
    "reveal, long options, another order": ["score", "--json", "--competition", "plantclef2025", "--reveal-private",
                                            "--solution", SOL, GOOD],
    "options with =": ["score", GOOD, f"--solution={SOL}", "--competition=plantclef2025", "--json"],
    "rejected json": ["score", BAD, "-s", SOL, "-c", "plantclef2025", "--json"],
    "rejected text": ["score", BAD, "-s", SOL, "-c", "plantclef2025"],
    "empty upload": ["score", "empty.csv", "-s", SOL, "-c", "plantclef2025", "--json"],
    "upload is a folder": ["score", "a_dir", "-s", SOL, "-c", "plantclef2025", "--json"],
    "another competition's solution": ["score", GOOD, "-s", SOL, "-c", "plantclef2024", "--json"],
    "solution is the submission": ["score", GOOD, "-s", GOOD, "-c", "plantclef2025"],
    "toml definition": ["score", GOOD, "-s", SOL, "-c", "mine.toml", "--json", "--reveal-private"],
    "broken toml": ["score", GOOD, "-s", SOL, "-c", "broken.toml", "--json"],
    "multiclass": ["score", str(AG / "submissions" / "perfect.csv"), "-s", str(AG / "solution.csv"),
                   "-c", "agrichallenge2024", "--json"],
    # the click tree's own (declined by the plain path)
    "unknown competition": ["score", GOOD, "-s", SOL, "-c", "plantclef2052", "--json"],
    "missing submission": ["score", "no/such.csv", "-s", SOL, "-c", "plantclef2025"],
    "solution is a folder": ["score", GOOD, "-s", "a_dir", "-c", "plantclef2025"],
    "missing --solution": ["score", GOOD, "-c", "plantclef2025"],
    "option twice": ["score", GOOD, "-s", SOL, "-s", SOL, "-c", "plantclef2025"],
    "flag twice": ["score", GOOD, "-s", SOL, "-c", "plantclef2025", "--json", "--json"],
    "own team": ["score", str(AG / "submissions" / "perfect.csv"), "-s", str(AG / "solution.csv"),
                 "-c", "agrichallenge2024", "--own-team", "team_a"],
    "help": ["score", "--help"],
    "unknown option": ["score", GOOD, "-s", SOL, "-c", "plantclef2025", "--jsn"],
    "two submissions": ["score", GOOD, GOOD, "-s", SOL, "-c", "plantclef2025"],
    "value that looks like an option": ["score", GOOD, "-s", "--json", "-c", "plantclef2025"],
    "no value": ["score", GOOD, "-s", SOL, "-c"],
    "root option first": ["--debug", "score", GOOD, "-s", SOL, "-c", "plantclef2025"],
}
PLAIN_CASES = {"scored json", "scored text", "reveal, long options, another order", "options with =",
               "rejected json", "rejected text", "empty upload", "upload is a folder",
               "another competition's solution", "solution is the submission", "toml definition", "broken toml",
               "multiclass"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_plain_path_prints_and_exits_as_the_click_tree(name, files, monkeypatch):
    args = CASES[name]
    monkeypatch.chdir(files)
    assert (plain_score_args(args) is not None) == (name in PLAIN_CASES)
    plain, tree, console = run(PLAIN, args, files), run(CLICK, args, files), run(CONSOLE, args, files)
    assert (plain.returncode, plain.stdout, plain.stderr) == (tree.returncode, tree.stdout, tree.stderr)
    assert (console.returncode, console.stdout, console.stderr) == (tree.returncode, tree.stdout, tree.stderr)
    assert "Traceback" not in plain.stderr


def test_the_plain_path_imports_no_click_pydantic_or_pandas(files):
    args = CASES["toml definition"]
    run(PLAIN, args, files)  # the TOML validated once (pydantic), then cached
    code = ("import sys\nfrom scoring.cli.entry import main\ntry:\n    main()\nexcept SystemExit as e:\n"
            "    print(e.code, sorted(m for m in ('click', 'pydantic', 'pandas', 'zipfile') if m in sys.modules),"
            " file=sys.stderr)")
    done = run(code, args, files)
    assert done.stderr.strip().splitlines()[-1] == "0 []"


@pytest.mark.parametrize("code", [PLAIN, CONSOLE])
def test_a_broken_pipe_keeps_the_verdict(code):
    cmd = (f"{sys.executable} -c '{code}' score {BAD} -s {SOL} -c plantclef2025 | head -c 1 >/dev/null; "
           "echo ${PIPESTATUS[0]}")
    done = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout.strip() == "1"
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_a_long_report_reaches_a_slow_reader_whole_before_the_process_ends(files):
    """The console script ends without the interpreter's teardown (``one_shot.exit_now``): what it wrote must
    still all arrive, through a pipe read slowly, and equal what the click tree prints."""
    args = CASES["scored json"]
    slow = "import sys, time; time.sleep(0.5); sys.stdout.write(sys.stdin.read())"
    cmd = [sys.executable, "-c", CONSOLE, *args]
    reader = subprocess.Popen([sys.executable, "-c", slow], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    writer = subprocess.run(cmd, stdout=reader.stdin, stderr=subprocess.PIPE, text=True, cwd=files,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    reader.stdin.close()
    got = reader.stdout.read()
    reader.wait()
    assert writer.returncode == 0 and got == run(CLICK, args, files).stdout and got.endswith("}\n")


def test_glibc_keeps_freed_memory_when_asked():
    """On glibc (Linux, as on the grading platforms and CI) every malloc setting is taken; elsewhere none is
    tried. Run in a child: the settings last for the process."""
    from scoring.cli import one_shot

    code = "from scoring.cli.one_shot import keep_freed_memory as k; print(k())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        glibc = bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):
        glibc = False
    assert done.stdout.strip() == str(glibc), done.stderr
    assert one_shot._M_ARENA_MAX == -8 and one_shot._M_MMAP_MAX == -4 and one_shot._M_TRIM_THRESHOLD == -1



def test_the_plain_path_sets_numpy_up_before_importing_it_and_keeps_a_users_settings(files):
    args = CASES["scored json"]
    code = ("import os, sys\nfrom scoring.cli.entry import main\ntry:\n    main()\nexcept SystemExit:\n"
            "    import numpy\n    print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['NUMPY_MADVISE_HUGEPAGE'],"
            " file=sys.stderr)")
    plain = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "NUMPY_MADVISE_HUGEPAGE")}
    env = {**plain, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=files)
    assert done.stderr.strip().splitlines()[-1] == "1 0"
    mine = {**env, "OPENBLAS_NUM_THREADS": "2", "NUMPY_MADVISE_HUGEPAGE": "1"}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=mine, cwd=files)
    assert done.stderr.strip().splitlines()[-1] == "2 1"
