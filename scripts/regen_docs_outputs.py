"""Rewrite the outputs the README and the docs pages show in full, by running their `$ ` commands.

    python scripts/regen_docs_outputs.py            # every runnable command (the slow ones too: minutes)
    python scripts/regen_docs_outputs.py --cheap    # only the scoring-side ones (seconds)

The commands run in order, as a newcomer pastes them, in a copy of the tracked files made in a temporary
folder (so nothing lands in this tree), with this interpreter's `agrieval` first on PATH. Only outputs shown in
full are rewritten; excerpts (a line starting with '...') and commands that need your data, a GPU or a cluster
(tests/newcomer/doc_blocks.py NEEDS_YOURS) are left as they are. tests/newcomer/test_readme_blocks.py checks the
shown outputs against fresh runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "newcomer"))  # (what the test uses: one definition of a block, a clone)

from clone import copy_tracked, link_platform_venvs  # noqa: E402
from doc_blocks import all_commands, run_pasted, terminal_text  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cheap", action="store_true", help="only the scoring-side commands")
    args = parser.parse_args()
    commands = [c for c in all_commands(REPO) if c.runnable and (c.cheap or not args.cheap)]
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    new_text: dict[str, list] = {}
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        clone = copy_tracked(Path(tmp) / "agrieval")
        link_platform_venvs(clone)
        env["PYTHONPATH"] = str(clone)
        for command in commands:
            code, output = run_pasted(command, clone, env)
            print(f"[{command.page}] exit {code}: $ {command.text.splitlines()[0][:100]}", file=sys.stderr)
            if command.shown_in_full:
                shown = terminal_text(output, code, clone)
                # keep the blank lines that separate this command from the next one in its block
                blank = command.shown[len(command.shown.rstrip("\n")):]
                new_text.setdefault(command.page, []).append((command, shown.rstrip("\n") + (blank or "\n")))
    for page, changes in new_text.items():
        text = (REPO / page).read_text(encoding="utf-8")
        if any(text[c.start:c.end] != c.shown for c, _ in changes):  # edited while the commands ran
            print(f"error: {page} changed while the commands ran; not rewritten, run again", file=sys.stderr)
            status = 1
            continue
        for command, shown in sorted(changes, key=lambda change: -change[0].start):
            text = text[:command.start] + shown + text[command.end:]
        (REPO / page).write_text(text, encoding="utf-8")
        print(f"rewrote {len(changes)} output(s) in {page}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
