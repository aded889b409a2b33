"""The old CSV log's header sniff (``_log_header.is_submission_log``, which keeps a folder listing from
scoring the log) opens the file by the one opening rule: a FIFO is not waited on, a device, a folder or a file
larger than any log is not a log, and a real log is still recognised."""

from __future__ import annotations

import pytest

from agrieval.scoring.analysis_input import _log_header
from agrieval.scoring.analysis_input._log_header import COLUMNS, is_submission_log
from tests.hostile_files import NOT_REGULAR, at_most, make_not_regular


def test_a_log_is_recognised_by_its_header(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text(",".join(COLUMNS) + "\n")
    other = tmp_path / "sub.csv"
    other.write_text("quadrat_id,species_ids\n")
    assert is_submission_log(log) and not is_submission_log(other)


@pytest.mark.parametrize("shape", ["fifo", "device", "folder", "over the cap"])
def test_a_hostile_file_is_not_a_log_and_is_not_waited_on(tmp_path, monkeypatch, shape):
    path = tmp_path / "log.csv"
    if shape in NOT_REGULAR:
        make_not_regular(path, shape)
    else:  # a log's header, in a file larger than the cap: refused before it is read
        path.write_text(",".join(COLUMNS) + "\n")
        monkeypatch.setattr(_log_header, "MAX_LOG_BYTES", path.stat().st_size - 1)
    with at_most(10, "the log"):
        assert not is_submission_log(path)
