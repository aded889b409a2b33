"""The ``agrieval`` console script: ``agrieval score`` on a plain command line without click.

Importing click and building the command tree is about a tenth of a fresh
``agrieval score`` on a small file. A command line of the plainest form,

    agrieval score SUBMISSION (-s|--solution) SOLUTION (-c|--competition) NAME_OR_FILE [--json] [--reveal-private]

(options in any order, each once, every value plain, both files there and
readable, the competition a shipped one or an existing file) is run here
through the very function the click command runs (``score_run.score_body``),
with stdout held the same way (``stdout.emit``). Anything else, ``--help``
included, goes to the click tree (``scoring.cli.main``), which then names
every usage error exactly as before. A failure of the scoring itself is
reported by ``common.failed``, the click command's own handler (click is
imported then, for the error line only). numpy's OpenBLAS starts one thread,
not one per CPU (nothing in scoring multiplies matrices), and numpy asks for no
transparent huge pages (see ``main``).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

_VALUED = {"-s": "solution", "--solution": "solution", "-c": "competition", "--competition": "competition"}
_FLAGS = {"--json": "as_json", "--reveal-private": "reveal_private"}


def console() -> None:
    """The console script: ``main``, and on the plain path a process tuned for one score (``one_shot``)."""
    main(one_shot=True)


def main(one_shot: bool = False) -> None:
    plain = plain_score_args(sys.argv[1:])
    if plain is None:
        from scoring.cli.main import cli

        cli()
        return
    # Set before numpy is imported; a value the user set is kept. Scoring multiplies no matrices: numpy's
    # OpenBLAS need not start a thread per CPU (a third of numpy's import time). And no transparent huge
    # pages for numpy's arrays: where the kernel compacts memory to find one (THP "madvise", a machine
    # whose memory is fragmented by other work) the system time of the 200,000-row case was 0.6 s with
    # them and 0.2 s without (CPU 1.2 s -> 0.8 s), for a one-shot process touching ~100 MB.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    if not one_shot:
        sys.exit(run_plain(**plain))
    from scoring.cli import one_shot as process

    process.keep_freed_memory()
    process.exit_now(run_plain(**plain))


def plain_score_args(argv: list[str]) -> dict | None:
    """The arguments of a plain ``agrieval score`` command line (see the module docstring), or None."""
    if not argv or argv[0] != "score":
        return None
    found: dict = {}
    i = 1
    while i < len(argv):
        word = argv[i]
        name, value = word, None
        if word.startswith("--") and "=" in word:
            name, value = word.split("=", 1)
        if name in _VALUED:
            key = _VALUED[name]
            if value is None:
                if i + 1 >= len(argv):
                    return None
                value = argv[i + 1]
                i += 1
            if key in found or not value or value.startswith("-"):
                return None
            found[key] = value
        elif word in _FLAGS:
            if _FLAGS[word] in found:
                return None
            found[_FLAGS[word]] = True
        elif word.startswith("-") or "submission" in found:
            return None  # another option (--help, --own-team, "-", "--"...) or a second argument
        elif word:
            found["submission"] = word
        else:
            return None
        i += 1
    if not {"submission", "solution", "competition"} <= set(found):
        return None
    if not (_readable(found["submission"], dir_ok=True) and _readable(found["solution"], dir_ok=False)):
        return None  # click names the problem
    if not _known_competition(found["competition"]):
        return None  # click's path names it (with a "did you mean")
    return {"submission": Path(found["submission"]), "solution": Path(found["solution"]),
            "competition": found["competition"], "as_json": found.get("as_json", False),
            "reveal_private": found.get("reveal_private", False)}


def _readable(path: str, *, dir_ok: bool) -> bool:
    """What ``click.Path(exists=True, dir_okay=dir_ok)`` (readable by default) accepts."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    if stat.S_ISDIR(mode) and not dir_ok:
        return False
    return os.access(path, os.R_OK)


def _known_competition(name: str) -> bool:
    from scoring.runtime.definition import shipped_competitions

    return name in shipped_competitions() or Path(name).exists()


def run_plain(submission: Path, solution: Path, competition: str, as_json: bool, reveal_private: bool) -> int:
    """``agrieval score`` with these arguments: the click command's body, under the same guard."""
    from scoring.authoring.definitions import load_competition
    from scoring.cli.score_run import score_body
    from scoring.cli.stdout import emit

    def body() -> int:
        # a shipped name or an existing file (checked above): contract.competition would give the same
        return score_body(submission, solution, lambda: load_competition(competition), as_json, reveal_private,
                          None, None, _echo)

    try:
        return emit(body)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - as run_guarded: the contract's line and code
        from scoring.cli.common import failed

        return failed(competition, as_json, exc)


def _echo(text: str, err: bool = False) -> None:
    """``click.echo`` of a str into the held stdout (a StringIO, never a terminal): the text and a line end.
    click strips ANSI sequences there and writes stderr itself: then click does it."""
    if err or "\x1b" in text:
        import click

        click.echo(text, err=err)
        return
    sys.stdout.write(text + "\n")
