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
