"""The report's additions: learning curves, train/val/test bars, Pearson between matrices, p-values."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from agrieval.scoring.cli.main import cli
from agrieval.scoring.ctv._paper_figures import learning_curves, matrix_correlation, split_accuracy
from agrieval.scoring.ctv._summary_markdown import format_pvalue
from agrieval.scoring.ctv.cross_team_matrix import toto_matrices
from agrieval.scoring.ctv.run_set import read_runs
from agrieval.scoring.ctv.summarize import agreement_stats
from agrieval.scoring.leaderboard._permutation_pvalues import exact_pvalues
from tests.scoring.ctv.run_folders import write_run


def _history(d: Path, rows: list[tuple]) -> None:
    (d / "history.jsonl").write_text("".join(json.dumps({"epoch": e, "train_acc": tr, "val_acc": va, "test_acc": te,
                                                          "lr": 1e-4}) + "\n" for e, tr, va, te in rows))


@pytest.fixture
def sweep(tmp_path):
    """TOTO, two archs x three teams, with histories and train rows."""
    root = tmp_path / "runs"  # a report is never written inside the runs it reads
    rng = np.random.default_rng(3)
    for a, arch in enumerate(("densenet121", "swin_tiny")):
        for f, fold in enumerate("abc"):
            outcomes = {(fold, "train"): (int(rng.integers(15, 20)), 20), (fold, "val"): (int(rng.integers(6, 10)), 10)}
            for t in "abc":
                if t != fold:
                    outcomes[(t, "test")] = (int(rng.integers(2, 10)), 10)
            d = write_run(root, "TOTO", arch, fold, outcomes, {"val_acc": None, "test_acc": None})
            epochs = 2 + (f == 0)  # one run trained an epoch longer
            _history(d, [(e, 0.5 + 0.1 * e + 0.01 * f, 0.4 + 0.1 * e - 0.02 * a, 0.3 + 0.05 * e + 0.01 * f)
                         for e in range(1, epochs + 1)])
    return root


def test_learning_curves_mean_and_std_per_epoch(sweep):
    rs = read_runs(sweep)
    curves = learning_curves(rs.records, {"TOTO": 0, "LOTO": 1})
    e2 = next(c for c in curves if c["arch"] == "densenet121" and c["epoch"] == 2)
    train = [100 * (0.5 + 0.2 + 0.01 * f) for f in range(3)]
    assert e2["train"]["n_runs"] == 3
    assert e2["train"]["mean"] == pytest.approx(np.mean(train))
    assert e2["train"]["std"] == pytest.approx(np.std(train, ddof=0))
    e3 = next(c for c in curves if c["arch"] == "swin_tiny" and c["epoch"] == 3)
    assert e3["val"]["n_runs"] == 1 and e3["val"]["mean"] == pytest.approx(100 * (0.4 + 0.3 - 0.02))
    assert math.isfinite(e3["val"]["std"])  # ddof 0: the std of one run is 0, not undefined
    one = next(c for c in learning_curves(rs.records, {"TOTO": 1, "LOTO": 1}) if c["epoch"] == 3)
    assert math.isnan(one["val"]["std"])  # ddof 1 over one run: undefined, left empty in the tables


def test_split_accuracy_uses_train_rows(sweep):
    rs = read_runs(sweep)
    rows = split_accuracy(rs.records, {"TOTO": 1, "LOTO": 1})
    dn = next(r for r in rows if r["arch"] == "densenet121")
    trains = [r.pct("train") for r in rs.runs if r.arch == "densenet121"]
    assert dn["train"]["n_runs"] == 3 and dn["train"]["mean"] == pytest.approx(np.mean(trains))
    assert dn["train"]["std"] == pytest.approx(np.std(trains, ddof=1))


def test_matrix_correlation_is_pearson_over_off_diagonal_cells(sweep):
    ms = toto_matrices(read_runs(sweep).records)
    (c,) = matrix_correlation(ms)
    off = ~np.eye(3, dtype=bool)
    a, b = ms[0].values[off], ms[1].values[off]
    assert c["n_cells"] == 6 and c["pearson"] == pytest.approx(np.corrcoef(a, b)[0, 1])
    assert c["pvalue"] == pytest.approx(stats.pearsonr(a, b).pvalue)


def test_report_shows_curves_bars_and_matrix_agreement(sweep, tmp_path):
    out = tmp_path / "rep"
    res = CliRunner().invoke(cli, ["ctv", "report", str(sweep), "--out", str(out), "--plots"])
    assert res.exit_code == 0, res.output
    for png in ("learning_curves.png", "split_accuracy.png"):
        assert (out / "plots" / png).read_bytes()[:4] == b"\x89PNG"
    md = (out / "report.md").read_text()
    assert "## Mean learning curves" in md and "| TOTO | densenet121 | 3 | 1 |" in md
    assert "### Agreement of the architectures' matrices" in md and "(the paper reports 0.95)" in md
    assert "TOTO ddof=0" in md
    rows = [ln for ln in (out / "learning_curves.csv").read_text().splitlines()[1:]]
    assert len(rows) == 2 * 3 * 3  # 2 archs x 3 epochs x (train, val, test)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["matrix_correlation"][0]["n_cells"] == 6


def _brute(x, y):
    """|T(x, y[perm])| >= |T(x, y)| over every permutation, with scipy's statistics."""
    funcs = {"spearman": lambda a, b: stats.spearmanr(a, b).statistic,
             "pearson": lambda a, b: stats.pearsonr(a, b).statistic,
             "kendall": lambda a, b: stats.kendalltau(a, b).statistic}
    out = {}
    for name, f in funcs.items():
        t = abs(f(x, y))
        vals = [abs(f(x, [y[i] for i in p])) for p in itertools.permutations(range(len(x)))]
        out[name] = float(np.mean([v >= t - 1e-12 for v in vals]))
    return out


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=3, max_size=6))
def test_exact_pvalues_equal_a_brute_force_with_scipy(pairs):
    x = [float(a) for a, _ in pairs]
    y = [float(b) for _, b in pairs]
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return
    assert exact_pvalues(x, y) == pytest.approx(_brute(x, y), abs=1e-12)


def test_an_exactly_zero_correlation_has_p_one():
    """Pearson r of these is exactly 0 (checked in rational arithmetic), so every pairing is at least as
    extreme; in floating point the observed r is about 1e-17 and other zero pairings come out smaller."""
    x, y = [0, 0, 0, 1, 2, 6], [5, 6, 9, 4, 1, 7]
    mx, my = Fraction(sum(x), 6), Fraction(sum(y), 6)
    assert sum((a - mx) * (b - my) for a, b in zip(x, y)) == 0
    assert exact_pvalues([float(v) for v in x], [float(v) for v in y])["pearson"] == 1.0


def test_few_teams_p_values_have_their_real_precision():
    x = [70.0, 75.0, 80.0, 90.0]
    stats_, method = agreement_stats(x, [60.0, 65.0, 71.0, 99.0])  # perfect ranking, 4 teams
    assert stats_["spearman"][0] == pytest.approx(1.0)
    assert stats_["spearman"][1] == pytest.approx(2 / 24) and "exact permutation (24 pairings)" == method
    assert format_pvalue(stats_["spearman"][1]) == "0.0833"
    many = list(range(12))
    s12, m12 = agreement_stats(many, [v * 2 + 1 for v in many])
    assert s12["spearman"][1] == pytest.approx(2 / math.factorial(12)) and "2/n!" in m12
    assert format_pvalue(s12["spearman"][1]) == "4.18e-09"
