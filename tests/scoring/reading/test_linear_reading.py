"""Reading is linear in the input whatever its shape (issue 43, item 4).

Before: blanks after a closing quote were mended one at a time and the record read again after each
(40 KB took 28 s); line ends of a lone CR escaped the line-count pre-check (19 MB of blank CR lines took
30 s and 1.1 GB to refuse, the same with LF 0.7 s); every ragged row was kept whole (~28x the file in
memory), and the log kept one entry per repeated line.

The one-pass reader must say what the old one said, byte for byte: ``one_mend_at_a_time`` is the old
irregular-file reader, kept as the oracle, and hypothesis draws records from a hostile alphabet (quotes,
blanks, tabs, delimiters, each kind of line end, long fields) to compare them on. Growth is checked as a
ratio measured in the same run (size x4 -> time about x4, bound x8: the quadratic reader gave ~x16),
never as an absolute time.
"""

from __future__ import annotations

import dataclasses
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.problems import ProblemLog
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.reading.one_mend_at_a_time import one_mend_at_a_time
from tests.scoring.reading.strict_reading import strict_reading

PLANTCLEF = load_competition("plantclef2025")
# a small cell limit, so that the field-limit stop is reached by short drawn files
SMALL = dataclasses.replace(PLANTCLEF, limits=dataclasses.replace(PLANTCLEF.limits, max_cell_chars=12))
HEAD = b"quadrat_id,species_ids\n"


def _summary(sub) -> dict:
    return {"ids": list(sub.ids), "lines": sub.lines.tolist(), "unread": sub.unread_ids,
            "labels": sub.labels.to_lists() if sub.labels is not None else None,
            "problems": [p.render() for p in sub.problems]}


def _old_and_new(monkeypatch, data: bytes, definition) -> tuple[dict, dict]:
    new = _summary(read_submission(data, definition))
    with monkeypatch.context() as m:
        one_mend_at_a_time(m)
        strict_reading(m)  # (the oracle is the csv path: make every file take it)
        old = _summary(read_submission(data, definition))
    return old, new


PIECES = ['"', '""', " ", "\t", "  ", ",", ";", "\n", "\r", "\r\n", "a", "Q-1", "[1]", '"[1, 2]"', '"Q-2" ',
          '"x" ,', '"y"\t,', '"z" \n', "\x00", "é", "x" * 13]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(st.sampled_from(PIECES), max_size=40), small=st.booleans())
def test_one_pass_mending_says_what_mending_one_at_a_time_said(monkeypatch, body, small):
    data = HEAD + "".join(body).encode("utf-8")
    old, new = _old_and_new(monkeypatch, data, SMALL if small else PLANTCLEF)
    assert new == old


@pytest.mark.parametrize("data", [
    HEAD + b'"Q-1" ,' * 300 + b'"[1]"\n',  # the issue's shape: every closing quote of one record
    HEAD + b'"Q-1" ,"[1]" \n"Q-2"  ,  "[2]"\t\n',
    HEAD + b'"Q-1" ,"a\n b" ,"c\r\nd"  ,"[1]"\n"Q-2","[2]"\n',  # a record over several lines
    HEAD + b'"Q-1" ,"[1]" x\n',  # text after the quote after a mended blank: stops there
    HEAD + b'"Q-1" ,"open\n' + b'"x" ,' * 20,  # never closed
    HEAD.replace(b",", b";") + b'"Q-1" ;"[1]"\n',
], ids=["one-record", "two-rows", "multi-line", "text-after", "unclosed", "semicolon"])
def test_shapes_of_the_issue_read_as_before(monkeypatch, data):
    old, new = _old_and_new(monkeypatch, data, PLANTCLEF)
    assert new == old


def _seconds(data: bytes) -> float:
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        read_submission(data, PLANTCLEF)
        best = min(best, time.perf_counter() - t)
    return best


def test_blanks_after_quotes_in_one_record_take_linear_time():
    small = HEAD + b'"Q-1" ,' * 2_000 + b'"[1]"\n'
    large = HEAD + b'"Q-1" ,' * 8_000 + b'"[1]"\n'
    _seconds(small)  # (warm)
    ratio = _seconds(large) / _seconds(small)
    assert ratio < 8, f"x4 the blanks took x{ratio:.1f} the time (quadratic: ~x16)"


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"], ids=["lf", "cr", "crlf"])
def test_every_kind_of_line_end_meets_the_line_count_pre_check(end):
    n = 2 * PLANTCLEF.limits.max_rows + 3
    sub = read_submission(HEAD.replace(b"\n", end) + end * n, PLANTCLEF)
    errors = [(p.code, p.line) for p in sub.errors]
    assert errors == [("too_many_rows", 2 * PLANTCLEF.limits.max_rows + 3)]
    assert f"the file has {n + 1:,} lines" in sub.errors[0].message


def _traced_peak(data: bytes) -> int:
    tracemalloc.start()
    try:
        read_submission(data, PLANTCLEF)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("shape", ["wide ragged rows", "one very wide row", "a blank after every quote of a row"])
def test_ragged_rows_are_not_kept_whole(shape):
    if shape == "wide ragged rows":
        data = HEAD + b"".join(b"Q-%d,[1]" % i + b",xy" * 200 + b"\n" for i in range(4_000))
    elif shape == "one very wide row":
        data = HEAD + b"Q-1,[1]" + b",x" * 400_000 + b"\n"
    else:  # (each blank is a message of its own: the log tells apart the first 10,000 of a code, no more)
        data = HEAD + b'"Q-1" ,' * 150_000 + b'"[1]"\n'
    peak = _traced_peak(data)
    # a row as a list of strings costs ~60 bytes per 3-byte field while it is read (one very wide row: ~18x);
    # every ragged row kept whole was 46x the file (wide ragged rows), now ~11x
    assert peak < 24 * len(data), f"{peak / len(data):.1f}x the file"
    sub = read_submission(data, PLANTCLEF)
    assert {p.code for p in sub.errors} <= {"ragged_row", "too_many_problems", "space_after_quote"}
    assert "Q-1" in sub.unread_ids


def test_a_message_said_on_many_lines_keeps_only_the_lines_it_shows():
    log = ProblemLog(file="f.csv")
    for line in range(2, 200_002):
        log.warning("blank_line", "empty line skipped", line=line)
    (key, (n_more, lines)), = log._same.items()
    assert n_more == 199_997 and lines == list(range(5, 15))
    summary = log.finish()[-1].message
    assert summary == ("the [blank_line] message of line 2, again on 199,997 more line(s) (lines 5, 6, 7, 8, 9, 10, 11, "
                       "12, 13, 14 and 199,987 more).")
