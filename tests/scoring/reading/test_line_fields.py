"""The vectorised path for blank lines and ragged rows (``csv_spans.line_fields``, read by
``tokenize._read_lines``) against the csv-module path it replaced (``tokenize._read_irregular``): on files
whose quotes are simple but whose lines are blank, ragged or carry blanks after closing quotes, the same ids,
labels, lines, ids left unread and problems (code, line, column, message), under a row limit too, and the
new path really taken."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.reading import csv_spans, quote_blanks
from agrieval.scoring.runtime.reading.submission import read_submission


def _definition(max_rows: int) -> CompetitionDefinition:
    d = CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                              list_syntax="python-list", primary_metric="sample_f1", id_pattern=".+")
    return dataclasses.replace(d, limits=dataclasses.replace(d.limits, max_rows=max_rows))


def _summary(sub) -> dict:
    return {"ids": list(sub.ids), "lines": sub.lines.tolist(), "unread": sub.unread_ids,
            "labels": sub.labels.to_lists() if sub.labels is not None else None,
            "problems": [(p.code, p.severity, p.line, p.column, p.message) for p in sub.problems]}


_ID = st.text(alphabet=["Q", "1", "-", "é", "x", " "], min_size=1, max_size=5).filter(lambda s: s.strip() == s)
_LABELS = st.lists(st.integers(1, 9_999_999), max_size=3).map(lambda v: "[" + ", ".join(map(str, v)) + "]")
_BLANKS = st.text(alphabet=[" ", "\t"], max_size=2)


@st.composite
def _field(draw, text) -> str:
    value = draw(text)
    return f'"{value}"{draw(_BLANKS)}' if draw(st.booleans()) else value.replace(",", ";")


@st.composite
def _files(draw) -> bytes:
    """A submission with blank lines, rows of another width and blanks after closing quotes at random."""
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ['"qid","species"' if draw(st.booleans()) else "qid,species"]
    for _ in range(draw(st.integers(1, 10))):
        shape = draw(st.sampled_from(["row", "row", "blank", "ragged"]))
        if shape == "blank":
            lines.append("")
        elif shape == "row":
            lines.append(draw(_field(_ID)) + "," + draw(_field(_LABELS)))
        else:
            lines.append(",".join(draw(st.lists(_field(st.sampled_from(["Q-1", "", "x", "[1]"])), min_size=1,
                                                max_size=5).filter(lambda f: len(f) != 2))))
    return (end.join(lines) + draw(st.sampled_from([end, ""]))).encode("utf-8")


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_files(), st.integers(1, 6))
def test_blank_lines_and_ragged_rows_read_as_the_csv_module_path_reads_them(monkeypatch, raw, max_rows):
    d = _definition(max_rows)
    taken = []
    line_fields = csv_spans.line_fields
    with monkeypatch.context() as m:
        m.setattr(csv_spans, "line_fields", lambda *a: taken.append(line_fields(*a)) or taken[-1])
        new = _summary(read_submission(raw, d, filename="s.csv"))
    with monkeypatch.context() as m:  # the csv module's path, as before
        m.setattr(csv_spans, "line_fields", lambda *a: None)
        m.setattr(quote_blanks, "take_out", lambda *a: None)
        old = _summary(read_submission(raw, d, filename="s.csv"))
    assert new == old
    if any(p[0] in ("blank_line", "ragged_row") for p in old["problems"]):
        assert taken and taken[-1] is not None  # the vectorised path read it


def test_one_long_record_of_blanks_after_quotes_names_what_the_csv_module_path_names(monkeypatch):
    """The benchmark's slowest shape, small: thousands of distinct messages, past the ones the log tracks."""
    from agrieval.scoring.runtime import problems

    raw = b"qid,species\n" + b'"Q-1" ,' * 3_000 + b'"[1]"\n' + b'"Q-2" ,"[2]"\n\n'
    monkeypatch.setattr(problems, "_DISTINCT_TRACKED", 500)
    d = _definition(10)
    new = _summary(read_submission(raw, d, filename="s.csv"))
    with monkeypatch.context() as m:
        m.setattr(csv_spans, "line_fields", lambda *a: None)
        m.setattr(quote_blanks, "take_out", lambda *a: None)
        old = _summary(read_submission(raw, d, filename="s.csv"))
    assert new == old and new["ids"] == ["Q-2"]
    assert ("ragged_row", "error", 2, 3) in [p[:4] for p in new["problems"]]
