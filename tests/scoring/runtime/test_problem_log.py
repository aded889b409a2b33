"""The summary of a message said on many lines names which message it is, wherever it stands among others."""

from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime import problems
from agrieval.scoring.runtime.problems import ProblemLog


def test_each_summary_names_its_own_message_among_six():
    """Six different messages, each said on more lines than are shown: every summary names the line its
    message was first listed on, and that line holds that message (never "the same as above")."""
    log = ProblemLog("s.csv", per_code=100)
    messages = [f"label {k} is unknown" for k in range(6)]
    for line in range(2, 62):  # each message on 10 lines, interleaved
        log.error("unknown_label", messages[line % 6], line=line)
    problems = log.finish()
    listed = [p for p in problems if p.code == "unknown_label"]
    summaries = [p.message for p in problems if p.code == "too_many_problems"]
    assert len(listed) == 6 * 3 and len(summaries) == 6
    first = {m: min(p.line for p in listed if p.message == m) for m in messages}
    for m in messages:
        lines = [line for line in range(2, 62) if messages[line % 6] == m][3:]
        expected = (f"the [unknown_label] message of line {first[m]}, again on {len(lines)} more line(s) "
                    f"(lines {', '.join(map(str, lines))}).")
        assert expected in summaries
        assert "above" not in expected


def test_a_message_past_the_listed_ones_is_quoted():
    """When a message's first lines are not listed (the code's cap is reached), its summary quotes it."""
    log = ProblemLog("s.csv", per_code=2)
    log.error("unknown_label", "first", line=2)
    log.error("unknown_label", "second", line=3)
    for line in range(4, 10):
        log.error("unknown_label", "third one", line=line)
    summaries = [p.message for p in log.finish() if p.code == "too_many_problems"]
    assert "the [unknown_label] message 'third one', again on 3 more line(s) (lines 7, 8, 9)." in summaries


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["m1", "m2", "m3"]), st.integers(1, 30)), max_size=12),
       st.integers(0, 3))
def test_a_run_of_one_message_logs_as_its_calls_one_by_one(runs, distinct_cap):
    """``ProblemLog.add_on_lines`` leaves the log as ``add`` on each line does: per-code caps, the
    summaries of a message said many times, and messages past the tracked ones (cap lowered here)."""
    logs = [problems.ProblemLog(per_code=4), problems.ProblemLog(per_code=4)]
    line = 0
    saved = problems._DISTINCT_TRACKED
    problems._DISTINCT_TRACKED = distinct_cap or saved
    try:
        for message, n in runs:
            lines = list(range(line, line + n))
            line += n
            for at in lines:
                logs[0].add("space_after_quote", message, line=at, column=2)
            logs[1].add_on_lines("space_after_quote", message, lines, column=2)
    finally:
        problems._DISTINCT_TRACKED = saved
    assert logs[0].finish() == logs[1].finish()
    assert logs[0]._counts == logs[1]._counts and logs[0]._listable == logs[1]._listable


def test_a_message_said_on_many_lines_keeps_only_the_lines_it_shows():
    log = ProblemLog(file="f.csv")
    for line in range(2, 200_002):
        log.warning("blank_line", "empty line skipped", line=line)
    (key, (n_more, lines)), = log._same.items()
    assert n_more == 199_997 and lines == list(range(5, 15))
    summary = log.finish()[-1].message
    assert summary == ("the [blank_line] message of line 2, again on 199,997 more line(s) (lines 5, 6, 7, 8, 9, 10, 11, "
                       "12, 13, 14 and 199,987 more).")
