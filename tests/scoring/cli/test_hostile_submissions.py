"""Regressions for the scoring-side holes of the red-team issue (issue 12, items 5, 6, 10, 11a, 13, 14)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime._matching import align
from agrieval.scoring.runtime.guard import grade
from agrieval.scoring.runtime.problems import ProblemLog
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.reading.submission import read_submission
from agrieval.scoring.runtime.validate import validate_file

REPO = Path(__file__).resolve().parents[3]
PC25 = load_competition("plantclef2025")
AGRI = load_competition("agrichallenge2024")


def _codes_messages(problems):
    return [(p.code, p.message) for p in problems if p.severity == "error"]


def test_missing_ids_are_listed_sorted_not_in_the_solutions_split_order():
    ids = [f"Z-{i}" for i in range(3)] + [f"A-{i}" for i in range(3)]  # solution grouped by Usage: Z public, A private
    usage = ["Public"] * 3 + ["Private"] * 3
    solution = "quadrat_id,species_ids,Usage\n" + "".join(f"{i},[1395807],{u}\n" for i, u in zip(ids, usage))
    sol = load_solution(solution.encode(), replace(PC25, grouping=None, primary_metric="sample_f1"))
    sub = read_submission(b"quadrat_id,species_ids\nZ-0,[1395807]\n", PC25)
    log = ProblemLog()
    align(sub, sol, log)
    message = next(p.message for p in log.finish() if p.code == "missing_ids")
    assert "'A-0', 'A-1', 'A-2', 'Z-1', 'Z-2'" in message


def test_a_solution_whose_ids_carry_the_class_warns_the_host_only(tmp_path):
    sol = tmp_path / "solution.csv"
    sol.write_text("image_id,label,Usage,team\nteam_a/caroubier/img_00.jpg,caroubier,Public,team_a\n"
                   "team_a/chene/img_01.jpg,chene,Public,team_a\n")
    sub = tmp_path / "sub.csv"
    sub.write_text("image_id,label\nteam_a/caroubier/img_00.jpg,caroubier\nteam_a/chene/img_01.jpg,chene\n")
    result = grade(sub, sol, AGRI)
    assert result.status == "scored"
    assert [d.code for d in result.host.diagnostics] == ["ids_reveal_labels"]
    assert "ids_reveal_labels" not in str(result.participant_view())
    clean = tmp_path / "clean.csv"
    clean.write_text("image_id,label,Usage,team\nteam_a/3f2a,caroubier,Public,team_a\nteam_a/9c1b,chene,Public,team_a\n")
    assert load_solution(clean, AGRI).warnings == []


def test_a_huge_header_is_refused_in_one_message():
    problems = validate_file(b"quadrat_id,species_ids" + b"," * 2_000_000 + b"\nA-1,[1395807]\n", PC25)
    assert len(problems) == 1 and problems[0].code == "missing_column"
    assert "2,000,002 fields" in problems[0].message


def test_rows_are_counted_before_tokenising_and_every_command_agrees(tmp_path):
    big = tmp_path / "commas.csv"
    big.write_bytes(b"image_id,label\n" + b",\n" * 2_100_001)  # more than twice AgrI's row limit in lines
    assert [p.code for p in validate_file(big, AGRI)] == ["too_many_rows"]
    solution = REPO / "reference_submissions" / "agrichallenge2024" / "solution.csv"
    assert [e.code for e in grade(big, solution, AGRI).errors] == ["too_many_rows"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "sub.csv"
    os.mkfifo(fifo)
    res = subprocess.run([sys.executable, "-m", "agrieval.scoring.cli.main", "validate", str(fifo), "-c", "plantclef2025"],
                         capture_output=True, text=True, timeout=60, cwd=REPO)
    assert res.returncode == 1 and "[not_text]" in res.stdout and "not a regular file" in res.stdout


def test_an_encrypted_zip_is_called_encrypted():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("submission.csv", b"quadrat_id,species_ids\nA-1,[1395807]\n")
    data = bytearray(buf.getvalue())
    # Set the "encrypted" bit of the general-purpose flags, as a password-protected archive declares it
    # (local header: offset 6; central directory entry: offset 8). zipfile cannot write such archives.
    data[6] |= 0x1
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 0x1
    problems = validate_file(bytes(data), PC25)
    assert problems[0].code == "zip_invalid" and "encrypted" in problems[0].message


def test_a_csv_named_like_a_platform_file_inside_a_zip_is_named():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("._submission.csv", b"quadrat_id,species_ids\n")
    problems = validate_file(buf.getvalue(), PC25)
    assert problems[0].code == "zip_empty" and "'._submission.csv'" in problems[0].message
    assert "holds no file" not in problems[0].message


@pytest.mark.parametrize("data, code, words", [
    (b'quadrat_id,species_ids\nA-1,"[1395807]]"\n', "list_syntax", "stray ']'"),
    (b'quadrat_id,species_ids\nA-1, "[1395807]"\n', "list_syntax", "a space stands before the opening quote"),
    (b'QUADRAT_ID,SPECIES_IDS\nA-1,[1395807]\n', "missing_column", "found 'QUADRAT_ID' instead"),
    (b'quadrat_id,species_ids\nA-1,[1395807]\nquadrat_id,species_ids\n', "repeated_header", "header line appears again"),
])
def test_messages_name_the_real_problem(data, code, words):
    problems = validate_file(data, PC25)
    assert any(p.code == code and words in p.message for p in problems), _codes_messages(problems)


def test_look_alike_letters_in_class_labels_are_named():
    problems = validate_file("image_id,label\nx1,ch\u0435ne\n".encode(), AGRI)
    assert any("U+0435" in p.message and "did you mean 'chene'" in p.message for p in problems)


def test_validate_lists_the_exit_code_of_a_zip_like_grade(tmp_path):
    runner = CliRunner()
    good = REPO / "tests" / "platforms" / "corpus" / "zip_good.zip"
    assert runner.invoke(cli, ["validate", str(good), "-c", "plantclef2025"]).exit_code == 0


def test_an_id_in_another_unicode_form_is_named_as_such():
    import unicodedata

    nfc = "CBN-Pr\u00e9-A1"
    solution = f"quadrat_id,species_ids\n{nfc},[1395807]\n".encode()
    definition = replace(PC25, grouping=None, primary_metric="sample_f1", id_pattern=None)
    sol = load_solution(solution, definition)
    sub = read_submission(f"quadrat_id,species_ids\n{unicodedata.normalize('NFD', nfc)},[1395807]\n".encode(),
                          definition)
    log = ProblemLog()
    assert align(sub, sol, log) is None
    assert any("Unicode form" in p.message for p in log.finish() if p.code == "unknown_ids")
