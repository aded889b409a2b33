"""The trust rule "values are literals" has one home (``agrieval.scoring.text.literals``, DESIGN.md): no module
elsewhere quotes for a shell or escapes for HTML itself, so that a fix to a quoting rule reaches every
generated file. Read from the modules' syntax trees, so that a new writer that forgets the rule fails here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "data_tools", "baselines")
HOME = ROOT / "scoring" / "text"
# (module, function) pairs whose calls belong in the literals module only
QUOTERS = {("shlex", "quote"), ("html", "escape"), ("pipes", "quote")}


def _calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    aliases = {}  # local name -> (module, function) for "from shlex import quote as q"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in {m for m, _ in QUOTERS}:
            for a in node.names:
                if (node.module, a.name) in QUOTERS:
                    aliases[a.asname or a.name] = (node.module, a.name)
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = (node.value.id, node.attr)  # also a reference such as "q = shlex.quote"
        elif isinstance(node, ast.Name) and node.id in aliases:
            target = aliases[node.id]
        if target in QUOTERS:
            yield node.lineno, ".".join(target)


def test_no_module_quotes_for_a_shell_or_escapes_html_outside_the_literals_module():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if HOME in path.parents:
                continue
            found += [f"{path.relative_to(ROOT)}:{line}: {name}" for line, name in _calls(path)]
    assert not found, "use agrieval.scoring.text.literals (shell_word, shell_line, html) instead:\n" + "\n".join(found)


def test_the_check_sees_each_way_of_calling_a_quoter(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import shlex\nfrom html import escape as e\nq = shlex.quote\nx = e('<')\n")
    assert [name for _, name in _calls(sample)] == ["shlex.quote", "html.escape"]
