"""The platforms' interpreters (``.ci/interpreters``), as venvs built by ``scripts/platform_venvs.sh``.

A test that says "as the platform runs it" runs the bundle under one of these.
A missing venv fails the test under CI (``AGRIEVAL_REQUIRE_PLATFORMS=1``, set by
``make test``) and skips it elsewhere with the command that builds it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def interpreters() -> dict[str, str]:
    """label -> what it stands for, in the order of ``.ci/interpreters``."""
    out = {}
    for line in (REPO / ".ci" / "interpreters").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            label, _python, _numpy, *what = line.split()
            out[label] = " ".join(what)
    return out


def python(label: str) -> str:
    path = REPO / ".venv-platforms" / label / "bin" / "python"
    if not path.exists():
        message = f"{path} is missing: build it with scripts/platform_venvs.sh"
        if os.environ.get("AGRIEVAL_REQUIRE_PLATFORMS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return str(path)


# Which interpreter models which platform (docs/facts/platforms.md).
CODABENCH = "py3.9-numpy1.22"  # codalab/codalab-legacy:py39
EVALAI = ("py3.8-numpy1.21", "py3.9-numpy1.22")  # workers: 3.7-3.9, default 3.9
HF = "py3.10"  # huggingface/competitions image
