"""The Ladder (scoring/runtime/_ladder.py): its release rule on hand-worked cases, its state file, and
the metric as a mean over units. Standard library, numpy and pytest only (run under every platform
interpreter too)."""

from __future__ import annotations

import json
import math
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from agrieval.scoring.runtime import _ladder as ladder
from agrieval.scoring.runtime._unit_scores import row_units, row_values, split_score
from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.guard import grade
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.warm import Grader

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO / "reference_submissions"
PC = REFERENCE / "plantclef2025"
AG = REFERENCE / "agrichallenge2024"

BOUND = dict(competition="toy", metric="accuracy", unit="row", solution_sha256="0" * 64)


def _submit(path, values, public=None):
    public = public or {"accuracy": float(np.mean(values))}
    return ladder.submit(path, values, public, **BOUND)


# -- the release rule, worked by hand -------------------------------------------------------------------

def test_a_first_submission_is_released_rounded_to_one_over_n(tmp_path):
    # mean 0.6 over n = 3 units: the nearest multiple of 1/3 is 2/3
    d = _submit(tmp_path / "s.json", [0.3, 0.6, 0.9])
    assert d.released and d.submission == 1 and d.shown["accuracy"] == pytest.approx(2 / 3)
    assert d.raw["accuracy"] == pytest.approx(0.6) and math.isinf(d.bar)


def test_an_improvement_of_exactly_one_standard_error_is_held(tmp_path):
    state = tmp_path / "s.json"
    _submit(state, [0, 0, 1, 1])  # shown 0.5
    # diff = [1, 0, 0, 0]: mean 0.25, sample sd sqrt((0.75^2 + 3 * 0.25^2) / 3) = 0.5, SE = 0.5 / 2 = 0.25;
    # the bar is 0.5 + 0.25 = 0.75 and the new mean is 0.75: not strictly above, held
    d = _submit(state, [1, 0, 1, 1])
    assert not d.released and d.bar == pytest.approx(0.75) and d.shown["accuracy"] == 0.5
    assert d.shown_submission == 1 and d.submission == 2


def test_an_improvement_past_one_standard_error_is_released(tmp_path):
    state = tmp_path / "s.json"
    _submit(state, [0, 0, 1, 1])
    # diff = [1, 1, 0, 0]: sd sqrt(4 * 0.25 / 3) = 0.5774, SE 0.2887, bar 0.7887 < 1.0
    d = _submit(state, [1, 1, 1, 1])
    assert d.released and d.bar == pytest.approx(0.5 + math.sqrt(1 / 3) / 2) and d.shown["accuracy"] == 1.0


def test_the_bar_starts_from_the_shown_rounded_value_not_the_raw_one(tmp_path):
    state = tmp_path / "s.json"
    first = _submit(state, [0.9, 0.9, 0.9, 0.9, 0.1])  # raw 0.74, shown [0.74]_{1/5} = 0.8
    assert first.shown["accuracy"] == pytest.approx(0.8)
    # 0.76 beats the raw 0.74 but not the shown 0.8 (plus its standard error): held
    d = _submit(state, [0.76] * 5)
    assert not d.released and d.bar > 0.8 and d.shown["accuracy"] == pytest.approx(0.8)


def test_every_public_metric_shown_is_the_released_submissions(tmp_path):
    state = tmp_path / "s.json"
    _submit(state, [0, 0, 1, 1], {"accuracy": 0.5, "macro_f1": 0.41})
    d = _submit(state, [1, 0, 0, 1], {"accuracy": 0.5, "macro_f1": 0.93})  # held: its macro F1 must not show
    assert not d.released and d.shown == {"accuracy": 0.5, "macro_f1": 0.5}  # 0.41 rounded to 1/4
    assert d.raw == {"accuracy": 0.5, "macro_f1": 0.93}


def test_a_repeat_of_the_released_submission_is_held(tmp_path):
    state = tmp_path / "s.json"
    _submit(state, [0, 1, 1, 1])
    d = _submit(state, [0, 1, 1, 1])  # sd 0: the bar is the shown value itself, 0.75, and 0.75 is not above it
    assert not d.released


# -- the state file ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": "something else"}',
                                  '{"format": "agrieval-ladder-state", "version": 99}'])
def test_a_corrupt_state_is_refused_and_left_as_it_is(tmp_path, text):
    state = tmp_path / "s.json"
    state.write_text(text)
    with pytest.raises(HostError) as caught:
        _submit(state, [0, 1])
    assert caught.value.code == "ladder_state_corrupt" and state.read_text() == text


def test_a_state_with_a_truncated_released_submission_is_corrupt(tmp_path):
    state = tmp_path / "s.json"
    _submit(state, [0, 1, 1])
    data = json.loads(state.read_text())
    data["released"]["unit_values"] = data["released"]["unit_values"][:2]
    state.write_text(json.dumps(data))
    with pytest.raises(HostError, match="incomplete") as caught:
        _submit(state, [0, 1, 1])
    assert caught.value.code == "ladder_state_corrupt"


def test_a_state_of_another_solution_is_refused(tmp_path):
    state = tmp_path / "s.json"
    _submit(state, [0, 1, 1])
    before = state.read_text()
    with pytest.raises(HostError) as caught:
        ladder.submit(state, [0, 1, 1], {"accuracy": 2 / 3}, **{**BOUND, "solution_sha256": "1" * 64})
    assert caught.value.code == "ladder_state_foreign" and state.read_text() == before


