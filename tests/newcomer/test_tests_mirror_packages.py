"""``tests/`` mirrors the packages: the tests of ``scoring/runtime/reading/`` are in
``tests/scoring/runtime/reading/``, those of ``data_tools/`` in ``tests/data_tools/``, and so on, so a newcomer
finds a module's tests from its path alone.

Derived from the tree, both ways: every folder under ``tests/`` is a package folder (a folder of ``scoring/``,
``baselines/`` or ``data_tools/`` holding Python files), and every package folder has its test folder. Outside
the mirror: ``tests/fixtures/`` (data other tests read) and the folders that test the project as a whole
(``WHOLE_PROJECT``); a package tested only from one of those is named in ``TESTED_ELSEWHERE``, with where.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "baselines", "data_tools")
FIXTURES = "tests/fixtures"
# folders that test the kit across its packages, not one package
WHOLE_PROJECT = {
    "tests/newcomer": "a newcomer's fresh clone, and the checks of docs/development.md",
    "tests/platforms": "the bundles of scoring/authoring/_bundles/ run with the hooks of scoring/runtime/_platforms/, "
                       "on the hostile-upload corpus",
    "tests/packaging": "the built wheel in a fresh virtual environment",
}
# package folders without a test folder of their own: where their tests are
TESTED_ELSEWHERE = {
    "scoring/authoring/_bundles": "tests/platforms",
    "scoring/runtime/_platforms": "tests/platforms",
    "baselines/plantclef/_cli": "tests/baselines/plantclef/test_cli.py",
}


def files_under(root: Path, top: str) -> list[str]:
    """The files under ``root/top`` as repository paths (caches and hidden folders left out)."""
    out = []
    for path in (root / top).rglob("*"):
        rel = path.relative_to(root)
        if path.is_file() and not any(p == "__pycache__" or p.startswith(".") for p in rel.parts):
            out.append(rel.as_posix())
    return sorted(out)


def _folders(files: list[str]) -> set[str]:
    """Every folder holding one of ``files``, and the folders above it."""
    out = set()
    for name in files:
        out.update(p.as_posix() for p in PurePosixPath(name).parents if p.as_posix() != ".")
    return out


def mirrored_as(package: str) -> str:
    """The test folder of a package folder, below ``tests/``: its path without the underscores that mark internal
    packages (``scoring/_server`` is tested in ``tests/scoring/server/``)."""
    return "/".join(part[1:] if part.startswith("_") else part for part in package.split("/"))


def mirror_problems(test_files: list[str], package_files: list[str]) -> list[str]:
    """What breaks the mirror (empty: none), from the files under tests/ and under the packages."""
    packages = _folders([f for f in package_files if f.endswith(".py")])
    as_tests = {mirrored_as(p) for p in packages}
    problems = []
    for folder in sorted(_folders(test_files) - {"tests"}):
        if folder == FIXTURES or folder.startswith(FIXTURES + "/"):
            continue
        if any(folder == w or folder.startswith(w + "/") for w in WHOLE_PROJECT):
            continue
        if folder[len("tests/"):] not in as_tests:
            problems.append(f"{folder}/ is no package folder (move its tests to the folder of the package they "
                            f"test, its data under {FIXTURES}/)")
    mirrored = {f[len("tests/"):] for f in _folders(test_files)}
    for package in sorted(packages):
        if mirrored_as(package) in mirrored:
            if package in TESTED_ELSEWHERE:
                problems.append(f"{package}/ has tests/{mirrored_as(package)}/ now: drop it from TESTED_ELSEWHERE")
        elif package not in TESTED_ELSEWHERE:
            problems.append(f"{package}/ has no tests/{mirrored_as(package)}/")
    return problems


def test_every_test_folder_is_a_package_folder_and_back():
    problems = mirror_problems(files_under(REPO, "tests"), [f for top in PACKAGES for f in files_under(REPO, top)])
    assert problems == []


def test_the_exceptions_name_what_exists():
    for package, where in TESTED_ELSEWHERE.items():
        assert (REPO / package).is_dir() and (REPO / where).exists(), (package, where)
    assert all((REPO / folder).is_dir() for folder in WHOLE_PROJECT)


def test_a_misplaced_test_folder_is_named():
    """The check itself, on the tree with a planted mistake: the reader's tests put back where they were before
    issue 58 (``tests/scoring/reading/``, no package), and a package whose tests are gone."""
    tests = files_under(REPO, "tests")
    packages = [f for top in PACKAGES for f in files_under(REPO, top)]
    # (joined here: a whole path in the source would read as a stale one to the docs' path checks)
    planted = tests + [f"{folder}/{name}" for folder, name in [("tests/scoring/reading", "test_planted.py"),
                                                               ("tests/scoring/files", "planted.csv")]]
    assert mirror_problems(planted, packages) == [
        f"tests/scoring/files/ is no package folder (move its tests to the folder of the package they test, its "
        f"data under {FIXTURES}/)",
        f"tests/scoring/reading/ is no package folder (move its tests to the folder of the package they test, its "
        f"data under {FIXTURES}/)"]
    without_text = [f for f in tests if not f.startswith("tests/scoring/text/")]
    assert mirror_problems(without_text, packages) == ["scoring/text/ has no tests/scoring/text/"]
