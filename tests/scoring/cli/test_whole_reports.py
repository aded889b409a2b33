"""A report is whole or the run fails: a short write, a full disk, a closed or broken stdout is exit 3 with one
line on stderr (``error [output_incomplete] ...``), never 0 and never 1, in any buffering mode; a file that
cannot be written whole never appears under its final name."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PC = REPO / "reference_submissions" / "plantclef2025"
SOL, GOOD = str(PC / "solution.csv"), str(PC / "submissions" / "partial.csv")
BAD = str(PC / "submissions" / "malformed" / "float_labels.csv")
LIMIT = 512  # bytes: less than each report below

COMMANDS = {
    "score --json": ["score", GOOD, "-s", SOL, "-c", "plantclef2025", "--json"],
    "score text": ["score", GOOD, "-s", SOL, "-c", "plantclef2025", "--reveal-private"],
    "score rejected --json": ["score", BAD, "-s", SOL, "-c", "plantclef2025", "--json"],
    "validate rejected": ["validate", BAD, "-c", "plantclef2025", "--json"],
    "grade": ["grade", GOOD, "-s", SOL, "-c", "plantclef2025"],
    "leaderboard": ["leaderboard", str(PC / "submissions"), "-s", SOL, "-c", "plantclef2025"],
}
BUFFERING = {"unbuffered": {"PYTHONUNBUFFERED": "1"}, "buffered": {}}


def env_with(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return {**env, "PYTHONPATH": str(REPO), **extra}


def agrieval(args, *, stdout, env=None, preexec=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agrieval.scoring.cli.main", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env or env_with(), preexec_fn=preexec, cwd=cwd, timeout=120)


def file_size_limit(limit: int = LIMIT):
    """In the child: files may not grow past ``limit`` bytes, and a write past it fails (EFBIG) instead of
    killing the process (SIGXFSZ ignored), as on a grading server's quota."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def assert_host_failure(done: subprocess.CompletedProcess, why: str) -> None:
    assert done.returncode == 3, (done.returncode, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    failure = [line for line in lines if "[output_incomplete]" in line]
    assert len(failure) == 1 and failure[0].startswith("error [output_incomplete] stdout: "), done.stderr
    assert why in failure[0], failure[0]
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_every_report_here_is_longer_than_the_limit(tmp_path):
    for name, args in COMMANDS.items():
        out = tmp_path / "out.txt"
        with out.open("w") as fh:
            done = agrieval(args, stdout=fh, cwd=tmp_path)
        assert done.returncode in (0, 1), (name, done.stderr)
        assert out.stat().st_size > LIMIT, name


@pytest.mark.parametrize("buffering", sorted(BUFFERING))
@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"leaderboard"}))  # (its files would meet the limit first)
def test_a_file_size_limit_on_stdout_is_a_host_failure(name, buffering, tmp_path):
    out = tmp_path / "report.txt"
    with out.open("w") as fh:
        done = agrieval(COMMANDS[name], stdout=fh, env=env_with(**BUFFERING[buffering]), preexec=file_size_limit(),
                        cwd=tmp_path)
    assert_host_failure(done, "File too large")
    assert f"{LIMIT} of " in done.stderr.replace(",", "")  # the bytes that did get out, and of how many


@pytest.mark.parametrize("buffering", sorted(BUFFERING))
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_disk_is_a_host_failure(name, buffering, tmp_path):
    with open("/dev/full", "w") as full:
        done = agrieval(COMMANDS[name], stdout=full, env=env_with(**BUFFERING[buffering]), cwd=tmp_path)
    assert_host_failure(done, "No space left on device")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_stdout_is_a_host_failure(name, tmp_path):
    done = agrieval(COMMANDS[name], stdout=None, preexec=lambda: os.close(1), cwd=tmp_path)
    assert_host_failure(done, "Bad file descriptor")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_reader_that_went_away_is_a_host_failure(name, tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written: every write is a broken pipe
    try:
        done = agrieval(COMMANDS[name], stdout=write_end, cwd=tmp_path)
    finally:
        os.close(write_end)
    assert_host_failure(done, "Broken pipe")


def test_a_failed_write_that_some_code_caught_still_fails_the_run():
    code = ("import sys\nfrom agrieval.scoring.cli._output import checked_stdout, finish\nraw = checked_stdout()\n"
            "try:\n    print('x' * 100)\n    sys.stdout.flush()\nexcept OSError:\n    pass\n"
            "print('and more')\nsys.exit(finish(raw, 0))\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-c", code], stdout=full, stderr=subprocess.PIPE, text=True,
                              env=env_with())
    assert_host_failure(done, "No space left on device")


@pytest.mark.parametrize("buffering", sorted(BUFFERING))
def test_within_the_limit_the_report_is_whole_and_the_same(buffering, tmp_path):
    args = COMMANDS["score --json"]
    plain = agrieval(args, stdout=subprocess.PIPE, env=env_with(**BUFFERING[buffering]))
    out = tmp_path / "report.json"
    with out.open("w") as fh:
        done = agrieval(args, stdout=fh, env=env_with(**BUFFERING[buffering]), preexec=file_size_limit(1 << 20))
    assert (done.returncode, done.stderr) == (0, "") and out.read_text() == plain.stdout


def test_leaderboard_files_that_cannot_be_written_whole_are_not_kept(tmp_path):
    out = tmp_path / "lb"
    args = [*COMMANDS["leaderboard"], "--out", str(out)]
    whole = agrieval([*args[:-1], str(tmp_path / "whole")], stdout=subprocess.PIPE)
    assert whole.returncode == 0, whole.stderr
    sizes = {p.name: p.stat().st_size for p in (tmp_path / "whole").iterdir()}
    assert max(sizes.values()) > LIMIT, sizes
    done = agrieval(args, stdout=subprocess.PIPE, preexec=file_size_limit())
    assert done.returncode == 3, done.stderr
    [line] = [line for line in done.stderr.splitlines() if "error [" in line]  # (progress lines are on stderr)
    assert line.startswith("error [output_incomplete] ") and "File too large" in line, line
    kept = {p.name: p.stat().st_size for p in out.iterdir()} if out.exists() else {}
    assert all(not name.endswith(".tmp") for name in kept), kept  # no temporary left behind
    assert all(sizes[name] == size for name, size in kept.items()), kept  # what is there is whole
    assert len(kept) < len(sizes)
