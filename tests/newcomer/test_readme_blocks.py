"""The README as a newcomer pastes it: the quick start is two commands, and its `$ ...` command blocks run, in
order, from a fresh clone with `agrieval` on PATH (what `. .venv/bin/activate` gives)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")

# Commands that name your own data, weights, a GPU or a cluster, or that are benchmarks: not run as pasted.
NEEDS_YOURS = re.compile(r"\bSPLITS\b|\bWEIGHTS\b|test_images/|\btiles\.parquet|torchrun|sbatch|--device cuda|"
                         r"make_examples|/fast/|\bruns\b --plots|benchmarks/|--rows")
# Cheap blocks: the scoring side (seconds); the rest (data, baselines, reports) is marked slow.
CHEAP = re.compile(r"^agrieval (score|validate|competitions|grade|rank-agreement|ctv summarize|bundle)\b|^echo |"
                   r"^mkdir |^cp ")


def command_blocks(text: str) -> list[list[tuple[str, str]]]:
    """(command, the output the README shows for it) of each fenced block, continuation lines joined."""
    blocks = []
    for body in re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M):
        cmds, current = [], None
        for line in body.splitlines():
            if current is not None:
                current += "\n" + line
            elif line.startswith("$ "):
                current = line[2:]
            else:
                if cmds:
                    cmds[-1] = (cmds[-1][0], cmds[-1][1] + line + "\n")
                continue
            if not current.endswith("\\"):
                cmds.append((current, ""))
                current = None
        if cmds:
            blocks.append(cmds)
    return blocks


def runnable(cheap: bool) -> list[tuple[str, str]]:
    out = []
    for block in command_blocks(README):
        for cmd, shown in block:
            if NEEDS_YOURS.search(cmd):
                continue
            is_cheap = bool(CHEAP.match(cmd)) and "-demo/" not in cmd  # a demo folder comes from a slow demo
            if is_cheap or not cheap:
                out.append((cmd, shown))
    return out


def test_the_quick_start_is_exactly_two_commands():
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    first = re.search(r"```\n(.*?)```", section, flags=re.S).group(1)
    assert [line.split("#")[0].strip() for line in first.strip().splitlines()] == ["make demo", "make test"]
    ci = (REPO / ".ci/run").read_text()
    assert "make test" in ci.splitlines()  # CI runs the README's test command, in a fresh clone (git clone)
    assert "git clone" in ci


def shown_in_full(shown: str) -> bool:
    """The README shows this command's whole output (not an excerpt with '...')."""
    lines = shown.rstrip().splitlines()
    return bool(lines) and not any(line.strip().startswith("...") for line in lines)


def run_in_order(commands, clone: Path, env: dict, compare: bool = False) -> None:
    """Each command in order, from the clone; its exit code is checked, and with ``compare`` its output too
    wherever the README shows that output in full."""
    failures = []
    for cmd, shown in commands:
        out = subprocess.run(["bash", "-c", cmd], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
        text = out.stdout + out.stderr
        # A command the README shows failing (a refused output, to show the policy) may exit 2 as shown.
        allowed = (0, 1, 2) if re.search(r"^(\S+: )?error \[", shown, flags=re.M) else (0, 1)
        if out.returncode not in allowed or "Traceback" in text or "command not found" in text:
            failures.append(f"$ {cmd}\n-> exit {out.returncode}\n{text[-1500:]}")
        elif compare and shown_in_full(shown):
            got = [line.rstrip() for line in text.rstrip().splitlines()]
            if got != [line.rstrip() for line in shown.rstrip().splitlines()]:
                failures.append(f"$ {cmd}\nprints something else than the README shows:\n{text[-1500:]}")
    assert not failures, "\n\n".join(failures)


def clone_env(env_with, clone: Path) -> dict:
    env = env_with(Path(sys.executable).parent)
    env["PYTHONPATH"] = str(clone)  # the clone's code, with this venv's packages
    # `python3.9` in the platform blocks: the Codabench/EvalAI interpreter with numpy (`make platform-venvs`)
    platform = REPO / ".venv-platforms" / "py3.9-numpy1.22" / "bin"
    if platform.is_dir():
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{platform}{os.pathsep}{env['PATH']}"
    return env


def test_the_cheap_readme_commands_run_as_pasted_and_print_what_it_shows(another_clone, env_with):
    commands = runnable(cheap=True)
    assert len(commands) >= 10
    clone = another_clone()
    run_in_order(commands, clone, clone_env(env_with, clone), compare=True)


@pytest.mark.slow
def test_every_runnable_readme_command_runs_as_pasted(another_clone, env_with):
    clone = another_clone()
    run_in_order(runnable(cheap=False), clone, clone_env(env_with, clone))


@pytest.mark.slow
def test_make_demo_from_a_fresh_clone_installs_the_scoring_kit_and_says_what_next(fresh_clone, env_with):
    out = subprocess.run(["make", "demo", "VENV=.venv-demo"], cwd=fresh_clone, env=env_with(None),
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "== plantclef2025:" in out.stdout and ". .venv-demo/bin/activate" in out.stdout
    torch = subprocess.run([str(fresh_clone / ".venv-demo/bin/python"), "-c", "import torch"], capture_output=True)
    assert torch.returncode != 0
