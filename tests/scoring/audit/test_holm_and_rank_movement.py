"""Holm's adjusted p-values on cases where the running maximum matters, against the step-down procedure as
Holm (1979) states it; the audit's rank bootstrap on a case worked by hand (scripts/mutation_check.py:
``holm_no_running_max``, ``rank_movement_never_last_unit``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.audit._rank_movement import rank_movement
from agrieval.scoring.audit._split_permutation import holm


def step_down(p_values, alpha):
    """Holm's procedure as stated: sort ascending, reject while p_(k) <= alpha / (m - k + 1), stop at the first
    that is not."""
    m = len(p_values)
    rejected = [False] * m
    for k, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[i] > alpha / (m - k):
            break
        rejected[i] = True
    return rejected


def test_a_later_smaller_product_takes_the_running_maximum():
    # sorted: 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04, raised to 0.06 by the one before it)
    adjusted, flagged = holm([0.01, 0.04, 0.03], 0.05)
    assert adjusted == pytest.approx([0.03, 0.06, 0.06])
    assert flagged == [True, False, False] == step_down([0.01, 0.04, 0.03], 0.05)


@settings(max_examples=200, deadline=None)
@given(p=st.lists(st.floats(0, 1), min_size=1, max_size=12),
       alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_adjusted_p_values_reject_what_the_step_down_procedure_rejects(p, alpha):
    adjusted, flagged = holm(p, alpha)
    assert flagged == step_down(p, alpha)
    for i in range(len(p)):  # a smaller p-value never gets a larger adjusted one
        for j in range(len(p)):
            if p[i] < p[j]:
                assert adjusted[i] <= adjusted[j]
        assert p[i] <= adjusted[i] <= 1


def test_rank_movement_of_two_tied_teams_worked_by_hand():
    """Teams A = [1, 0] and B = [0, 1] over two units tie (rank 1 both). A resample draws each unit with
    probability 1/2: A drops to rank 2 when both draws are unit 1 (1/4), B when both are unit 0 (1/4)."""
    a, b = rank_movement(np.array([[1.0, 0.0], [0.0, 1.0]]), ["A", "B"], n_resamples=4000, seed=5)
    assert (a.private_rank, b.private_rank) == (1, 1)
    assert a.p_moved == pytest.approx(0.25, abs=0.03) and b.p_moved == pytest.approx(0.25, abs=0.03)
    assert (a.rank_low, a.rank_high) == (b.rank_low, b.rank_high) == (1, 2)
