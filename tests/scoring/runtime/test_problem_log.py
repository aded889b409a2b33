"""The summary of a message said on many lines names which message it is, wherever it stands among others."""

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
