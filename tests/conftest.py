import importlib.abc
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The real files of other people's pipelines, copied into the repository (origins: its README.md).
REAL_FILES = REPO / "tests" / "fixtures" / "real"
REFERENCE = REPO / "reference_submissions"

# Under pytest-xdist (`make test` runs `-n auto --dist loadgroup`) the tests of one ``xdist_group`` run on one
# worker, one after the other (pytest_collection_modifyitems below); every other test is independent.
# The newcomer's fresh clone and the scoring-only venv `make demo` makes in another (tests/newcomer/conftest.py)
# are session fixtures: in one group they are built once, not once per worker (about 12 s and 340 MB a venv).
# The tests that only take `another_clone` (each call a new clone of its own) stay free to run beside them.
_CLONE_FIXTURES = frozenset({"fresh_clone", "scoring_venv", "demo_clone"})


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def real_files() -> Path:
    if not REAL_FILES.is_dir():
        pytest.fail(f"{REAL_FILES} is missing: it is tracked in the repository; is this a partial checkout?")
    return REAL_FILES


class _OnlyTheNamespace(importlib.abc.MetaPathFinder):
    """The repository's folders `scoring/`, `data_tools/`, `baselines/` are importable as bare top-level names
    here only because `python -m pytest` puts the checkout on sys.path; an installed kit has only
    ``agrieval.*``. Refusing the bare names makes a stray ``import scoring`` or ``resources.files("data_tools")``
    fail in the suite as it would for a user, instead of passing on the checkout's folder."""

    BARE = frozenset({"scoring", "data_tools", "baselines"})

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self.BARE:
            raise ModuleNotFoundError(f"No module named {fullname!r}: the kit's import names are agrieval.{fullname}",
                                      name=fullname)
        return None


sys.meta_path.insert(0, _OnlyTheNamespace())


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into the test ids
def pytest_collection_modifyitems(config, items):
    """Groups for xdist (the comment at the top): a module's own ``XDIST_GROUP`` (its tests read what an earlier
    one wrote: one worker, in file order); "slurm", the files named for it, which submit to the one-node
    SLURM of scripts/slurm/up.sh (one queue, the node's CPUs); "newcomer-clone", the users of the clone; "browser",
    the users of the one headless Chromium (tests/browser.py)."""
    if not config.pluginmanager.hasplugin("xdist"):  # (the marker is xdist's; the platform venvs run without it)
        return
    for item in items:
        own = getattr(getattr(item, "module", None), "XDIST_GROUP", None)  # a module that needs its tests in order
        if own:
            item.add_marker(pytest.mark.xdist_group(own))
        elif "slurm" in item.path.name:
            item.add_marker(pytest.mark.xdist_group("slurm"))
        elif _CLONE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("newcomer-clone"))
        elif "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("browser"))


def pytest_collection_finish(session):
    """A worker under --dist loadgroup whose test ids lack their group: the groups would be split across workers
    (pytest 9.2 with pytest-xdist 3.8 did exactly this: constraints.txt pins a pair that honours them)."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    for item in session.items:
        marks = [m.args[0] for m in item.iter_markers("xdist_group") if m.args]
        if marks and not item.nodeid.endswith("@" + "_".join(sorted(set(marks)))):
            raise pytest.UsageError(f"pytest-xdist did not put {item.nodeid} in its group {marks[0]!r}: this "
                                    "pytest/pytest-xdist pair splits xdist groups; install the pins of constraints.txt")
