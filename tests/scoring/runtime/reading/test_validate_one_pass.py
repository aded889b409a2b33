"""`agrieval validate` names every problem in one run: rows and ids together, blanks after a closing quote
without losing the rest of the file, species written as names, and ids checked without the solution
(``--ids``: the sample submission or a plain list)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.reading._quote_trouble import after_closing_quote
from agrieval.scoring.runtime.validate import validate_file

REPO = Path(__file__).resolve().parents[4]
SOLUTION = REPO / "reference_submissions" / "plantclef2025" / "solution.csv"
PC25 = load_competition("plantclef2025")


def _truth() -> list[tuple[str, str]]:
    rows = list(csv.reader(SOLUTION.open(newline="")))
    return [(r[0], r[1]) for r in rows[1:]]


def _submission(rows: list[tuple[str, str]]) -> str:
    return '"quadrat_id","species_ids"\n' + "".join(f'"{q}","{s}"\n' for q, s in rows)


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture()
def one_bad_row_three_missing(tmp_path):
    truth = _truth()
    gone = {truth[3][0], truth[5][0], truth[7][0]}
    rows = [(q, "[1355869.0]" if i == 1 else s) for i, (q, s) in enumerate(truth) if q not in gone]
    path = tmp_path / "submission.csv"
    path.write_text(_submission(rows))
    return path, sorted(gone), truth


def _ids_files(tmp_path, truth):
    sample = tmp_path / "sample_submission.csv"
    sample.write_text("quadrat_id,species_ids\n" + "".join(f"{q},[]\n" for q, _ in truth))
    plain = tmp_path / "test_ids.txt"
    plain.write_text("".join(f"{q}\n" for q, _ in truth))
    return {"--solution": SOLUTION, "--ids sample": sample, "--ids list": plain}


@pytest.mark.parametrize("how", ["--solution", "--ids sample", "--ids list"])
def test_one_validate_names_the_bad_row_and_the_three_missing_ids(one_bad_row_three_missing, tmp_path, how):
    path, gone, truth = one_bad_row_three_missing
    given_file = _ids_files(tmp_path, truth)[how]
    r = run("validate", path, "-c", "plantclef2025", how.split()[0], given_file)
    assert r.exit_code == 1, r.output
    assert "submission.csv:3:2: error [float_label] label 1355869.0" in r.output
    missing = [line for line in r.output.splitlines() if "[missing_ids]" in line]
    assert len(missing) == 1 and "3 of the 40 test ids are missing" in missing[0]
    assert all(repr(q) in missing[0] for q in gone)
    assert r.output.splitlines()[-1] == "submission.csv: INVALID (2 error(s), 0 warning(s))"

    j = run("validate", path, "-c", "plantclef2025", how.split()[0], given_file, "--json")
    assert j.exit_code == 1
    assert sorted(e["code"] for e in json.loads(j.stdout)["errors"]) == ["float_label", "missing_ids"]


def test_without_ids_nothing_is_said_of_ids(one_bad_row_three_missing):
    path, _, _ = one_bad_row_three_missing
    r = run("validate", path, "-c", "plantclef2025")
    assert r.exit_code == 1 and "missing_ids" not in r.output and "[float_label]" in r.output


def test_without_ids_the_verdict_says_they_were_not_checked_and_how(one_bad_row_three_missing, tmp_path):
    """Issue 33: "valid" for a file missing three ids, without saying that no id was checked, cost a round."""
    path, _, truth = one_bad_row_three_missing
    good = tmp_path / "good.csv"
    good.write_text(_submission(truth[:-3]))
    for file, verdict in ((good, "good.csv: valid for plantclef2025 (0 warning(s))"),
                          (path, "submission.csv: INVALID (1 error(s), 0 warning(s))")):
        last = run("validate", file, "-c", "plantclef2025").output.splitlines()[-1]
        assert last.startswith(verdict + "; ids not checked: add --ids sample_submission.csv"), last
    checked = run("validate", good, "-c", "plantclef2025", "--ids", _ids_files(tmp_path, truth)["--ids sample"])
    assert "ids not checked" not in checked.output and "[missing_ids] 3 of the 40" in checked.output


@pytest.mark.parametrize("command", ["score", "grade"])
def test_score_and_grade_name_the_missing_ids_beside_the_row_errors(one_bad_row_three_missing, command):
    """Issue 33: ``score`` listed only the row errors of a file that also lacked three ids; the participant
    learnt of the ids in a second round. Now it says what ``validate --solution`` says."""
    path, gone, _ = one_bad_row_three_missing
    extra = ["--json"] if command == "score" else ["--participant-only"]
    r = run(command, path, "-c", "plantclef2025", "-s", SOLUTION, *extra)
    assert r.exit_code == 1, r.output
    errors = json.loads(r.stdout)["errors"]
    assert [e["code"] for e in errors] == ["missing_ids", "float_label"]
    assert all(repr(q) in errors[0]["message"] for q in gone)
    validated = json.loads(run("validate", path, "-c", "plantclef2025", "-s", SOLUTION, "--json").stdout)
    assert validated["errors"] == errors


def test_missing_ids_are_listed_sorted_never_in_the_solutions_order(tmp_path):
    # the solution lists its rows grouped by Usage in real competitions: the order would tell the split
    truth = _truth()
    kept = truth[20:]
    path = tmp_path / "submission.csv"
    path.write_text(_submission(kept))
    r = run("validate", path, "-c", "plantclef2025", "-s", SOLUTION)
    line = next(x for x in r.output.splitlines() if "[missing_ids]" in x)
    shown = line.split("submission: ")[1].split(" and ")[0].split(", ")
    assert shown == sorted(shown) == [repr(q) for q in sorted(q for q, _ in truth[:20])[:5]]
    assert "and 15 more" in line and "Public" not in r.output and "Private" not in r.output


def test_ragged_row_keeps_its_id_and_unknown_ids_are_named_with_the_rest(tmp_path):
    truth = _truth()
    body = "quadrat_id,species_ids\n" + "".join(
        f"{q},{s}\n" if i == 2 else f'{q},"{s}"\n' for i, (q, s) in enumerate(truth)) + "NOT-A-TEST-ID,[]\n"
    path = tmp_path / "sub.csv"
    path.write_text(body)
    problems = validate_file(path, PC25, test_ids=[q for q, _ in truth])
    assert [(p.code, p.line) for p in problems if p.severity == "error"] == [("ragged_row", 4), ("unknown_ids", 42)]


def test_ids_file_problems_are_usage_errors(tmp_path):
    sub = tmp_path / "sub.csv"
    sub.write_text(_submission(_truth()))
    twice = tmp_path / "ids.txt"
    twice.write_text("CBN-a\nCBN-b\nCBN-a\n")
    r = run("validate", sub, "-c", "plantclef2025", "--ids", twice)
    assert r.exit_code == 2 and "ids.txt:3" in r.output and "already appeared on line 1" in r.output
    both = run("validate", sub, "-c", "plantclef2025", "--ids", twice, "-s", SOLUTION)
    assert both.exit_code == 2 and "not both" in both.output
    ok = tmp_path / "ok.txt"
    ok.write_text("".join(f"{q}\r\n" for q, _ in _truth()) + "\n")  # CRLF and a blank last line: fine
    assert run("validate", sub, "-c", "plantclef2025", "--ids", ok).exit_code == 0


# --- blanks after a closing quote -------------------------------------------------------------------------

def test_space_after_quote_is_named_and_the_rest_of_the_file_still_checked(tmp_path):
    truth = _truth()
    text = _submission(truth).splitlines(keepends=True)
    text[2] = text[2].replace('",', '" ,', 1)  # after the id of line 3
    text[5] = text[5].replace('"\n', '"  \n')  # two at the end of line 6
    text[9] = text[9].replace("[", "[1.5, ", 1)  # and a row problem further on
    path = tmp_path / "hand_edited.csv"
    path.write_text("".join(text))
    r = run("validate", path, "-c", "plantclef2025", "-s", SOLUTION)
    out = r.output.splitlines()
    col = text[2].index('" ,') + 2
    assert out[0] == (f"hand_edited.csv:3:1: error [space_after_quote] a space after the closing quote of field 1 "
                      f"(character {col} of the line); remove the space after the closing quote: the delimiter or "
                      "the line end must follow it at once")
    assert out[1].startswith("hand_edited.csv:6:2: error [space_after_quote] 2 blanks (spaces or tabs) after the "
                             f"closing quote of field 2 (character {len(text[5]) - 2} of the line)")
    assert out[2].startswith("hand_edited.csv:10:2: error [float_label] label 1.5")
    assert "unterminated" not in r.output and "missing_ids" not in r.output
    assert out[-1] == "hand_edited.csv: INVALID (3 error(s), 0 warning(s))"


def test_space_after_quote_in_the_header():
    data = b'"quadrat_id" ,"species_ids"\n"CBN-a","[1355868]"\n'
    problems = validate_file(data, PC25, filename="h.csv")
    assert [(p.code, p.line, p.column) for p in problems] == [("space_after_quote", 1, 1)]
    assert "character 13 of the line" in problems[0].message


def test_other_text_after_a_closing_quote_stops_with_its_place():
    problems = validate_file(b'quadrat_id,species_ids\n"CBN-a","[1355868]"x\n', PC25, filename="t.csv")
    assert [(p.code, p.line, p.column) for p in problems] == [("malformed_csv", 2, 2)]
    assert "'x' follows the closing quote of field 2 (character 20 of the line)" in problems[0].message


def test_a_quote_left_open_is_named_on_its_own_line():
    data = b'quadrat_id,species_ids\n"CBN-a","[1355868]"\n"CBN-b","[1355868\n"CBN-c","[1355869]"\n'
    problems = validate_file(data, PC25, filename="o.csv")
    assert [(p.code, p.line) for p in problems] == [("malformed_csv", 3)]
    assert "never closed" in problems[0].message and "runs on to line 4" in problems[0].message


def test_an_unterminated_quote_still_says_so():
    problems = validate_file(b'quadrat_id,species_ids\n"CBN-a","[1355868]\n', PC25, filename="u.csv")
    assert [p.code for p in problems] == ["malformed_csv"] and "unterminated" in problems[0].message


_cells = st.text(alphabet='ab",\n\r ', max_size=12)


@settings(max_examples=400, deadline=None)
@given(_cells)
def test_after_closing_quote_agrees_with_the_csv_module(text):
    # the csv module refuses the first record for a closing quote followed by other than a delimiter or a line end
    # exactly when the scanner finds one; what it finds is a quote the csv module then rejects
    try:
        next(csv.reader(io.StringIO(text, newline=""), strict=True), None)
        refused = None
    except csv.Error as exc:
        refused = str(exc)
    found = after_closing_quote(text, ",")
    assert (found is not None) == (refused is not None and "expected after" in refused), (text, refused, found)
    if found is not None:
        assert text[found.start - 1] == '"'
        if found.kind == "space":
            mended = text[:found.start] + text[found.start + found.length:]
            assert mended[found.start:found.start + 1] in ("", ",", "\n", "\r")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 39), st.sampled_from([0, 1]), st.sampled_from([" ", "  ", "\t", " \t"])),
                max_size=6, unique_by=lambda t: (t[0], t[1])),
       st.sets(st.integers(0, 39), max_size=4), st.sets(st.integers(0, 39), max_size=3))
@example(spaced=[(10, 0, " "), (18, 0, " "), (32, 0, " "), (34, 0, " ")], bad_rows=set(), gone={19})  # 4 alike: folded
def test_blanks_after_quotes_add_their_own_errors_and_change_nothing_else(spaced, bad_rows, gone):
    """The file with blanks after some closing quotes gives one space_after_quote per place, and otherwise
    exactly the problems of the same file without them (read there by the fast reader, when it is regular)."""
    truth = _truth()
    rows = [(q, "[1355869.0]" if i in bad_rows else s) for i, (q, s) in enumerate(truth) if i not in gone]
    lines = ['"quadrat_id","species_ids"\n'] + [f'"{q}","{s}"\n' for q, s in rows]
    clean = "".join(lines)
    where = set()
    for row, field, blanks in spaced:
        if row >= len(rows):
            continue
        q, s = rows[row]
        lines[row + 1] = (f'"{q}"{blanks},"{s}"\n' if field == 0 else f'"{q}","{s}"{blanks}\n') if \
            (row, 1 - field) not in where else f'"{q}"{blanks},"{s}"{blanks}\n'
        where.add((row, field))
    ids = [q for q, _ in truth]
    plain = validate_file(clean.encode(), PC25, filename="f.csv", test_ids=ids)
    spaced_problems = validate_file("".join(lines).encode(), PC25, filename="f.csv", test_ids=ids)
    named = sorted((p.line, p.column) for p in spaced_problems if p.code == "space_after_quote")
    # a message said more than three times is listed three times, then folded into one summary of its lines
    # (ProblemLog.same_shown): those places count too, by line
    folded = [p for p in spaced_problems if p.code == "too_many_problems" and "[space_after_quote]" in p.message]
    folded_lines = [int(x) for p in folded for x in re.search(r"\(lines? ([\d, ]+)\)", p.message).group(1).split(",")]
    expected = sorted((row + 2, field + 1) for row, field in where)
    assert set(named) <= set(expected)
    assert sorted([line for line, _ in named] + folded_lines) == sorted(line for line, _ in expected)
    rest = [p for p in spaced_problems if p.code != "space_after_quote" and p not in folded]
    assert [(p.code, p.line, p.column, p.message) for p in rest] == \
        [(p.code, p.line, p.column, p.message) for p in plain]


# --- species written as names -----------------------------------------------------------------------------

@pytest.mark.parametrize("cell, code", [('"[Poa annua, 1355868]"', "non_integer_label"),
                                        ('"Poa annua"', "list_syntax"),
                                        ('"[\'Festuca rubra\']"', "non_integer_label")])
def test_species_names_say_where_the_integer_ids_are(cell, code):
    problems = validate_file(f"quadrat_id,species_ids\nCBN-a,{cell}\n".encode(), PC25, filename="n.csv")
    assert [p.code for p in problems] == [code]
    msg = problems[0].message
    assert "integer ids, not names" in msg and "7,806 ids" in msg
    assert "`agrieval competitions show plantclef2025`" in msg and "species_id" in msg


def test_a_mistyped_number_gets_no_names_hint():
    problems = validate_file(b'quadrat_id,species_ids\nCBN-a,"[13x5]"\n', PC25, filename="n.csv")
    assert [p.code for p in problems] == ["non_integer_label"] and "not names" not in problems[0].message


def test_competitions_show_says_where_the_vocabulary_is():
    r = run("competitions", "show", "plantclef2025")
    line = r.output.splitlines()[1]
    assert line.startswith("# vocabulary: ") and "(7,806 labels, one per line" in line
    path = Path(line.split("# vocabulary: ")[1].split(" (")[0])
    assert path.is_file() and len(path.read_text().split()) == 7806


def test_the_hand_edited_file_of_the_docs_gets_every_problem_in_one_run():
    # tests/fixtures/submissions/hand_edited.csv: one float label, a space after a quote, a species name, 3 ids gone;
    # the sample submission a participant has: every test id with an empty list
    sample = REPO / "reference_submissions/plantclef2025/submissions/empty_lists.csv"
    hand_edited = REPO / "tests" / "fixtures" / "submissions" / "hand_edited.csv"
    r = run("validate", hand_edited, "-c", "plantclef2025", "--ids", sample)
    assert r.exit_code == 1
    found = [line.split(" error [")[1].split("]")[0] for line in r.output.splitlines() if " error [" in line]
    assert found == ["missing_ids", "float_label", "space_after_quote", "non_integer_label"]
    assert "hand_edited.csv:9:1: error [space_after_quote]" in r.output and "3 of the 40 test ids" in r.output
