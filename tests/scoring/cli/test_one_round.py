"""Issue 33, "one round for a participant": every problem of a file is named the first time it is read.

Each test here failed before: a file in the wrong delimiter reported only ``wrong_delimiter``; a header
``"id","species"`` got a hint for ``species`` alone; thirteen rows holding the same species names gave
thirteen identical 300-character messages.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.problems import ProblemLog
from agrieval.scoring.runtime.reading.submission import read_submission

PC25 = load_competition("plantclef2025")
REAL = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "real"


def _errors(data: bytes, definition=PC25) -> list[tuple]:
    return [(p.code, p.line, p.column) for p in read_submission(data, definition).errors]


def test_a_file_in_the_wrong_delimiter_is_read_with_its_own_and_its_other_problems_named():
    data = (b"quadrat_id;species_ids\nCBN-PdlC-A1-20230512;[1355868, 1355869]\nCBN-PdlC-A1-20230706;[1.5]\n"
            b"CBN-PdlC-A1-20230706;[]\n")
    assert _errors(data) == [("wrong_delimiter", 1, None), ("float_label", 3, 2), ("duplicate_id", 4, 1)]


ROWS_NOT_CHECKED = "; the rows were not checked: fix the header, then check the file again"


def _checked_reading(*pairs: str) -> str:
    return "; the rows were checked reading " + " and ".join(pairs)


def test_the_real_2024_file_under_2025_names_its_delimiter_and_its_renamed_id_column():
    sub = read_submission(REAL / "plantclef2024_submission_dsgt_run_v1.csv", PC25)
    assert [p.code for p in sub.errors] == ["wrong_delimiter", "missing_column"]
    assert sub.errors[1].message == ("required column 'quadrat_id' is missing; found 'plot_id' instead: rename it "
                                     "to 'quadrat_id'" + _checked_reading("'plot_id' as 'quadrat_id'"))


def test_every_renamed_column_gets_its_hint():
    sub = read_submission(b'"id","species"\n"CBN-PdlC-A1-20230512","[1355868]"\n', PC25)
    assert [p.message for p in sub.errors] == [
        "required column 'quadrat_id' is missing; found 'id' instead: rename it to 'quadrat_id'",
        "required column 'species_ids' is missing; found 'species' instead: rename it to 'species_ids'"
        + _checked_reading("'id' as 'quadrat_id'", "'species' as 'species_ids'")]  # once, on the header's last


def test_a_column_in_its_place_is_not_also_called_an_extra_column():
    sub = read_submission(b"key,species_ids,notes\nq1,[1355868],x\n", PC25)
    assert [(p.code, p.message) for p in sub.errors] == [
        ("missing_column", "required column 'quadrat_id' is missing; found 'key' instead: rename it to 'quadrat_id'"),
        ("extra_column", "column 'notes' is not accepted; the columns are quadrat_id, species_ids"
         + _checked_reading("'key' as 'quadrat_id'"))]


def test_a_file_with_a_misnamed_column_and_four_bad_rows_is_told_everything_in_one_round():
    """Issue 44: a file with five mistakes took three rounds, the header's problem hiding the rows'. The rows
    are now read under the names their columns stand for, and each of their problems is named too."""
    data = (b"quadrat,species_ids\n"
            b'CBN-PdlC-A1-20230512,"[1355868 1355869]"\n'  # numpy's way of writing a list
            b'CBN-PdlC-A1-20230706,"[1.5]"\n'
            b'CBN-PdlC-A1-20230706,"[]"\n'
            b'CBN-PdlC-A2-20230512,"Poa annua"\n')
    assert _errors(data) == [("missing_column", 1, 1), ("non_integer_label", 2, 2), ("float_label", 3, 2),
                             ("duplicate_id", 4, 1), ("list_syntax", 5, 2)]


def test_rows_that_cannot_be_read_under_the_right_names_are_said_to_be_unchecked():
    """A repeated column, or a missing one with nothing standing for it: no reading is safe, and the message
    says the rows were not checked (so that fixing the header alone is not expected to pass)."""
    repeated = read_submission(b"quadrat_id,quadrat_id\nq1,q1\n", PC25)
    assert [p.message.endswith(ROWS_NOT_CHECKED) for p in repeated.errors].count(True) == 1
    alone = read_submission(b"quadrat_id\nq1\n", PC25)
    assert [p.code for p in alone.errors] == ["missing_column"]
    assert alone.errors[0].message.endswith(ROWS_NOT_CHECKED)


def test_thirteen_rows_of_the_same_species_names_say_it_three_times_then_count_the_rest():
    rows = "".join(f'CBN-PdlC-A1-2023{k:04d},"Poa annua, Festuca rubra"\n' for k in range(13))
    sub = read_submission(("quadrat_id,species_ids\n" + rows).encode(), PC25)
    said = [p for p in sub.errors if p.code == "list_syntax"]
    assert [p.line for p in said] == [2, 3, 4] and len({p.message for p in said}) == 1
    assert "species are written as integer ids" in said[0].message
    summary = [p for p in sub.errors if p.code == "too_many_problems"]
    assert [p.message for p in summary] == ["the [list_syntax] message of line 2, again on 10 more line(s) "
                                            "(lines 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)."]


def test_grouping_keeps_every_count_true():
    log = ProblemLog(file="f.csv", per_code=2, same_shown=3)
    for line in range(2, 8):
        log.error("missing_id", "the id cell is empty", line, 1)
    log.error("missing_id", "another message", 9, 1)
    out = [(p.code, p.line, p.message) for p in log.finish()]
    assert out == [("missing_id", 2, "the id cell is empty"), ("missing_id", 3, "the id cell is empty"),
                   ("too_many_problems", None, "2 more [missing_id] problems not listed (7 in all)."),
                   ("too_many_problems", None, "the [missing_id] message of line 2, again on 3 more line(s) "
                                               "(lines 5, 6, 7).")]
    assert log.count("missing_id") == 7


def test_the_cli_prints_the_grouped_lines_in_the_documented_shape(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("quadrat_id,species_ids\n" + "".join(f"q{k},Poa annua\n" for k in range(6)))
    out = CliRunner().invoke(cli, ["validate", str(path), "-c", "plantclef2025"]).output.splitlines()
    assert [line.split(" error ")[0] for line in out[:4]] == ["names.csv:2:2:", "names.csv:3:2:", "names.csv:4:2:",
                                                             "names.csv:"]


def test_a_row_short_of_fields_and_a_renamed_column_are_placed_by_column():
    """Every error that names a cell of the file says its line and column: the field a short row lacks, the
    header field to rename."""
    short = read_submission(b"quadrat_id,species_ids\nq1,[1355868]\nq2\n", PC25)
    assert [(p.code, p.line, p.column) for p in short.errors] == [("ragged_row", 3, 2)]
    renamed = read_submission(b'"species_ids","id"\n"[1355868]","q1"\n', PC25)
    assert [(p.code, p.line, p.column) for p in renamed.errors] == [("missing_column", 1, 2)]
    assert renamed.errors[0].render().startswith("<input>:1:2: error [missing_column]") or \
        renamed.errors[0].render().startswith("submission.csv:1:2: error [missing_column]")
