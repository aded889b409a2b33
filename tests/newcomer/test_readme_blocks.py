"""The README and the docs pages as a newcomer pastes them: the quick start is two commands, and the `$ ...`
command blocks of README.md and of every page of the mkdocs nav run, in that order, from a fresh clone with
`agrieval` on PATH (what `. .venv/bin/activate` gives), print what the pages show in full, and leave the clone's
tree as git checked it out. What a block, a command and its shown output are: tests/newcomer/doc_blocks.py, shared
with scripts/regen_docs_outputs.py, which rewrites the shown outputs."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")

from . import clone as clone_module  # noqa: E402
from . import doc_blocks
from .clone import git_snapshot, left_in_tree  # noqa: E402


def runnable(cheap: bool) -> list:
    return [c for c in doc_blocks.all_commands(REPO) if c.runnable and (c.cheap or not cheap)]


def test_the_quick_start_is_exactly_two_commands():
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    first = re.search(r"```\n(.*?)```", section, flags=re.S).group(1)
    assert [line.split("#")[0].strip() for line in first.strip().splitlines()] == ["make demo", "make test"]
    ci = (REPO / ".ci/run").read_text()
    assert "make test" in ci.splitlines()  # CI runs the README's test command, in a fresh clone (git clone)
    assert "git clone" in ci


def test_the_readme_is_a_landing_page_with_one_runnable_example_per_kind_of_user():
    assert len(README.splitlines()) < 300
    commands = doc_blocks.page_commands(REPO, "README.md")
    for who in ("Participant", "Organizer", "Researcher"):
        part = README.split(f"**{who}:", 1)[1].split("\n**", 1)[0]
        assert "\n$ agrieval " in part, who  # a command, not only prose
        assert re.search(r"\]\(docs/[a-z_]+\.md", part), who  # and where to read on
    assert len(commands) >= 4 and all(c.runnable for c in commands)


def test_the_pages_run_are_the_readme_then_the_nav_and_exclude_the_incoming_notes():
    pages = doc_blocks.pages(REPO)
    assert pages[0] == "README.md" and "docs/organizers.md" in pages and "docs/cli.md" in pages
    assert not any("_incoming" in page for page in pages)
    assert all((REPO / page).is_file() for page in pages)


def test_no_command_names_a_bare_interpreter_version():
    """A worker simulation runs under the venv `make platform-venvs` prints, never a `python3.9` the
    reader may not have."""
    bare = [c.text for c in doc_blocks.all_commands(REPO) if re.search(r"(^|[\s(;&|])python3\.\d+\b", c.text)]
    assert not bare, bare


def test_every_command_writes_under_out_or_a_temporary_folder():
    """No output option of a pasted command names a path outside out/ (a tracked file, or clutter at the root)."""
    outside = []
    for command in doc_blocks.all_commands(REPO):
        for path in re.findall(r"(?:--out|-o|--out-csv|--link-to|--move-to|--runs-dir|--save-tile-scores)[ =](\S+)",
                               command.text):
            # out/..., an absolute folder the reader picks (/fast/...), or a placeholder such as DIR
            if not path.startswith(("out/", "/")) and not re.fullmatch(r"[A-Z_]+", path):
                outside.append((command.page, command.text.splitlines()[0], path))
    assert not outside, outside


def run_in_order(commands, clone: Path, env: dict, compare: bool = False) -> None:
    """Each command in order, from the clone; its exit code is checked, and with ``compare`` its output too
    wherever the page shows that output in full (durations and rates aside: they are the machine's)."""
    failures = []
    for command in commands:
        code, output = doc_blocks.run_pasted(command, clone, env, timeout=600)
        shown = command.shown
        # A command the page shows failing (a refused output, to show the policy) may exit 2 as shown.
        allowed = (0, 1, 2) if re.search(r"^(\S+: )?error \[", shown, flags=re.M) else (0, 1)
        where = f"[{command.page}] $ {command.text}"
        if code not in allowed or "Traceback" in output or "command not found" in output:
            failures.append(f"{where}\n-> exit {code}\n{output[-1500:]}")
        elif compare and command.shown_in_full:
            got = doc_blocks.terminal_text(output, code, clone)
            if doc_blocks.without_timings(got) != doc_blocks.without_timings(shown):
                failures.append(f"{where}\nprints something else than the page shows "
                                f"(python scripts/regen_docs_outputs.py rewrites it):\n"
                                f"{doc_blocks.terminal_text(output, code, clone)[-1500:]}")
    assert not failures, "\n\n".join(failures)


def clone_env(env_with, clone: Path) -> dict:
    env = env_with(Path(sys.executable).parent)
    env["PYTHONPATH"] = str(clone)  # the clone's code, with this venv's packages
    clone_module.link_platform_venvs(clone)  # `make platform-venvs` in the organizers' page
    return env


def test_the_cheap_commands_run_as_pasted_print_what_the_pages_show_and_leave_the_tree_clean(another_clone,
                                                                                               env_with):
    commands = runnable(cheap=True)
    assert len(commands) >= 10
    clone = another_clone()
    git_snapshot(clone)
    links = clone_module.platform_links()
    run_in_order(commands, clone, clone_env(env_with, clone), compare=True)
    assert left_in_tree(clone) == ""
    assert clone_module.platform_links() == links  # the borrowed venvs still run this checkout's runtime


@pytest.mark.slow
def test_every_runnable_command_runs_as_pasted_prints_what_the_pages_show_and_leaves_the_tree_clean(another_clone, env_with):
    clone = another_clone()
    git_snapshot(clone)
    links = clone_module.platform_links()
    run_in_order(runnable(cheap=False), clone, clone_env(env_with, clone), compare=True)
    assert left_in_tree(clone) == ""
    assert clone_module.platform_links() == links  # the borrowed venvs still run this checkout's runtime


@pytest.mark.slow
def test_make_demo_from_a_fresh_clone_installs_the_scoring_kit_says_what_next_and_leaves_the_tree_clean(demo_clone):
    """`make demo` ran in a fresh clone (the session's ``demo_clone``, whose venv the partial-install tests use)."""
    assert demo_clone.make.returncode == 0, demo_clone.make.stderr[-3000:]
    assert "== plantclef2025:" in demo_clone.make.stdout and ". .venv/bin/activate" in demo_clone.make.stdout
    torch = subprocess.run([str(demo_clone.path / ".venv/bin/python"), "-c", "import torch"], capture_output=True)
    assert torch.returncode != 0
    assert demo_clone.left_in_tree == ""
