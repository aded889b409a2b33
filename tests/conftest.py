from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_REAL = REPO.parent / "shared" / "real"
REFERENCE = REPO / "reference_submissions"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_real() -> Path:
    if not SHARED_REAL.is_dir():
        pytest.fail(f"{SHARED_REAL} is missing: the real files from ../shared/real are required by the tests")
    return SHARED_REAL
