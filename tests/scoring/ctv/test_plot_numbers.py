"""What the CTV figures show: bars from 0."""

from pathlib import Path

import pytest

from agrieval.scoring.ctv import _plots as plots
from agrieval.scoring.ctv.results_table import read_results

REPO = Path(__file__).resolve().parents[3]


# heatmap numbers: the tables' text (test_figures_as_printed.py::test_heatmap_numbers_have_the_tables_decimals)


def test_team_accuracy_bars_start_at_zero():
    pytest.importorskip("matplotlib")
    table = read_results(REPO / "examples/ctv/RESULTS.csv")
    fig = plots.draw_team_bars(table, "LOTO")  # LOTO test accuracies are all above 80%
    assert fig.axes[0].get_ylim()[0] == 0
    plots.pyplot().close(fig)
