"""Byte limits at their boundary, for each way an upload arrives (bytes in memory, a zip in memory, a file),
and the check that a file which grew while it was read is refused, reached through files whose size
``stat`` does not tell: Linux's ``/proc`` files say 0 bytes and hold more (scripts/mutation_check.py:
``upload_bytes_at_limit_refused``, ``zip_bytes_at_limit_not_unzipped``, ``file_at_limit_refused``,
``opening_rule_growth_never_fires``, ``reader_growth_never_fires``). Standard library and pytest only (run
under every platform interpreter too)."""

from __future__ import annotations

import dataclasses
import io
import os
import sys
import zipfile
from pathlib import Path

import pytest

from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.problems import ProblemLog
from agrieval.scoring.runtime.reading._bytes_checks import read_limited
from agrieval.scoring.runtime.reading._uploads import unpack
from agrieval.scoring.runtime.reading.submission import read_submission
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes

PARTIAL = Path(__file__).resolve().parents[3] / "reference_submissions" / "plantclef2025" / "submissions" / \
    "partial.csv"
# a regular file whose stat says 0 bytes and whose read gives about a kilobyte
PROC_STATUS = f"/proc/{os.getpid()}/status"
needs_proc = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc files are Linux's")


def _definition(max_bytes: int):
    definition = load_definition("plantclef2025")
    return dataclasses.replace(definition, limits=dataclasses.replace(definition.limits, max_bytes=max_bytes))


def _codes(problems) -> list:
    return [p.code for p in problems if p.severity == "error"]


@pytest.mark.parametrize("extra,accepted", [(0, True), (-1, False)])
def test_an_upload_in_memory_of_exactly_the_limit_is_read(extra, accepted):
    data = PARTIAL.read_bytes()
    sub = read_submission(data, _definition(len(data) + extra))
    assert ("file_too_large" not in _codes(sub.problems)) is accepted
    if accepted:
        assert not _codes(sub.problems) and sub.labels.n_rows == data.count(b"\n") - 1


@pytest.mark.parametrize("extra,accepted", [(0, True), (1, True), (-1, False)])
def test_a_file_of_exactly_the_limit_is_read(tmp_path, extra, accepted):
    path = tmp_path / "submission.csv"
    path.write_bytes(PARTIAL.read_bytes())
    size = path.stat().st_size
    log = ProblemLog(file="submission.csv")
    data = read_limited(path, size + extra, log)
    assert (data == PARTIAL.read_bytes()) is accepted
    assert _codes(log.finish()) == ([] if accepted else ["file_too_large"])


def test_a_zip_in_memory_of_exactly_the_limit_is_unzipped():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("submission.csv", PARTIAL.read_bytes())
    archive = buffer.getvalue()
    upload = unpack(archive, _definition(len(archive)).limits)
    assert upload.ok and upload.data == PARTIAL.read_bytes()  # the member, not the archive's bytes


@needs_proc
def test_the_opening_rule_refuses_a_file_that_grew_past_its_cap_while_read():
    assert os.stat(PROC_STATUS).st_size == 0  # (what makes this file grow between stat and read)
    assert len(read_bytes(PROC_STATUS, max_bytes=1 << 20)) > 64  # under the cap: read whole, whatever stat said
    with pytest.raises(UntrustedFileError) as caught:
        read_bytes(PROC_STATUS, max_bytes=64)
    assert caught.value.code == "file_too_large" and "grew past 64 bytes" in caught.value.message


@needs_proc
def test_the_reader_refuses_a_file_that_grew_past_the_limit_while_read():
    log = ProblemLog(file="status")
    assert read_limited(PROC_STATUS, 1 << 20, log) and not log.finish()
    log = ProblemLog(file="status")
    assert read_limited(PROC_STATUS, 64, log) is None
    assert _codes(log.finish()) == ["file_too_large"]
