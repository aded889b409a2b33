"""`agrieval validate`, `agrieval score` and `agrieval grade` accept the same uploads and give the same codes.

A participant checks the exact file they will upload (a CSV, or a zip holding
one) and must get the verdict the grading server will give. Validate says more
in one run: the ids are matched even when rows are refused (the server stops at
the rows), so its codes are the server's plus, for a refused file, the id codes.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from tests.platforms.hook_drivers import CASES, COMPETITION, CORPUS, SOLUTION


def _codes(payload: dict) -> set:
    return {e["code"] for e in payload["errors"]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_validate_score_and_grade_agree_on_every_corpus_file(name):
    path = str(CORPUS / name)
    runner = CliRunner()
    grade = runner.invoke(cli, ["grade", path, "-s", str(SOLUTION), "-c", COMPETITION, "--participant-only"])
    validate = runner.invoke(cli, ["validate", path, "-s", str(SOLUTION), "-c", COMPETITION, "--json"])
    score = runner.invoke(cli, ["score", path, "-s", str(SOLUTION), "-c", COMPETITION, "--json"])
    graded, validated, scored = (json.loads(r.stdout) for r in (grade, validate, score))
    assert grade.exit_code == validate.exit_code == score.exit_code, (grade.output, validate.output, score.output)
    assert _codes(graded) == _codes(scored)
    assert _codes(graded) <= _codes(validated)
    extra = _codes(validated) - _codes(graded)
    assert extra <= {"missing_ids", "unknown_ids"}
    assert not extra or graded["status"] == "rejected"
    assert (graded["status"] == "scored") == (validated["status"] == "valid") == (scored["status"] == "scored")
