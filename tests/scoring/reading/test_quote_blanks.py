"""The vectorised path for blanks after closing quotes (``quote_blanks``) against the csv-module path it
replaced (``tokenize._read_irregular`` with ``quote_trouble.mend_record``): on files that are regular but
for blanks typed after closing quotes, the same ids, labels, lines and problems (code, line, column,
message), and the new path really taken."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.reading import quote_blanks
from agrieval.scoring.runtime.reading.submission import read_submission


def _definition() -> CompetitionDefinition:
    return CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                                 list_syntax="python-list", primary_metric="sample_f1", id_pattern=".+")


def _summary(sub) -> dict:
    return {"ids": list(sub.ids), "lines": sub.lines.tolist(),
            "labels": sub.labels.to_lists() if sub.labels is not None else None,
            "problems": [(p.code, p.line, p.column, p.message) for p in sub.problems]}


_ID = st.text(alphabet=["Q", "1", "-", "é", "x", " "], min_size=1, max_size=6).filter(lambda s: s.strip() == s)
_LABELS = st.lists(st.integers(1, 9_999_999), max_size=4).map(lambda v: "[" + ", ".join(map(str, v)) + "]")
_BLANKS = st.text(alphabet=[" ", "\t"], max_size=3)  # "" most often: no blank there


@st.composite
def _files(draw) -> bytes:
    """A submission, quoted field by field at random, with blanks after some of its closing quotes."""
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ['"qid","species"' if draw(st.booleans()) else "qid,species"]
    for _ in range(draw(st.integers(1, 8))):
        id_, labels = draw(_ID), draw(_LABELS)
        id_cell = f'"{id_}"{draw(_BLANKS)}' if draw(st.booleans()) else id_
        lines.append(f'{id_cell},"{labels}"{draw(_BLANKS)}')
    last_end = draw(st.sampled_from([end, ""]))
    return (end.join(lines) + last_end).encode("utf-8")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_files())
def test_blanks_after_quotes_read_as_the_csv_module_path_reads_them(monkeypatch, raw):
    # (monkeypatch only inside its own contexts, undone for each example)
    d = _definition()
    taken = []
    take_out = quote_blanks.take_out
    with monkeypatch.context() as m:
        m.setattr(quote_blanks, "take_out", lambda *a: taken.append(take_out(*a)) or taken[-1])
        new = _summary(read_submission(raw, d, filename="s.csv"))
    with monkeypatch.context() as m:
        m.setattr(quote_blanks, "take_out", lambda *a: None)  # the csv module's path, as before
        old = _summary(read_submission(raw, d, filename="s.csv"))
    assert new == old
    n_blanks = sum(p[0] == "space_after_quote" for p in old["problems"])
    header_blanks = sum(p[0] == "space_after_quote" and p[1] == 1 for p in old["problems"])
    if n_blanks > header_blanks:  # blanks in the rows: the vectorised path found every one
        assert taken and taken[-1] is not None
        assert len(taken[-1].lines) >= n_blanks - header_blanks  # (a message said often is summarised)


@pytest.mark.parametrize("raw", [
    b'qid,species\n"a" x,"[1]"\n',  # text after a closing quote: the csv module says where it stops
    b'qid,species\n"a""b" ,"[1]"\n',  # a doubled quote
    b'qid,species\n"a\nb" ,"[1]"\n',  # a quoted field over two lines
    b'qid,species\n"a" ,"[1]"\r"b","[2]"\n',  # a lone CR
    b'qid,species\nx"a" ,"[1]"\n',  # a quote inside an unquoted field
])
def test_files_of_other_shapes_are_left_to_the_csv_module(raw):
    assert quote_blanks.take_out(raw, ",") is None


def test_a_ragged_row_with_blanks_has_them_taken_out_too():
    # (the ragged row is then named from the mended bytes: tests/scoring/reading/test_line_fields.py)
    blanks = quote_blanks.take_out(b'qid,species\n"a" ,"[1]",x\n', ",")
    assert blanks.mended == b'qid,species\n"a","[1]",x\n' and blanks.fields.tolist() == [1]


def test_a_file_of_blanks_after_quotes_is_read_by_numpy_with_every_blank_named():
    raw = b'qid,species\n' + b''.join(b'"Q-%d" ,"[1, 2]"\t\n' % i for i in range(300))
    blanks = quote_blanks.take_out(raw, ",")
    assert blanks.lines.tolist() == [k for i in range(2, 302) for k in (i, i)]
    assert blanks.fields.tolist() == [1, 2] * 300
    sub = read_submission(raw, _definition(), filename="s.csv")
    assert sub.ids[:2] == ["Q-0", "Q-1"] and sub.labels.to_lists()[0] == [1, 2]
    assert [(p.code, p.line, p.column) for p in sub.problems[:2]] == [("space_after_quote", 2, 1),
                                                                        ("space_after_quote", 2, 2)]


@pytest.mark.parametrize("row", [b'"Q-%d" ,"[1355868, 1355869]"\n', b'"Q-%d"\t,"[1]"  \r\n', b'Q-%d,"[2]" \n'])
def test_a_long_file_of_blanks_reads_as_the_csv_module_path_reads_it(monkeypatch, row):
    """Thousands of blanks: the log's per-code and same-message summaries, in one step, as one by one."""
    raw = b"qid,species\n" + b"".join(row % (i * 7919 % 100_000) for i in range(5_000))
    new = _summary(read_submission(raw, _definition(), filename="s.csv"))
    monkeypatch.setattr(quote_blanks, "take_out", lambda *a: None)
    old = _summary(read_submission(raw, _definition(), filename="s.csv"))
    assert new == old and len(new["problems"]) > 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["m1", "m2", "m3"]), st.integers(1, 30)), max_size=12),
       st.integers(0, 3))
def test_a_run_of_one_message_logs_as_its_calls_one_by_one(runs, distinct_cap):
    """``ProblemLog.add_on_lines`` leaves the log as ``add`` on each line does: per-code caps, the
    summaries of a message said many times, and messages past the tracked ones (cap lowered here)."""
    from agrieval.scoring.runtime import problems

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


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(alphabet=[" ", "\t"], max_size=12), min_size=1, max_size=8))
def test_long_runs_of_blanks_read_as_the_csv_module_path_reads_them(monkeypatch, runs):
    """Runs longer than the steps taken a byte at a time (``quote_blanks._STEPS``) are found from the blanks'
    positions: the same verdicts either way."""
    raw = ("qid,species\n" + "".join(f'"Q-{i}"{run},"[1]"{run[::-1]}\n' for i, run in enumerate(runs))).encode()
    d = _definition()
    new = _summary(read_submission(raw, d, filename="s.csv"))
    with monkeypatch.context() as m:
        m.setattr(quote_blanks, "take_out", lambda *a: None)
        old = _summary(read_submission(raw, d, filename="s.csv"))
    assert new == old
