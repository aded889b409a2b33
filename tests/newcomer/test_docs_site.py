"""The docs site: it builds with `mkdocs build --strict` (every page in the nav, no broken link or anchor, the
helpers' notes in docs/_incoming/ left out), and its CLI reference is what the click tree gives today."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_docs_build_strictly(tmp_path):
    # No --quiet: it hides the warnings from the strict count, and the build would pass whatever the pages hold.
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                          str(REPO / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    built = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")}
    assert {"index.html", "scoring/index.html", "organizers/index.html", "cli/index.html"} <= built
    assert not any(name.startswith("_incoming") for name in built)


def test_a_broken_link_fails_the_strict_build(tmp_path):
    """The strict build is a real check: a page linking to a page that does not exist fails it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# x\n\n[gone](nowhere.md)\n", encoding="utf-8")
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:")[0] + "\nnav:\n  - Home: index.md\n"
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d",
                          str(tmp_path / "site")], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode != 0 and "nowhere.md" in out.stdout + out.stderr


def test_the_cli_reference_is_what_the_click_tree_gives():
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "cli_reference.py"), "--check"], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr + "\n(regenerate it: python scripts/cli_reference.py)"
