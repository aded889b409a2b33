"""``scorer._read_both`` (what ``score_file`` and ``agrieval score`` run): the solution first, so a bad solution
is raised as a host error whatever the upload holds. Runtime imports only: this runs under every interpreter of
the portable runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.scorer import _read_both
from tests.scoring.runtime.shipped_files import CORPUS, REFERENCE


def test_a_bad_solution_is_a_host_error_even_when_the_upload_is_refused(tmp_path):
    definition = load_definition("plantclef2025")
    bad_solution = tmp_path / "solution.csv"
    bad_solution.write_text("quadrat_id,species_ids\nq1,[1]\nq1,[2]\n")  # a repeated id: the host's mistake
    uploads = [REFERENCE / "plantclef2025" / "submissions" / "perfect.csv", CORPUS / "zip_corrupt.zip",
               b"\x89PNG not a csv"]
    for upload in uploads:
        if isinstance(upload, Path) and not upload.exists():
            continue
        with pytest.raises(HostError) as caught:
            _read_both(upload, bad_solution, definition)
        assert caught.value.code == "solution_invalid"
        assert "already appeared on line 2" in str(caught.value)
