import importlib.abc
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The real files of other people's pipelines, copied into the repository (origins: its README.md).
REAL_FILES = REPO / "tests" / "fixtures" / "real"
REFERENCE = REPO / "reference_submissions"


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
