"""Every repository path that the prose names exists: the Markdown, the TOML, and the docstrings and comments of
the Python files that git tracks. A newcomer who follows ``scoring/runtime/guard.py`` from a page finds it.

A path is a name that starts with a top-level folder of the repository and ends in a file name with an
extension (``scoring/runtime/guard.py``, ``docs/speed.md``); a folder, a pattern (``*``, ``{}``, ``<>``) or a
placeholder in capitals (``NAME.toml``) is no file name. ``docs/`` and ``scripts/`` are also folders of the
grading platforms' repositories, whose files the prose cites (EvalAI's ``scripts/workers/submission_worker.py``):
there a path is checked only when its folder is one of ours. Data (``tests/fixtures/``, ``tests/platforms/corpus/``)
and the notes on other projects' code (``docs/facts/``) are not prose of ours.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROSE = (".md", ".toml", ".py")
NOT_PROSE = ("tests/fixtures/", "tests/platforms/corpus/", "docs/facts/")
SHARED_NAMES = ("docs", "scripts")  # folders the platforms' repositories have too
FILE_NAME = re.compile(r"\.(py|md|toml|json|csv|c|h|sh|txt|yml|yaml|png|svg|jpg|html|parquet|cfg)$")


def tracked_files(root: Path) -> list[str]:
    """The files git tracks (the repository as a clone has it), else every file under ``root``."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        return [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)


def python_prose(source: str) -> str:
    """The docstrings and comments of a Python file (not its other strings: code builds paths of its own)."""
    parts = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                parts.append(doc)
    try:
        parts += [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                  if tok.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError):
        pass
    return "\n".join(parts)


def named_paths(text: str, tops: list[str]) -> set[str]:
    pattern = re.compile(r"(?<![\w./-])((?:%s)/[\w./<>{}*-]*[\w>}*])" % "|".join(map(re.escape, tops)))
    found = set()
    for match in pattern.finditer(text):
        path = match.group(1).rstrip(".")
        if re.search(r"[<>{}*]|/[A-Z][A-Z_]{2,}\.", path) or "//" in path:
            continue  # a pattern or a placeholder, not one file
        if FILE_NAME.search(path):
            found.add(path)
    return found


def stale_paths(root: Path) -> dict[str, set[str]]:
    """Each path named in the prose that names no tracked file or folder -> the files that name it."""
    files = tracked_files(root)
    known = set(files) | {str(parent) for name in files for parent in Path(name).parents}
    tops = sorted({name.split("/")[0] for name in files if "/" in name and not name.startswith(".")})
    stale: dict[str, set[str]] = {}
    for name in files:
        if not name.endswith(PROSE) or name.startswith(NOT_PROSE) or not (root / name).is_file():
            continue
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for path in named_paths(python_prose(text) if name.endswith(".py") else text, tops):
            if path in known:
                continue
            if path.split("/")[0] in SHARED_NAMES and str(Path(path).parent) not in known:
                continue  # a file of another project's folder of the same name
            stale.setdefault(path, set()).add(name)
    return stale


def test_every_path_the_prose_names_exists():
    stale = stale_paths(REPO)
    assert not stale, "paths named in prose that are no file of the repository:\n" + "\n".join(
        f"  {path}  (in {', '.join(sorted(where))})" for path, where in sorted(stale.items()))


def test_a_missing_path_is_found_and_patterns_and_other_projects_folders_are_not(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "pkg" / "sub" / "here.py").write_text(
        '"""See pkg/sub/here.py and pkg/gone.py."""\nX = "pkg/built_by_code.py"  # and pkg/sub/old.md\n')
    (tmp_path / "docs" / "page.md").write_text(
        "pkg/sub/here.py, `pkg/*.py`, pkg/{a,b}.py, pkg/NAME.toml, pkg/sub/ (a folder), docs/page.md,\n"
        "EvalAI's docs/workers/worker.py, and ours: docs/gone.md.\n")
    (tmp_path / "pkg" / "def.toml").write_text('# the rule of pkg/rules.py\nname = "x"\n')
    stale = stale_paths(tmp_path)  # (no git here: every file under the folder is "tracked")
    assert stale == {"pkg/gone.py": {"pkg/sub/here.py"}, "pkg/sub/old.md": {"pkg/sub/here.py"},
                     "docs/gone.md": {"docs/page.md"}, "pkg/rules.py": {"pkg/def.toml"}}
