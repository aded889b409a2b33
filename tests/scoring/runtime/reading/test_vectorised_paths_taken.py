"""The shortcuts are really taken on the files they are for (a speed guard, not a second opinion: what they give
is checked against the csv module and the strict per-cell rules in ``test_table_as_csv_module.py`` and
``test_same_as_strict_rules.py``), and left alone on the shapes they must leave to the csv module."""

from __future__ import annotations

import pytest

from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.problems import ProblemLog
from agrieval.scoring.runtime.reading import _csv_spans as csv_spans
from agrieval.scoring.runtime.reading import _digit_lists as digit_lists
from agrieval.scoring.runtime.reading import _quote_blanks as quote_blanks
from agrieval.scoring.runtime.reading import _tokenize as tokenize
from agrieval.scoring.runtime.reading._bytes_checks import checked_utf8
from agrieval.scoring.runtime.reading.submission import read_submission


def _definition() -> CompetitionDefinition:
    return CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                                 list_syntax="python-list", primary_metric="sample_f1", id_pattern=".+")


def test_a_real_file_takes_the_numpy_tokenizer_and_the_byte_level_lists(real_files):
    data = (real_files / "plantclef2025_submission_tiling_quadrat.csv").read_bytes()
    log = ProblemLog()
    clean = checked_utf8(data, log)
    tab = tokenize.parse(clean, delimiter=",", required=["quadrat_id", "species_ids"],
                         max_rows=10**5, max_cell_chars=10**4, log=log)
    assert tab.cells.raw is clean and tab.n_rows == 2105  # spans into the file itself: the numpy tokenizer
    sizes, flat = digit_lists.int_lists(*tab.spans("species_ids"))
    assert set(sizes.tolist()) == {25} and len(flat) == 2105 * 25


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
    # (the ragged row is then named from the mended bytes, by csv_spans.line_fields)
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


def test_blank_lines_and_ragged_rows_are_read_by_numpy(monkeypatch):
    raw = b'qid,species\n"Q-1" ,"[1]"\n\nQ-2,[2],x\n"Q-3","[3]"\r\n'
    taken = []
    line_fields = csv_spans.line_fields
    monkeypatch.setattr(csv_spans, "line_fields", lambda *a: taken.append(line_fields(*a)) or taken[-1])
    sub = read_submission(raw, _definition(), filename="s.csv")
    assert taken and taken[-1] is not None
    assert [(p.code, p.line, p.column) for p in sub.problems if p.line] == [
        ("space_after_quote", 2, 1), ("ragged_row", 4, 3), ("blank_line", 3, None)]  # (errors, then warnings)
    assert sub.ids == ["Q-1", "Q-3"]
