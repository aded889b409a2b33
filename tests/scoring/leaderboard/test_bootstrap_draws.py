"""The bootstrap's draws (``bootstrap.draw_units``): every unit can be drawn, each as often as the others.
The resampled scores are cross-checked elsewhere by feeding two computations the same draws, which cannot see
draws that leave a unit out (scripts/mutation_check.py: ``bootstrap_never_last_unit``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.leaderboard._bootstrap import draw_units, resample_scores
from agrieval.scoring.runtime.definition import load_definition


@settings(max_examples=40, deadline=None)
@given(n_units=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_every_unit_is_drawn_about_equally_often(n_units, seed):
    draws = draw_units(n_units, 400 * n_units, seed)
    assert draws.shape == (400 * n_units, n_units)
    counts = np.bincount(draws.ravel(), minlength=n_units)
    assert len(counts) == n_units  # nothing outside 0..n_units - 1
    # each unit: 400 n^2 draws with probability 1/n, mean 400 n, sd < sqrt(400 n) <= 70: 6 sd of room
    assert np.all(np.abs(counts - 400 * n_units) < 6 * np.sqrt(400 * n_units))


def test_the_resampled_mean_of_a_unit_mean_metric_is_the_mean_over_units():
    """Group accuracy over 4 teams, only the last one right: each resample's score is the share of draws
    that hit that team, so the resampled scores average 1/4 (sd of the average: sqrt(3/16 / 4) / sqrt(4000))."""
    frame = pd.DataFrame({"group": ["a", "b", "c", "d"], "y_true": ["oak"] * 4,
                          "y_pred": ["ash", "ash", "ash", "oak"], "correct": [0.0, 0.0, 0.0, 1.0]})
    definition = load_definition("agrichallenge2024")
    scores = resample_scores(frame, definition, "group_accuracy", np.arange(4), draw_units(4, 4000, seed=3), "group")
    assert scores.mean() == pytest.approx(0.25, abs=0.01)
    assert scores.max() == 1.0  # some resample drew the last team four times
