"""What the CTV figures show: heatmap numbers rounded halves up, bars from 0."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.ctv import plots
from scoring.ctv.results_table import read_results

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value, shown", [(72.5, "73"), (73.5, "74"), (0.5, "1"), (97.5, "98"), (72.49, "72"),
                                          (72.4999999, "72"), (100.0, "100"), (62.0, "62")])
def test_heatmap_numbers_round_halves_up(value, shown):
    assert plots.whole_percent(value) == shown


@given(st.integers(0, 999))
def test_heatmap_numbers_agree_with_exact_decimal_arithmetic_on_tenths(tenths):
    # n/10 written with one decimal: the half-up rounding of that decimal, never banker's rounding.
    value = tenths / 10
    assert plots.whole_percent(value) == str((tenths + 5) // 10)


def test_team_accuracy_bars_start_at_zero():
    pytest.importorskip("matplotlib")
    table = read_results(REPO / "examples/ctv/RESULTS.csv")
    fig = plots.draw_team_bars(table, "LOTO")  # LOTO test accuracies are all above 80%
    assert fig.axes[0].get_ylim()[0] == 0
    plots.pyplot().close(fig)
