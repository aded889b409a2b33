"""The byte-level shortcuts of the readers, against the per-cell checks, on nasty but plausible inputs.

Every shortcut must either decline (then the per-cell path decides) or give exactly what that path
gives: the same ids, labels, lines and problems (code, line, column, message). Each test here pairs a
shortcut with the path it stands in for, on inputs made to trip it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.runtime.definition import CompetitionDefinition
from scoring.runtime.problems import HostError, ProblemLog
from scoring.runtime.reading import submission as submission_module
from scoring.runtime.reading.solution import load_solution
from scoring.runtime.reading.submission import check_ids, read_submission


def _definition(id_pattern: str) -> CompetitionDefinition:
    return CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                                 list_syntax="python-list", primary_metric="sample_f1", id_pattern=id_pattern)


def _problems(log: ProblemLog) -> list[tuple]:
    return [(p.code, p.line, p.column, p.message) for p in log.finish()]


# patterns a host may write that let through what check_ids refuses first (blank ids, spaces at an end)
_LAX_PATTERNS = [".+", ".*", "[ q1-][ q1-]*", "[q1 ]*", "q.*", "(q| )+", "[A-Za-z0-9][A-Za-z0-9_.-]*"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=["q", "1", "-", " ", "\t", "\u00a0", "\u00e9"], max_size=4), min_size=1,
                max_size=6),
       st.sampled_from(_LAX_PATTERNS))
def test_check_ids_joined_regex_gives_what_the_per_id_checks_give(ids, pattern):
    """check_ids matches all ids with one regex when it can: that must not skip the blank-id and the
    leading/trailing-space checks, whatever the pattern allows."""
    definition = _definition(pattern)
    lines = np.arange(2, len(ids) + 2)
    fast = ProblemLog()
    check_ids(ids, lines, 1, definition, fast)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(submission_module, "_cannot_span_lines", lambda p: False)  # no joined regex: id by id
        slow = ProblemLog()
        check_ids(ids, lines, 1, definition, slow)
    assert _problems(fast) == _problems(slow)


@pytest.mark.parametrize("pattern", [".+", "[ q0-9][ q0-9]*"])  # the joined regex, the byte classes
@pytest.mark.parametrize("bad_id", [" q2", "q2 "])
def test_a_solution_id_with_spaces_at_an_end_is_refused_whatever_the_pattern(pattern, bad_id):
    """plainly_valid (the solution's ids checked without a string per id) must leave such an id to
    check_ids, which names it."""
    definition = _definition(pattern)
    data = f"qid,species\nq1,[1]\n{bad_id},[2]\n".encode()
    with pytest.raises(HostError) as caught:
        load_solution(data, definition)
    assert "3:1: error [invalid_id] id 'q2' has leading or trailing spaces" in str(caught.value)
    sub = read_submission(data, definition)
    assert [(p.code, p.line) for p in sub.problems] == [("invalid_id", 3)]


def test_a_solution_id_named_as_the_id_column_still_lets_a_repeated_header_be_named():
    """A submission whose ids are the solution's reuses their checks: a solution id spelt as the id column
    (valid under the pattern) must not hide the repeated header line that the full checks name."""
    definition = _definition("[A-Za-z0-9][A-Za-z0-9_.-]*")
    sol = load_solution(b"qid,species\nq1,[1]\nqid,[2]\n", definition)
    data = b"qid,species\nq1,[1]\nqid,species\n"
    alone = read_submission(data, definition)
    assert [p.code for p in alone.problems] == ["repeated_header", "list_syntax"]
    with_ids = read_submission(data, definition, checked_ids=sol.checked_ids)
    assert _problems_of(with_ids) == _problems_of(alone) and with_ids.ids == alone.ids


def _problems_of(sub) -> list[tuple]:
    return [(p.code, p.line, p.column, p.message) for p in sub.problems]
