"""The warm path (``agrieval.scoring.runtime.warm.Grader``) gives the one-shot verdicts, whatever came before.

One ``Grader`` per competition scores every reference submission and every
file of the bad-submission corpus, forwards then backwards (so no state left
by one upload can change the next verdict), and each report must equal, key
for key, what a fresh ``score_file`` (``agrieval score``) returns for that file;
``Grader.grade`` must give what ``guard.grade`` gives (status, metrics, errors,
warnings, details). Runtime imports only: this runs under every interpreter
of the portable runtime too.
"""

from __future__ import annotations

import json

import pytest

from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.guard import grade
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.scorer import score_file
from agrieval.scoring.runtime.warm import Grader
from tests.scoring.runtime.shipped_files import CORPUS, REFERENCE, uploads


def _graded(result) -> dict:
    view = result.to_dict() if hasattr(result, "to_dict") else dict(vars(result))
    view.pop("host", None)  # timings
    return {"view": view, "details": result.report.details}


@pytest.mark.parametrize("competition", ["plantclef2025", "agrichallenge2024"])
@pytest.mark.parametrize("reveal_private", [False, True])
def test_grader_scores_every_upload_as_the_one_shot_path(competition, reveal_private):
    definition = load_definition(competition)
    solution = REFERENCE / competition / "solution.csv"
    files = uploads(competition)
    assert len(files) > (60 if competition == "plantclef2025" else 4)
    one_shot = {f: score_file(f, solution, definition, reveal_private=reveal_private).to_dict() for f in files}
    grader = Grader(solution, competition, reveal_private=reveal_private)  # the limits: a child per upload
    trusted = Grader(grader.solution, competition, reveal_private=reveal_private, limits=False)  # in-process
    statuses = set()
    for k, f in enumerate(files + files[::-1]):
        graded = (grader if k < len(files) else trusted).evaluate(f)
        assert graded.report.to_dict() == one_shot[f], f.name
        assert trusted.score(f).to_dict() == one_shot[f], f.name
        statuses.add(graded.report.status)
        if graded.report.status == "scored":
            assert sorted(graded.order.tolist()) == list(range(len(grader.solution.ids)))
            assert [graded.submission.ids[i] for i in graded.order] == grader.solution.ids
        else:
            assert graded.order is None
    assert statuses == {"scored", "rejected"}


def test_grader_grades_as_the_guard(tmp_path):
    definition = load_definition("plantclef2025")
    solution = REFERENCE / "plantclef2025" / "solution.csv"
    grader = Grader(solution, definition, reveal_private=True)
    files = sorted((REFERENCE / "plantclef2025" / "submissions").rglob("*.csv")) + [
        CORPUS / name for name in ("bom.csv", "crlf.csv", "duplicate_ids.csv", "nan_label.csv", "no_header.csv")]
    for f in files:
        for split_safe in (False, True):
            warm = grader.grade(f, split_safe=split_safe)
            cold = grade(f, solution, "plantclef2025", reveal_private=True, split_safe=split_safe)
            assert _graded(warm) == _graded(cold), f.name
    zipped = tmp_path / "submission.zip"
    import zipfile
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.write(files[0], "submission.csv")
    assert _graded(grader.grade(zipped)) == _graded(grade(zipped, solution, definition, reveal_private=True))
    assert grader.score(zipped).to_dict() == score_file(zipped, solution, definition, reveal_private=True).to_dict()


def test_grader_reports_a_bad_solution_once_at_load(tmp_path):
    bad = tmp_path / "solution.csv"
    bad.write_text("quadrat_id,species_ids,Usage\nA-1,[1355868],Sideways\n")
    with pytest.raises(HostError):
        Grader(bad, "plantclef2025")
    bad.write_text(json.dumps({"not": "a csv"}))
    with pytest.raises(HostError):
        Grader(bad, "plantclef2025")
