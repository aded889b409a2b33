"""One test per row of the issue's validation table, each on a real file in tests/fixtures/submissions/."""

from pathlib import Path

import pytest

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.validate import validate_file

FILES = Path(__file__).resolve().parents[4] / "tests" / "fixtures" / "submissions"
REF = Path(__file__).resolve().parents[4] / "reference_submissions" / "plantclef2025"
PC25 = load_competition("plantclef2025")


def problems(name, definition=PC25, solution=None):
    return validate_file(FILES / name, definition, solution)


def codes(ps, severity="error"):
    return [p.code for p in ps if p.severity == severity]


def only(ps, code):
    found = [p for p in ps if p.code == code]
    assert found, f"no {code} in {[p.render() for p in ps]}"
    return found


@pytest.fixture(scope="module")
def solution():
    return load_solution(REF / "solution.csv", PC25)


def test_empty_file():
    assert codes(problems("empty.csv")) == ["empty_file"]


def test_header_only():
    p = only(problems("header_only.csv"), "header_only")[0]
    assert p.line == 1


def test_misnamed_column_suggests_closest_name():
    p = only(problems("misnamed_column.csv"), "missing_column")[0]
    assert "'specie_ids'" in p.message and "rename it to 'species_ids'" in p.message
    assert "extra_column" not in codes(problems("misnamed_column.csv"))


def test_missing_header_says_which_header_is_needed():
    ps = problems("no_header.csv")
    assert set(codes(ps)) == {"missing_column"}
    assert "quadrat_id,species_ids" in ps[0].message


def test_extra_column_names_it_with_its_column_number():
    p = only(problems("extra_column.csv"), "extra_column")[0]
    assert "'confidence'" in p.message and p.line == 1 and p.column == 3


def test_duplicate_column():
    p = only(problems("duplicate_column.csv"), "duplicate_column")[0]
    assert p.column == 3


def test_wrong_delimiter_says_found_and_expected():
    p = only(problems("semicolon.csv"), "wrong_delimiter")[0]
    assert "';' (semicolon)" in p.message and "',' (comma)" in p.message


def test_latin1_bytes_located_by_line_and_column():
    p = only(problems("latin1.csv"), "wrong_encoding")[0]
    assert p.line == 4 and p.column == 20
    assert "UTF-8" in p.message


def test_utf16_is_named():
    assert "UTF-16" in only(problems("utf16.csv"), "wrong_encoding")[0].message


def test_utf8_bom_accepted_with_warning(solution):
    ps = problems("bom.csv", solution=solution)
    assert codes(ps) == [] and codes(ps, "warning") == ["utf8_bom"]


def test_crlf_accepted_without_a_warning(solution):
    ps = problems("crlf.csv", solution=solution)
    assert codes(ps) == [] and codes(ps, "warning") == []


def test_ragged_row_located():
    p = only(problems("ragged.csv"), "ragged_row")[0]
    assert p.line == 5 and "3 fields" in p.message and "quoted" in p.message


def test_duplicate_ids_point_to_first_occurrence():
    p = only(problems("duplicate_ids.csv"), "duplicate_id")[0]
    assert p.line == 42 and "line 2" in p.message and p.column == 1


def test_ids_missing_from_submission_count_and_first_few(solution):
    ps = problems("missing_ids.csv", solution=solution)
    p = only(ps, "missing_ids")[0]
    assert p.message.startswith("10 of the 40 test ids are missing") and "and 5 more" in p.message
    # never says which ids are public or private
    assert "public" not in p.message.lower() and "private" not in p.message.lower()


def test_unknown_ids(solution):
    p = only(problems("unknown_id.csv", solution=solution), "unknown_ids")[0]
    assert "CBN-XXX-Z9-20230512" in p.message and p.line == 42


def test_unparsable_lists_each_reported_with_cell():
    ps = problems("bad_list.csv")
    bad = only(ps, "list_syntax")
    assert [p.line for p in bad] == [4, 5, 6]
    assert all(p.column == 2 for p in bad)
    assert "'1395807, 1392608'" in bad[0].message


def test_float_labels():
    bad = only(problems("float_labels.csv"), "float_label")
    assert [p.line for p in bad] == [3, 4]
    assert "1395807.0" in bad[0].message and "1.395807e6" in bad[1].message


def test_negative_label():
    assert only(problems("negative_label.csv"), "negative_label")[0].line == 3


def test_non_integer_labels():
    bad = only(problems("non_integer_label.csv"), "non_integer_label")
    assert [p.line for p in bad] == [3, 4]


def test_nan_none_and_empty_cells():
    bad = only(problems("missing_values.csv"), "missing_value")
    assert [p.line for p in bad] == [3, 4, 5, 6]
    assert "write [] for no species" in bad[0].message


def test_labels_outside_vocabulary():
    p = only(problems("unknown_species.csv"), "unknown_label")[0]
    assert p.line == 3 and "12345" in p.message


def test_too_many_labels_per_row():
    p = only(problems("too_many_labels.csv"), "too_many_labels")[0]
    assert p.line == 3 and "600" in p.message and "500" in p.message


def test_duplicate_labels_count_once_with_warning(solution):
    ps = problems("duplicate_labels.csv", solution=solution)
    assert codes(ps) == []
    w = only(ps, "duplicate_label")[0]
    assert w.severity == "warning" and "lines 3" in w.message


def test_every_problem_listed_but_capped(tmp_path):
    ps = problems("many_errors.csv")  # 40 rows of the same bad label: said three times, then counted
    assert len(only(ps, "float_label")) == 3
    assert only(ps, "too_many_problems")[0].message.startswith("the [float_label] message of line 2, again on 37 more")
    distinct = tmp_path / "distinct.csv"  # 40 different bad labels: 20 listed, then counted
    distinct.write_text("quadrat_id,species_ids\n" + "".join(f"q{k},[{k}.5]\n" for k in range(40)))
    ps = validate_file(distinct, load_competition("plantclef2025"))
    assert len(only(ps, "float_label")) == 20
    assert "20 more [float_label]" in only(ps, "too_many_problems")[0].message


def test_file_larger_than_byte_limit_is_refused_before_reading():
    tiny = load_competition(FILES / "tiny_limits.toml")
    p = only(validate_file(FILES / "crlf.csv", tiny), "file_too_large")[0]
    assert "200 bytes" in p.message


def test_too_many_rows(tmp_path):
    tiny = load_competition(FILES / "tiny_limits.toml")
    f = tmp_path / "four.csv"
    f.write_text("quadrat_id,species_ids\na,[1]\nb,[1]\nc,[1]\nd,[1]\n")
    p = only(validate_file(f, tiny), "too_many_rows")[0]
    assert p.line == 5


def test_labels_per_row_limit_from_user_definition(tmp_path):
    tiny = load_competition(FILES / "tiny_limits.toml")
    f = tmp_path / "three_labels.csv"
    f.write_text('quadrat_id,species_ids\na,"[1, 2, 3]"\n')
    assert only(validate_file(f, tiny), "too_many_labels")[0].line == 2
