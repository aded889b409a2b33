"""ctv summarize: golden values worked by hand / plain numpy, both ddofs, properties."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.analysis_input.input_error import CODES, InputError
from agrieval.scoring.cli.main import cli
from agrieval.scoring.ctv._summary_markdown import render
from agrieval.scoring.ctv.results_table import ResultsTable, TeamResult, read_results
from agrieval.scoring.ctv.summarize import summarize

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "ctv" / "RESULTS.csv"

# protocol, arch, team, val, test: small enough to check by hand
HAND = [
    ("TOTO", "A", "t1", 98, 70), ("TOTO", "A", "t2", 96, 80), ("TOTO", "A", "t3", 97, 60),
    ("TOTO", "B", "t1", 99, 75), ("TOTO", "B", "t2", 97, 85), ("TOTO", "B", "t3", 95, 65),
    ("LOTO", "A", "t1", 95, 88), ("LOTO", "A", "t2", 94, 90), ("LOTO", "A", "t3", 96, 86),
    ("LOTO", "B", "t1", 96, 92), ("LOTO", "B", "t2", 95, 91), ("LOTO", "B", "t3", 97, 89),
]


def write_table(path: Path, rows) -> Path:
    path.write_text("protocol,arch,team,val_acc,test_acc\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def table_of(rows) -> ResultsTable:
    return ResultsTable([TeamResult(*r) for r in rows])


@pytest.mark.parametrize("ddof", [0, 1])
def test_group_statistics_by_hand(ddof):
    s = summarize(table_of(HAND), ddof=ddof, threshold=89)
    g = s.group("TOTO", "A")
    assert g["n_teams"] == 3
    assert g["test_acc"]["mean"] == pytest.approx(70)
    # deviations 0, +10, -10: sum of squares 200
    assert g["test_acc"]["std"] == pytest.approx(math.sqrt(200 / (3 - ddof)))
    # VTG 28, 16, 37: mean 27, deviations 1, -11, 10: sum of squares 222
    assert g["vtg"]["mean"] == pytest.approx(27)
    assert g["vtg"]["std"] == pytest.approx(math.sqrt(222 / (3 - ddof)))
    assert g["val_acc"]["mean"] == pytest.approx(97)
    assert (g["test_acc_min"], g["test_acc_min_team"], g["test_acc_max"], g["test_acc_max_team"]) == (60, "t3", 80, "t2")
    # share strictly above 89: LOTO A has 90 only; LOTO B has 92 and 91 (89 is not above 89)
    assert s.group("LOTO", "A")["share_above_threshold"] == pytest.approx(1 / 3)
    assert s.group("LOTO", "B")["share_above_threshold"] == pytest.approx(2 / 3)
    assert s.as_dict()["ddof"] == {"TOTO": ddof, "LOTO": ddof}
    assert g["ddof"] == ddof


def test_default_ddof_follows_the_paper_tables():
    # Table 6 (TOTO): population std (ddof 0); Table 7 (LOTO): sample std (ddof 1)
    s = summarize(table_of(HAND))
    assert s.ddof == {"TOTO": 0, "LOTO": 1}
    assert s.group("TOTO", "A")["test_acc"]["std"] == pytest.approx(np.std([70, 80, 60], ddof=0))
    assert s.group("LOTO", "A")["test_acc"]["std"] == pytest.approx(np.std([88, 90, 86], ddof=1))
    text = render(table_of(HAND), s)
    assert "**Std** (ddof=0)" in text.split("### LOTO")[0] and "**Std** (ddof=1)" in text.split("### LOTO")[1]


@pytest.mark.parametrize("ddof", [0, 1])
def test_protocol_change_by_hand(ddof):
    s = summarize(table_of(HAND), ddof=ddof)
    a = next(c for c in s.protocol_change if c["arch"] == "A")
    assert a["test_gain_points"] == pytest.approx(88 - 70)
    assert a["vtg_reduction_pct"] == pytest.approx(100 * (27 - 7) / 27)
    toto_std = np.sqrt(np.sum((np.array([70, 80, 60]) - 70) ** 2) / (3 - ddof))
    loto_std = np.sqrt(np.sum((np.array([88, 90, 86]) - 88) ** 2) / (3 - ddof))
    assert a["std_reduction_pct"] == pytest.approx(100 * (toto_std - loto_std) / toto_std)


def test_agreement_by_hand():
    s = summarize(table_of(HAND))
    loto = next(a for a in s.agreement if a["protocol"] == "LOTO" and a["metric"] == "test_acc")
    # ranks A (t1,t2,t3) = (2,3,1), B = (3,2,1): d^2 sum 2, rho = 1 - 6*2/(3*(9-1))
    assert loto["spearman"]["statistic"] == pytest.approx(0.5)
    # pairs: (t1,t2) discordant, (t1,t3) and (t2,t3) concordant: tau = (2-1)/3
    assert loto["kendall"]["statistic"] == pytest.approx(1 / 3)
    x, y = np.array([88, 90, 86.0]), np.array([92, 91, 89.0])
    r = np.sum((x - x.mean()) * (y - y.mean())) / np.sqrt(np.sum((x - x.mean()) ** 2) * np.sum((y - y.mean()) ** 2))
    assert loto["pearson"]["statistic"] == pytest.approx(r)
    toto = next(a for a in s.agreement if a["protocol"] == "TOTO" and a["metric"] == "test_acc")
    assert toto["spearman"]["statistic"] == pytest.approx(1.0)  # B = A + 5
    assert toto["pearson"]["statistic"] == pytest.approx(1.0)


def test_vtg_uses_unrounded_inputs(tmp_path):
    rows = [("TOTO", "A", "t1", 97.126, 80.004), ("TOTO", "A", "t2", 96.5, 70.0)]
    t = read_results(write_table(tmp_path / "r.csv", rows))
    s = summarize(t)
    assert s.group("TOTO", "A")["vtg"]["mean"] == pytest.approx(((97.126 - 80.004) + 26.5) / 2, abs=1e-12)


# ---- properties ------------------------------------------------------------------

acc = st.floats(min_value=40, max_value=100, allow_nan=False).map(lambda v: round(v, 2))


@st.composite
def tables(draw):
    n = draw(st.integers(min_value=3, max_value=8))
    rows = []
    for protocol in ("TOTO", "LOTO"):
        for arch in ("A", "B"):
            for t in range(n):
                rows.append((protocol, arch, f"team{t}", draw(acc), draw(acc)))
    return rows


def _numbers(summary) -> dict:
    d = summary.as_dict()
    d.pop("warnings")
    return d


@settings(max_examples=40, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_permuting_teams_changes_no_statistic(rows, rnd):
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    assert _numbers(summarize(table_of(shuffled))) == _numbers(summarize(table_of(rows)))


@settings(max_examples=40, deadline=None)
@given(tables(), st.floats(min_value=-30, max_value=30).map(lambda v: round(v, 1)))
def test_shifting_one_arch_leaves_rank_statistics_unchanged(rows, shift):
    shifted = [(p, a, t, v + shift, te + shift) if a == "B" else (p, a, t, v, te) for p, a, t, v, te in rows]
    before, after = summarize(table_of(rows)), summarize(table_of(shifted))
    for x, y in zip(before.agreement, after.agreement):
        for stat in ("spearman", "kendall"):
            if x["metric"] == "vtg":  # a shift of both val and test leaves VTG exactly unchanged
                assert x[stat]["statistic"] == pytest.approx(y[stat]["statistic"], nan_ok=True)
            else:
                # ranks can only change if the shift reorders values by float rounding; they are 0.01 apart
                assert x[stat]["statistic"] == pytest.approx(y[stat]["statistic"], nan_ok=True, abs=1e-9)


@given(acc)
def test_vtg_is_zero_when_val_equals_test(v):
    s = summarize(table_of([("LOTO", "A", "t1", v, v), ("LOTO", "A", "t2", v, v)]))
    assert s.group("LOTO", "A")["vtg"]["mean"] == 0
    assert TeamResult("LOTO", "A", "t", v, v).vtg == 0


# ---- reading ---------------------------------------------------------------------

@pytest.mark.parametrize("body, code, line, column", [
    ("protocol,arch,team,val_acc\nTOTO,A,t1,90\n", "missing_column", 1, None),
    ("protocol,arch,team,val_acc,test_acc\ntoto,A,t1,90,80\n", "bad_protocol", 2, 1),
    ("protocol,arch,team,val_acc,test_acc\nTOTO,A,t1,90,80\nTOTO,A,t1,91,81\n", "duplicate_key", 3, None),
    ("protocol,arch,team,val_acc,test_acc\nTOTO,A,t1,90,180\n", "out_of_range", 2, 5),
    ("protocol,arch,team,val_acc,test_acc\nTOTO,A,t1,nan,80\n", "bad_number", 2, 4),
    ("protocol,arch,team,val_acc,test_acc\nTOTO,A,,90,80\n", "empty_cell", 2, 3),
    ("protocol,arch,team,val_acc,test_acc\nTOTO,A,t1,0.9,0.8\nTOTO,A,t2,0.95,0.7\n", "looks_like_fractions", None, None),
    ("protocol,arch,team,val_acc,test_acc\n", "empty_table", None, None),
])
def test_reader_rejects_with_file_line_column(tmp_path, body, code, line, column):
    path = tmp_path / "RESULTS.csv"
    path.write_text(body)
    with pytest.raises(InputError) as info:
        read_results(path)
    err = info.value
    assert err.code == code and code in CODES
    assert err.file == str(path) and err.line == line and err.column == column
    assert str(path) in err.render()


def test_markdown_mirrors_the_paper_layout():
    t = table_of(HAND)
    text = render(t, summarize(t, ddof=0))
    toto = text.split("### TOTO")[1].split("###")[0]
    lines = [ln for ln in toto.splitlines() if ln.startswith("|")]
    assert lines[0].startswith("| Team (training team) | A Val | A Test | A VTG | B Val | B Test | B VTG |")
    assert [ln.split("|")[1].strip() for ln in lines[2:]] == ["t1", "t2", "t3", "**Mean**", "**Std** (ddof=0)"]
    assert lines[2].split("|")[2:5] == [" 98.00 ", " 70.00 ", " 28.00 "]


def test_cli_json_on_bundled_example():
    res = CliRunner().invoke(cli, ["ctv", "summarize", str(EXAMPLE), "--json", "--ddof", "0"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["ddof"] == {"TOTO": 0, "LOTO": 0} and out["status"] == "ok"
    assert {(g["protocol"], g["arch"]) for g in out["groups"]} == {
        (p, a) for p in ("TOTO", "LOTO") for a in ("densenet121", "swin_tiny")}
    assert all(g["n_teams"] == 12 for g in out["groups"])
    # independent recomputation of one group with numpy from the raw CSV
    import csv

    rows = [r for r in csv.DictReader(EXAMPLE.open()) if r["protocol"] == "LOTO" and r["arch"] == "swin_tiny"]
    test = np.array([float(r["test_acc"]) for r in rows])
    g = next(g for g in out["groups"] if g["protocol"] == "LOTO" and g["arch"] == "swin_tiny")
    assert g["test_acc"]["mean"] == pytest.approx(test.mean())
    assert g["test_acc"]["std"] == pytest.approx(np.sqrt(np.mean((test - test.mean()) ** 2)))


def test_warnings_are_rendered_as_escaped_notes(tmp_path):
    """One team per group: the std with the LOTO ddof 1 is undefined and said so under the tables (the names from
    the file escaped as text); rendering it once failed with a TypeError (a local string called as a function)."""
    path = write_table(tmp_path / "one.csv", [("TOTO", "a*b", "t1", 90, 80), ("LOTO", "a*b", "t1", 90, 80)])
    res = CliRunner().invoke(cli, ["ctv", "summarize", str(path)])
    assert res.exit_code == 0, res.output
    assert "> warning: LOTO/a\\*b: one team only, the std with ddof=1 is undefined" in res.stdout


def test_cli_rejects_bad_file_with_exit_1(tmp_path):
    path = write_table(tmp_path / "r.csv", [("TOTO", "A", "t1", 90, 101)])
    res = CliRunner().invoke(cli, ["ctv", "summarize", str(path)])
    assert res.exit_code == 1
    assert f"{path}:2:5: error [out_of_range]" in res.stderr


def test_cli_out_is_written_atomically(tmp_path):
    out = tmp_path / "summary.md"
    res = CliRunner().invoke(cli, ["ctv", "summarize", str(EXAMPLE), "--out", str(out)])
    assert res.exit_code == 0
    assert out.read_text() == res.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.md"]
