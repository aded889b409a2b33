"""The generated tables of ``docs/plantclef.md``: ``python -m agrieval.baselines.plantclef._cli.doc_tables [--check]``.

Each table sits between ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->``;
``tests/baselines/plantclef/test_docs.py`` fails when one is not what this module renders.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from agrieval.baselines.plantclef._cli.recipe_table import options_table, recipe_table

DOC = Path(__file__).resolve().parents[3] / "docs" / "plantclef.md"


def tables() -> dict[str, str]:
    return {"recipes": recipe_table(markdown=True), "aggregation-options": options_table(markdown=True)}


def _block(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- generated: {re.escape(name)} -->\n)(.*?)(<!-- end generated: {re.escape(name)} -->)",
                      re.S)


def rendered(text: str) -> str:
    """``text`` with every generated table replaced by its current rendering."""
    for name, table in tables().items():
        pattern = _block(name)
        if not pattern.search(text):
            raise ValueError(f"no generated block {name!r} in the text")
        text = pattern.sub(lambda m: m.group(1) + table + m.group(3), text)
    return text


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = rendered(text)
    if "--check" in argv:
        return 0 if new == text else 1
    if new != text:
        DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
