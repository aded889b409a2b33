"""Output cells: formula neutralisation and stable number formatting."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from agrieval.scoring.text.tables import csv_text, fmt, json_number, markdown_table, safe_cell


def test_formula_cells_are_quoted_numbers_are_not():
    assert [safe_cell(x) for x in ["=1+2", "+cmd", "-1+x", "@SUM(A1)", "plain", "-1", "+2", "0.5"]] == [
        "'=1+2", "'+cmd", "'-1+x", "'@SUM(A1)", "plain", "-1", "+2", "0.5"]


@given(st.text(max_size=30))
def test_no_cell_can_start_a_formula(text):
    out = safe_cell(text)
    if out.startswith(("=", "+", "-", "@")):
        float(out)  # only a plain number may start so


def test_csv_neutralises_names_and_markdown_escapes_them_without_the_csv_guard():
    text = csv_text(["name", "score"], [["=HYPERLINK(\"x\")", 0.5]])
    row = list(csv.reader(io.StringIO(text)))[1]
    assert row == ["'=HYPERLINK(\"x\")", "0.5"]
    md = markdown_table(["name"], [["@evil|pipe"]])
    assert "| @evil\\|pipe |" in md  # the pipe escaped; the apostrophe is CSV's guard only
    # a negative mean with its spread is shown as it is (it was "'-1.43 ± 0.20" in report.md and report.html)
    assert "| -1.43 ± 0.20 |" in markdown_table(["gap"], [["-1.43 ± 0.20"]])


def test_fmt_is_stable():
    assert fmt(0.5) == "0.5000"
    assert fmt(-1e-9) == "0.0000"
    assert fmt(float("nan")) == "" and fmt(None) == ""
    assert fmt(2 / 3, 2) == "0.67"
    assert json_number(float("nan")) is None and json_number(-0.0) == 0.0


def test_analysis_modules_import_no_heavy_package():
    import subprocess
    import sys

    code = ("import sys; import agrieval.scoring.cli._leaderboard, agrieval.scoring.cli._ctv, agrieval.scoring.cli._rank_agreement, "
            "agrieval.scoring.leaderboard.build, agrieval.scoring.leaderboard.outputs, agrieval.scoring.ctv.report, agrieval.scoring.leaderboard.rank_agreement; "
            "print(sorted(m for m in ('scipy', 'matplotlib', 'torch', 'PIL', 'agrieval.data_tools', 'agrieval.baselines') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
