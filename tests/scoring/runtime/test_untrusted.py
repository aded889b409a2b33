"""The one opening rule (scoring/runtime/untrusted.py) attacked with what else a path can be, and the
Ladder state read through it (issue 43, item 3).

Before: a Ladder state that was a FIFO hung ``grade`` forever, a link to ``/dev/zero`` read until memory
ran out, a deeply nested state was ``internal_error``, and a state that was a symlink was replaced by a
regular file on the first grading (the real state stopped updating; graders using the two names did not
exclude each other).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

import pytest

from agrieval.scoring.runtime import _ladder as ladder
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular, read_bytes, read_json

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, sockets and /dev/zero: POSIX")


@pytest.fixture(autouse=True)
def _no_hang():
    """A refusal must come at once: a hang fails the test after 10 s instead of blocking the suite."""
    def hung(*_):
        raise AssertionError("the open or read hung")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def _socket(tmp_path):
    path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return path


def _dev_zero_link(tmp_path):
    path = tmp_path / "zero"
    path.symlink_to("/dev/zero")
    return path


@pytest.mark.parametrize("make", [_fifo, _socket, _dev_zero_link, lambda p: p], ids=["fifo", "socket",
                                                                                   "dev-zero-link", "folder"])
def test_what_is_not_a_regular_file_is_refused_by_name(tmp_path, make):
    path = make(tmp_path)
    with pytest.raises(UntrustedFileError) as err:
        read_bytes(path, max_bytes=1 << 20, what="state")
    assert err.value.code == "not_regular_file" and err.value.file == str(path)
    assert err.value.render().startswith(f"{path}: error [not_regular_file] the state is ")


def test_size_cap_before_reading_and_a_missing_file_passes_through(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(UntrustedFileError) as err:
        read_bytes(big, max_bytes=100)
    assert err.value.code == "file_too_large" and "101 bytes" in err.value.message
    assert read_bytes(big, max_bytes=101) == b"x" * 101
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "absent", max_bytes=1)


@pytest.mark.parametrize("depth", [65, 100_000])
def test_json_deeper_than_the_cap_is_a_coded_refusal(tmp_path, depth):
    path = tmp_path / "deep.json"
    path.write_text("[" * depth + "]" * depth)
    with pytest.raises(UntrustedFileError) as err:
        read_json(path, max_bytes=1 << 20, max_depth=64)
    assert err.value.code == "json_too_deep"
    path.write_text("[" * 64 + "]" * 64)
    assert read_json(path, max_bytes=1 << 20, max_depth=64) is not None


def test_a_link_is_followed_to_a_regular_file(tmp_path):
    (tmp_path / "real.json").write_text('{"a": 1}')
    (tmp_path / "link.json").symlink_to("real.json")
    assert read_json(tmp_path / "link.json", max_bytes=100) == {"a": 1}


# --- the Ladder state, read and written through the rule -----------------------------------------------

KW = dict(competition="c", metric="m", solution_sha256="s" * 64)


def _submit(path, values=(0.5, 0.6, 0.7)):
    return ladder.submit(path, list(values), {"m": sum(values) / len(values)}, unit="unit", **KW)


@pytest.mark.parametrize("make", [_fifo, _dev_zero_link, "deep"], ids=["fifo", "dev-zero-link", "deep"])
def test_a_ladder_state_that_is_no_state_file_is_corrupt_at_once(tmp_path, make):
    if make == "deep":
        path = tmp_path / "team.json"
        path.write_text("[" * 100_000 + "]" * 100_000)
    else:
        path = make(tmp_path)
    with pytest.raises(HostError) as err:
        _submit(path)
    assert err.value.code == "ladder_state_corrupt" and repr(os.path.realpath(path)) in err.value.message


def test_a_ladder_state_behind_a_link_stays_a_link_and_is_the_one_updated(tmp_path):
    real = tmp_path / "states" / "team.json"
    real.parent.mkdir()
    link = tmp_path / "team-link.json"
    link.symlink_to(real)
    _submit(real)
    _submit(link, (0.9, 0.9, 0.9))
    assert link.is_symlink() and os.readlink(link) == str(real)
    data = json.loads(real.read_text())
    assert data["n_submissions"] == 2
    # one lock for both names: the lock is taken on the file that is written
    assert (real.parent / "team.json.lock").exists() and not (tmp_path / "team-link.json.lock").exists()


def test_the_csv_readers_open_by_the_rule(tmp_path):
    """``read_limited`` (submissions, solutions, id lists) opens through the rule: a FIFO given as a path
    (not only one found by the upload check, which a swap after it would pass) is refused, not waited on."""
    from agrieval.scoring.authoring.definitions import load_competition
    from agrieval.scoring.runtime.reading.solution import load_solution
    from agrieval.scoring.runtime.reading.submission import read_submission

    definition = load_competition("plantclef2025")
    fifo = _fifo(tmp_path)
    sub = read_submission(fifo, definition)
    assert [(p.code, "not a regular file" in p.message) for p in sub.errors] == [("not_text", True)]
    with pytest.raises(HostError):
        load_solution(fifo, definition)


# --- caps on what JSON parses to (issue 56): checked on the bytes, before anything is built ----------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from agrieval.scoring.runtime.untrusted import json_depth, json_shape  # noqa: E402

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text("[]{},:\"\\ab\u2028"),
                     lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text("[]{}\",:\\x"), kids, max_size=4),
                     max_leaves=30)


def _containers(value) -> int:
    if isinstance(value, list):
        return 1 + sum(_containers(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(_containers(v) for v in value.values())
    return 0


@settings(max_examples=300, deadline=None)
@given(_JSON, st.booleans())
def test_the_shape_measured_on_the_bytes_is_the_parsed_documents(value, ascii_only):
    """Oracle: the parsed document walked node by node (json_depth, a recursive count)."""
    import json

    data = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    depth, containers, values = json_shape(data)
    assert depth == json_depth(value, 10_000) and containers == _containers(value)
    assert values >= containers


def test_a_flood_of_containers_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    """16 MB of [{},{},...] took 735 MB and 23 s in read_json (issue 56): the count comes from the bytes."""
    import json

    path = tmp_path / "flood.json"
    path.write_bytes(b"[" + b",".join([b"{}"] * 300_000) + b"]")
    monkeypatch.setattr(json, "loads", lambda *a, **k: pytest.fail("parsed before the cap was checked"))
    with pytest.raises(UntrustedFileError) as err:
        read_json(path, max_bytes=1 << 20, max_containers=1_000)
    assert err.value.code == "json_too_large" and "300,001 lists and objects" in err.value.message
    path.write_bytes(b"[" + b",".join([b"0"] * 300_000) + b"]")
    with pytest.raises(UntrustedFileError, match="about 300,001 values"):
        read_json(path, max_bytes=1 << 20, max_values=1_000)


def test_brackets_and_separators_inside_strings_count_for_nothing(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"a": "[[[[{{,,::\\\\\\"]]"}')
    assert read_json(path, max_bytes=100, max_depth=1, max_containers=1, max_values=3) == {"a": '[[[[{{,,::\\"]]'}