def _one(args):
    path, i = args
    values = [float((i + k) % 2) for k in range(10)]
    return _submit(path, values).submission


def test_concurrent_submissions_lose_no_update(tmp_path):
    state = tmp_path / "s.json"
    with multiprocessing.get_context("fork").Pool(4) as pool:
        numbers = pool.map(_one, [(str(state), i) for i in range(24)])
    data = json.loads(state.read_text())
    assert sorted(numbers) == list(range(1, 25))  # each process saw the previous one's write
    assert data["n_submissions"] == 24 and [h["submission"] for h in data["history"]] == list(range(1, 25))


# -- the metric as a mean over units, and the Ladder through the grading guard ---------------------------

@pytest.mark.parametrize("folder,competition", [(PC, "plantclef2025"), (AG, "agrichallenge2024")])
def test_the_primary_metric_is_the_mean_of_its_unit_values(folder, competition):
    grader = Grader(folder / "solution.csv", competition, reveal_private=True, limits=False)
    units, _ = row_units(grader.solution, grader.definition)
    for path in sorted((folder / "submissions").glob("*.csv")):
        graded = grader.evaluate(path)
        if graded.report.status != "scored":
            continue
        values = row_values(graded.submission, grader.solution, grader.definition, graded.order)
        for split in ("public", "private"):
            rows = np.flatnonzero(grader.solution.split == split)
            expected = getattr(graded.report.metrics, split)[grader.definition.primary_metric]
            assert split_score(values, units, rows) == pytest.approx(expected, abs=1e-12), (path.name, split)


def test_grade_through_the_ladder_shows_the_released_submission(tmp_path):
    state = tmp_path / "team.json"
    sol, comp = PC / "solution.csv", "plantclef2025"
    first = grade(PC / "submissions" / "partial.csv", sol, comp, ladder=state)
    worse = grade(PC / "submissions" / "baseline_top5_common.csv", sol, comp, ladder=state)
    assert first.status == worse.status == "scored"
    assert worse.metrics.public == first.metrics.public  # every public metric: the released one's
    raw = worse.report.details["ladder"]["raw_public"]
    assert raw["transect_f1"] < first.metrics.public["transect_f1"] and not worse.report.details["ladder"]["released"]
    assert [w.code for w in worse.warnings] == ["ladder_not_released"]
    assert "ladder_unit_values" not in worse.report.details["public"]
    n_units = first.report.details["ladder"]["n_units"]
    for value in first.metrics.public.values():
        assert value * n_units == pytest.approx(round(value * n_units))  # multiples of 1/n
    json.dumps(worse.to_dict(), allow_nan=False)


def test_grade_refuses_a_foreign_state_as_a_host_error(tmp_path):
    state = tmp_path / "team.json"
    assert grade(AG / "submissions" / "perfect.csv", AG / "solution.csv", "agrichallenge2024",
                 ladder=state).status == "scored"
    before = state.read_text()
    result = grade(PC / "submissions" / "partial.csv", PC / "solution.csv", "plantclef2025", ladder=state)
    assert result.status == "error" and result.exit_code == 3
    assert result.host.diagnostics[0].code == "ladder_state_foreign" and state.read_text() == before
    assert "ladder" not in json.dumps(result.participant_view())  # the participant sees the generic message


def test_a_metric_that_is_no_mean_over_units_is_refused():
    definition = load_definition("plantclef2025")
    sol = load_solution(PC / "solution.csv", definition)
    from agrieval.scoring.runtime._unit_scores import check_decomposable

    with pytest.raises(HostError) as caught:
        check_decomposable(definition, "macro_f1")
    assert caught.value.code == "ladder_metric_unsupported"
    assert len(ladder.solution_fingerprint(sol, definition)) == 64


def test_the_warm_grader_runs_the_same_ladder(tmp_path):
    grader = Grader(PC / "solution.csv", "plantclef2025")
    warm, cold = tmp_path / "warm.json", tmp_path / "cold.json"
    for name in ("baseline_top5_common", "partial", "perfect", "partial"):
        path = PC / "submissions" / f"{name}.csv"
        a = grader.grade(path, ladder=warm, filename=f"{name}.csv")
        b = grade(path, PC / "solution.csv", "plantclef2025", ladder=cold, filename=f"{name}.csv")
        assert a.metrics.public == b.metrics.public and a.report.details["ladder"] == b.report.details["ladder"]
    assert json.loads(warm.read_text())["history"] == json.loads(cold.read_text())["history"]
    assert json.loads(warm.read_text())["released"]["submission"] == 3  # perfect.csv


def test_public_decimals_round_the_public_scores_only():
    import dataclasses

    definition = dataclasses.replace(load_definition("plantclef2025"), public_decimals=1)
    result = grade(PC / "submissions" / "partial.csv", PC / "solution.csv", definition, reveal_private=True)
    assert result.metrics.public["transect_f1"] == 0.6  # 0.5511 rounded
    assert result.report.details["public_raw"]["transect_f1"] == pytest.approx(0.551111, abs=1e-6)
    assert result.metrics.private["transect_f1"] not in (round(result.metrics.private["transect_f1"], 1),)
