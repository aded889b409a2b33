"""The Ladder's inputs and its bar, on cases where a plausible mistake changes the decision
(scripts/mutation_check.py: ``ladder_units_all_rows``, ``ladder_bar_from_raw_mean``). Standard library, numpy
and pytest only (run under every platform interpreter too)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from agrieval.scoring.runtime import _ladder as ladder
from agrieval.scoring.runtime.guard import grade

PC = Path(__file__).resolve().parents[3] / "reference_submissions" / "plantclef2025"
BOUND = dict(competition="toy", metric="accuracy", unit="row", solution_sha256="0" * 64)


def _submit(path, values):
    return ladder.submit(path, values, {"accuracy": float(np.mean(values))}, **BOUND)


def test_the_bar_is_the_shown_value_when_the_raw_mean_lies_below_it(tmp_path):
    state = tmp_path / "s.json"
    first = [0.9, 0.9, 0.9, 0.9, 0.1]  # raw 0.74, shown [0.74]_{1/5} = 0.8
    assert _submit(state, first).shown["accuracy"] == pytest.approx(0.8)
    # every unit 0.04 better: the paired difference is constant, its standard error 0, so the bar is the
    # shown 0.8 itself; the new mean 0.78 beats the raw 0.74 but not what the board shows: held
    d = _submit(state, [v + 0.04 for v in first])
    assert d.bar == pytest.approx(0.8, abs=1e-12) and not d.released
    assert d.shown["accuracy"] == pytest.approx(0.8) and d.shown_submission == 1


def test_the_bar_is_the_shown_value_when_the_raw_mean_lies_above_it(tmp_path):
    state = tmp_path / "s.json"
    assert _submit(state, [0.3] * 4).shown["accuracy"] == 0.25  # raw 0.3, shown [0.3]_{1/4} = 0.25
    # 0.28 everywhere: worse than the raw 0.3, better than the shown 0.25 by more than its standard error (0):
    # released, and shown as [0.28]_{1/4} = 0.25
    d = _submit(state, [0.28] * 4)
    assert d.bar == pytest.approx(0.25, abs=1e-12) and d.released and d.shown_submission == 2


def _public_transects(solution: Path) -> set:
    """The public rows' transects, read here with the csv module and the documented strip-date rule
    (drop a trailing '-' and eight digits), not with the kit's reader."""
    with open(solution, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert "transect_id" not in rows[0]  # (else the column would be the transect)
    out = set()
    for row in rows:
        if row["Usage"] == "Public":
            qid = row["quadrat_id"]
            tail = qid[-9:]
            out.add(qid[:-9] if tail[0] == "-" and tail[1:].isdigit() else qid)
    return out


def test_the_ladder_tests_public_units_only(tmp_path):
    state = tmp_path / "team.json"
    result = grade(PC / "submissions" / "partial.csv", PC / "solution.csv", "plantclef2025", ladder=state,
                   reveal_private=True)
    assert result.status == "scored"
    released = json.loads(state.read_text())["released"]
    values = released["unit_values"]
    # one value per public transect, and their mean is the raw public score: no private row went in (the
    # private split would then decide what the public board shows)
    assert len(values) == len(_public_transects(PC / "solution.csv"))
    raw = result.report.details["ladder"]["raw_public"]["transect_f1"]
    assert float(np.mean(values)) == pytest.approx(raw, abs=1e-12)
    assert abs(result.metrics.private["transect_f1"] - raw) > 1e-3  # (the splits' scores differ on this file)
