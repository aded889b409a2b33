"""Golden tests: the kit reproduces reference_submissions/expected_scores.json.

Those values are computed by reference_submissions/make_reference.py with plain
Python sets (not this package); two are worked out by hand in its README.
"""

import json
from pathlib import Path

import pytest

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.scorer import score_file

REF = Path(__file__).resolve().parents[2] / "reference_submissions"
EXPECTED = json.loads((REF / "expected_scores.json").read_text())
CASES = [(comp, name) for comp, items in sorted(EXPECTED.items()) for name in sorted(items)]


@pytest.mark.parametrize(("competition", "name"), CASES)
def test_reference_submission(competition, name):
    exp = EXPECTED[competition][name]
    definition = load_competition(competition)
    report = score_file(REF / competition / "submissions" / f"{name}.csv", REF / competition / "solution.csv",
                        definition, reveal_private=True)
    assert report.status == exp["status"]
    if exp["status"] == "scored":
        for split in ("public", "private"):
            got = getattr(report.metrics, split)
            for metric, value in exp[split].items():
                assert got[metric] == pytest.approx(value, abs=1e-12), (split, metric)
    else:
        assert {e.code for e in report.errors} >= set(exp["codes"])


def test_every_bundled_file_has_an_expected_result():
    files = {str(p.relative_to(REF)).removesuffix(".csv") for p in REF.glob("*/submissions/**/*.csv")}
    listed = {f"{c}/submissions/{n}" for c, n in CASES}
    assert files == listed


def test_private_part_not_computed_without_reveal():
    definition = load_competition("plantclef2025")
    report = score_file(REF / "plantclef2025/submissions/partial.csv", REF / "plantclef2025/solution.csv", definition)
    assert report.metrics.private is None and "private" not in report.details
    assert '"private"' not in report.to_json()


def test_hand_worked_partial_value():
    # reference_submissions/README.md works this one out by hand: public transect F1 of partial.csv
    assert EXPECTED["plantclef2025"]["partial"]["public"]["transect_f1"] == pytest.approx(0.5511111111111111)
    assert EXPECTED["agrichallenge2024"]["constant_chene"]["public"]["accuracy"] == pytest.approx(8 / 60)


def test_the_kits_own_solutions_do_not_give_their_labels_away():
    # the AgrI example once had ids such as team_a/caroubier/img_00.jpg and warned about itself
    from agrieval.scoring.runtime.reading.solution import load_solution

    for competition in sorted(EXPECTED):
        definition = load_competition(competition)
        sol = load_solution(REF / competition / "solution.csv", definition)
        assert "ids_reveal_labels" not in [w.code for w in sol.warnings], competition
