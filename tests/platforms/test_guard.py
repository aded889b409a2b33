"""The guarded entry point: time limit, crashes, host-side failures, zip limits."""

from __future__ import annotations

import io
import os
import signal
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from agrieval.scoring.runtime.guard import grade
from agrieval.scoring.runtime.reading._uploads import from_zip
from agrieval.scoring.runtime.result import HOST_FAILURE_MESSAGE
from tests.platforms.hook_drivers import COMPETITION, CORPUS, SOLUTION


def _with_limits(definition, **kw):
    return replace(definition, limits=replace(definition.limits, **kw))


def _slow_score(*args, **kwargs):
    time.sleep(30)


def test_a_hanging_grading_is_killed_at_the_time_limit(definition, monkeypatch):
    monkeypatch.setattr("agrieval.scoring.runtime.scorer.score", _slow_score)  # inherited by the forked child
    started = time.perf_counter()
    result = grade(CORPUS / "bom.csv", SOLUTION, _with_limits(definition, max_seconds=0.5))
    assert time.perf_counter() - started < 5
    assert result.status == "rejected" and result.exit_code == 1
    assert [e.code for e in result.errors] == ["time_limit_exceeded"]
    assert "0.5 seconds" in result.errors[0].message


def _hog(*args, **kwargs):
    return bytearray(4 * 2**30)  # 4 GiB: far past the 64 MiB allowed below


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the memory cap needs Linux /proc")
def test_a_grading_past_the_memory_cap_is_refused_and_the_server_survives(definition, monkeypatch):
    monkeypatch.setattr("agrieval.scoring.runtime.scorer.score", _hog)  # inherited by the forked child
    result = grade(CORPUS / "bom.csv", SOLUTION, _with_limits(definition, max_memory_mb=64))
    assert result.status == "rejected" and result.exit_code == 1
    assert [e.code for e in result.errors] == ["memory_limit_exceeded"]
    assert "64 MiB" in result.errors[0].message and "Traceback" not in result.errors[0].message
    assert "MemoryError" in result.host.diagnostics[0].message
    # the same file under the shipped allowance is scored as usual
    monkeypatch.undo()
    assert grade(CORPUS / "bom.csv", SOLUTION, definition).status == "scored"


def _die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


def _crash(*args, **kwargs):
    raise ZeroDivisionError("secret solution detail 1355868")


@pytest.mark.parametrize("fault", [_die, _crash])
def test_a_crashing_grader_is_a_host_error_with_a_generic_message(definition, monkeypatch, fault):
    monkeypatch.setattr("agrieval.scoring.runtime.scorer.score", fault)
    result = grade(CORPUS / "bom.csv", SOLUTION, definition)
    assert result.status == "error" and result.exit_code == 3
    assert [(e.code, e.message) for e in result.errors] == [("internal_error", HOST_FAILURE_MESSAGE)]
    assert "1355868" not in result.participant_message()
    assert result.host.diagnostics and result.host.diagnostics[0].code == "internal_error"


def test_bad_solution_and_unknown_competition_are_host_errors(tmp_path):
    bad = tmp_path / "solution.csv"
    bad.write_text('"quadrat_id","species_ids","Usage"\n"A-1","[1355868]","Secret"\n')
    result = grade(CORPUS / "bom.csv", bad, COMPETITION)
    assert result.status == "error"
    assert result.host.diagnostics[0].code == "solution_invalid"
    assert "Secret" not in str(result.participant_view())
    result = grade(CORPUS / "bom.csv", SOLUTION, "no_such_competition")
    assert result.status == "error" and result.host.diagnostics[0].code == "definition_invalid"


def test_missing_submission_path_is_host_side():
    result = grade("/nonexistent/submission.csv", SOLUTION, COMPETITION)
    assert result.status == "error" and "does not exist" in result.host.diagnostics[0].message


def test_inflation_stops_at_the_limit_even_when_the_declared_size_is_small(definition):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("s.csv", b"0" * 2_000_000)
    limits = replace(definition.limits, max_unzipped_bytes=3_000_000)
    assert from_zip(io.BytesIO(buf.getvalue()), limits, display_name="s.zip").ok
    small = replace(definition.limits, max_unzipped_bytes=1_000_000)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        info = zf.infolist()[0]
        assert info.file_size == 2_000_000
    # Declared size over the limit: refused before inflating.
    up = from_zip(io.BytesIO(buf.getvalue()), small, display_name="s.zip")
    assert not up.ok and up.problems[0].code == "zip_too_large" and "expands to" in up.problems[0].message
    # A header that lies (claims 10 bytes): the streaming cap still stops at the limit.
    from agrieval.scoring.runtime.reading import _uploads as uploads

    log = uploads.ProblemLog(file="s.zip")
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert uploads._inflate_capped(zf, zf.infolist()[0], 1_000_000, log) is None
    assert log.problems[0].code == "zip_too_large"


def test_upload_folder_shapes(tmp_path, definition):
    from agrieval.scoring.runtime.reading._uploads import open_upload

    empty = tmp_path / "empty"
    empty.mkdir()
    assert open_upload(empty, definition.limits).problems[0].code == "zip_empty"
    nested = tmp_path / "nested" / "deep"
    nested.mkdir(parents=True)
    (nested / "submission.csv").write_bytes((CORPUS / "bom.csv").read_bytes())
    (tmp_path / "nested" / "metadata").write_text("platform file\n")
    assert open_upload(tmp_path / "nested", definition.limits).ok
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "submission.csv").symlink_to(SOLUTION)
    up = open_upload(linked, definition.limits)
    assert not up.ok and up.problems[0].code == "zip_unsafe_member"


def test_a_problem_of_the_whole_upload_folder_is_named_submission_not_the_platforms_folder(tmp_path, definition):
    """Codabench unpacks the participant's zip into ``input/res/``: "res" is the platform's name, never one
    the participant chose (found running Codabench's own compute_worker, docs/platform_checks.md)."""
    from agrieval.scoring.runtime.reading._uploads import open_upload

    res = tmp_path / "input" / "res"
    res.mkdir(parents=True)
    for name in ("partial.csv", "README.txt"):
        (res / name).write_text("quadrat_id,species_ids\n")
    up = open_upload(res, definition.limits)
    assert [p.code for p in up.problems] == ["zip_several_files"]
    assert up.problems[0].render().startswith("submission: error [zip_several_files] the upload holds 2 files")
    assert "res" not in up.problems[0].render().replace("README", "")


def test_a_file_that_times_out_also_gets_its_real_problem_named(definition, monkeypatch, tmp_path):
    monkeypatch.setattr("agrieval.scoring.runtime.scorer.score", _slow_score)
    bad = tmp_path / "slow.csv"
    bad.write_text('quadrat_id,species_ids\nCBN-PdlC-A1-20230512,"[1355868.0]"\n')
    result = grade(bad, SOLUTION, _with_limits(definition, max_seconds=0.5))
    assert [e.code for e in result.errors] == ["time_limit_exceeded", "float_label"]
    assert result.errors[1].line == 2
