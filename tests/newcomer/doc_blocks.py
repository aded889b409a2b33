"""The `$ ` command blocks of the README and of the docs pages, as a newcomer pastes them.

One reader for the test that runs them (tests/newcomer/test_readme_blocks.py) and for the script that rewrites
their shown outputs (scripts/regen_docs_outputs.py, a maintainer tool), so both agree on what a block, a command and its shown
output are. Pages come in the order a reader meets them: README.md, then the mkdocs.yml nav.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# Commands that name your own data, weights, a GPU or a cluster, or that are benchmarks: not run as pasted.
NEEDS_YOURS = re.compile(r"\bSPLITS\b|\bWEIGHTS\b|test_images/|\btiles\.parquet|torchrun|sbatch|-submit\.sh\b|"
                         r"--device cuda|"
                         r"make_examples|/fast/|\bruns\b --plots|benchmarks/|--rows")
# Cheap commands: the scoring side (seconds); the rest (data, baselines, reports, platform venvs) is slow.
CHEAP = re.compile(r"^agrieval (score|validate|competitions|grade|rank-agreement|ctv summarize|bundle|demo)\b|"
                   r"^echo |"
                   r"^mkdir |^cp ")
# Where a command prints the clone's absolute path, the pages show this instead (your clone is elsewhere).
CLONE_SHOWN_AS = "/home/you/agrieval"
# A duration or a rate: "0.5 s", "(107.6/s)", "377 img/s", "(58.9 setting/s)": the machine's, not the kit's.
TIMING = re.compile(r"\d+(?:\.\d+)?(?=(?: [a-z]+)?/s\b| s\b)")
# A progress line: "<what>: <done>/<total> ...".
PROGRESS = re.compile(r"^([^\s:][^:]*): \d+/\d+\b")


@dataclass
class Command:
    page: str      # path relative to the repository root
    text: str      # the command, continuation lines joined with newlines (bash reads them as one)
    shown: str     # the output the page shows under it
    start: int     # offsets of ``shown`` in the page's text
    end: int

    @property
    def cheap(self) -> bool:
        return bool(CHEAP.match(self.text)) and "-demo/" not in self.text  # a demo folder comes from a slow demo

    @property
    def runnable(self) -> bool:
        return not NEEDS_YOURS.search(self.text)

    @property
    def shown_in_full(self) -> bool:
        """The page shows this command's whole output (not an excerpt with '...')."""
        lines = self.shown.rstrip().splitlines()
        return bool(lines) and not any(line.strip().startswith("...") for line in lines)


def nav_pages(repo: Path) -> list[str]:
    """The Markdown pages of mkdocs.yml's nav, in nav order, relative to the repository root."""
    import yaml

    config = yaml.safe_load((repo / "mkdocs.yml").read_text(encoding="utf-8"))
    docs_dir = config.get("docs_dir", "docs")
    found: list[str] = []

    def walk(node) -> None:
        if isinstance(node, str):
            if node.endswith(".md"):
                found.append(f"{docs_dir}/{node}")
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)

    walk(config["nav"])
    return found


def pages(repo: Path) -> list[str]:
    return ["README.md"] + nav_pages(repo)


def page_commands(repo: Path, page: str) -> list[Command]:
    text = (repo / page).read_text(encoding="utf-8")
    commands: list[Command] = []
    for block in re.finditer(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M):
        offset = block.start(1)
        current = None
        last = None  # the block's latest command: the lines that follow are its shown output
        for line in block.group(1).splitlines(keepends=True):
            stripped = line.rstrip("\n")
            if current is not None:
                current += "\n" + stripped
            elif stripped.startswith("$ "):
                current = stripped[2:]
            elif last is not None:
                last.shown += line
                last.end = offset + len(line)
            offset += len(line)
            if current is not None and not current.endswith("\\"):
                last = Command(page, current, "", offset, offset)
                commands.append(last)
                current = None
    return commands


def all_commands(repo: Path) -> list[Command]:
    return [command for page in pages(repo) for command in page_commands(repo, page)]


def terminal_text(output: str, returncode: int, clone: Path) -> str:
    """What the pages show for a run: the merged output as a terminal prints it, lines stripped at the right,
    the clone's path as CLONE_SHOWN_AS, and a last line `(exit N)` when the command did not exit 0."""
    text = output.replace(str(clone), CLONE_SHOWN_AS)
    lines = [line.rstrip() for line in text.rstrip().splitlines()]
    # Off a terminal, a progress bar prints one line per step ("sweep: 3/9 setting (18.5 setting/s)"); on a
    # terminal each step overwrites the last, so only the final one stays on screen: keep that one.
    lines = [line for line, after in zip(lines, lines[1:] + [""])
             if not (PROGRESS.match(line) and PROGRESS.match(after)
                     and PROGRESS.match(line).group(1) == PROGRESS.match(after).group(1))]
    if returncode != 0:
        lines.append(f"(exit {returncode})")
    return "".join(line + "\n" for line in lines)


def run_pasted(command: Command, clone: Path, env: dict, timeout: int = 900) -> tuple[int, str]:
    """Run a command from the clone's root as a shell does, stdout and stderr merged in the order written
    (unbuffered, as on a terminal). Returns (exit code, merged output)."""
    import subprocess

    env = dict(env, PYTHONUNBUFFERED="1")
    done = subprocess.run(["bash", "-c", command.text], cwd=clone, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return done.returncode, done.stdout


def without_timings(text: str) -> list[str]:
    """The lines of a shown or fresh output with every duration and rate replaced by '#', for comparing the
    output of one machine with what another machine printed."""
    return [TIMING.sub("#", line.rstrip()) for line in text.rstrip().splitlines()]
