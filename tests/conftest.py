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


@pytest.fixture(scope="session", autouse=True)
def _definition_cache(tmp_path_factory):
    """Validated TOML definitions are cached (scoring/authoring/definition_cache.py): in a folder of this run,
    never in the home of whoever runs the tests (subprocesses inherit it)."""
    import os

    from scoring.authoring.definition_cache import CACHE_ENV

    old = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("agrieval-cache"))
    yield
    if old is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = old
