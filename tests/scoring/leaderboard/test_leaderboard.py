"""Leaderboard on the bundled reference submissions: scores, ranks, bootstrap, paired test, outputs."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli
from agrieval.scoring.leaderboard._bootstrap import draw_units, generic_resample_scores, resample_scores, unit_codes
from agrieval.scoring.leaderboard.build import build_leaderboard, competition_ranks
from agrieval.scoring.leaderboard.paired_test import paired_vs_leader

REF = Path(__file__).resolve().parents[3] / "reference_submissions"
EXPECTED = json.loads((REF / "expected_scores.json").read_text())


@pytest.fixture(scope="module")
def plantclef_board():
    d = load_competition("plantclef2025")
    return build_leaderboard(REF / "plantclef2025" / "submissions", REF / "plantclef2025" / "solution.csv", d,
                             reveal_private=True, n_resamples=300, seed=3, recursive=True)


def test_scores_match_the_reference_expectations(plantclef_board):
    exp = EXPECTED["plantclef2025"]
    for e in plantclef_board.scored:
        assert e.public.score == pytest.approx(exp[e.name]["public"]["transect_f1"])
        assert e.private.score == pytest.approx(exp[e.name]["private"]["transect_f1"])
    rejected = {e.name for e in plantclef_board.rejected}
    assert rejected == {k for k, v in exp.items() if v["status"] == "rejected"}
    for e in plantclef_board.rejected:
        assert sorted({x["code"] for x in e.errors}) >= sorted(exp[e.name]["codes"])


def test_ranks_and_ties():
    assert competition_ranks([0.5, 0.9, 0.5, 0.1]) == [2, 1, 2, 4]
    assert competition_ranks([1.0, 1.0]) == [1, 1]


def test_intervals_contain_scores_and_leader_has_no_test(plantclef_board):
    for e in plantclef_board.scored:
        assert e.public.ci_low <= e.public.score + 1e-12 and e.public.score <= e.public.ci_high + 1e-12
    leader = plantclef_board.scored[0]
    assert leader.name == "perfect" and leader.public.vs_leader is None
    assert all(e.public.vs_leader.significant for e in plantclef_board.scored[1:])


def _frames(definition_name: str):
    from agrieval.scoring.leaderboard.rows import row_frame
    from agrieval.scoring.runtime._matching import align
    from agrieval.scoring.runtime.problems import ProblemLog
    from agrieval.scoring.runtime.reading.solution import load_solution
    from agrieval.scoring.runtime.reading.submission import read_submission

    d = load_competition(definition_name)
    sol = load_solution(REF / definition_name / "solution.csv", d)
    out = {}
    for p in sorted((REF / definition_name / "submissions").glob("*.csv")):
        sub = read_submission(p, d)
        out[p.stem] = row_frame(sub, sol, d, align(sub, sol, ProblemLog()))
    return d, out


def test_group_bootstrap_matches_a_plain_numpy_oracle():
    d, frames = _frames("plantclef2025")
    frame = frames["partial"]
    frame = frame[frame["split"] == "public"].reset_index(drop=True)
    units = unit_codes(frame, "group")
    draws = draw_units(units.max() + 1, 200, seed=11)
    got = resample_scores(frame, d, "transect_f1", units, draws, "group")
    # oracle: each drawn transect contributes its mean F1 once per draw
    transects = sorted(frame["group"].unique())
    means = np.array([frame.loc[frame["group"] == t, "f1"].mean() for t in transects])
    np.testing.assert_allclose(got, means[draws].mean(axis=1))
    # the generic path (metric_from_rows on relabelled resamples) agrees with the vectorised one
    np.testing.assert_allclose(generic_resample_scores(frame, d, "transect_f1", units, draws[:20], "group"), got[:20])


@pytest.mark.parametrize("metric, unit", [("sample_f1", "row"), ("micro_f1", "group"), ("sample_recall", "group")])
def test_vectorised_and_generic_paths_agree(metric, unit):
    d, frames = _frames("plantclef2025")
    frame = frames["over_predicting"]
    units = unit_codes(frame, unit)
    draws = draw_units(units.max() + 1, 25, seed=2)
    np.testing.assert_allclose(resample_scores(frame, d, metric, units, draws, unit),
                               generic_resample_scores(frame, d, metric, units, draws, unit))


def test_generic_path_for_non_decomposable_metric():
    from sklearn.metrics import balanced_accuracy_score

    d, frames = _frames("agrichallenge2024")
    frame = frames["confuses_faux_poivrier_pistachier"]
    units = unit_codes(frame, "row")
    draws = draw_units(len(frame), 30, seed=5)
    got = resample_scores(frame, d, "balanced_accuracy", units, draws, "row")
    for b, draw in enumerate(draws):
        sample = frame.iloc[draw]
        # sklearn's oracle counts only classes present in y_true, as the scorer documents for its own metric
        expected = balanced_accuracy_score(sample["y_true"], sample["y_pred"])
        assert got[b] == pytest.approx(expected)


def test_paired_test_formula():
    leader = np.array([0.9, 0.8, 0.7, 0.6])
    other = np.array([0.5, 0.85, 0.7, 0.3])
    r = paired_vs_leader(leader, other, 0.2)
    # deltas 0.4, -0.05, 0, 0.3: two resamples with delta <= 0 -> p = (1 + 2) / (4 + 1)
    assert r.p_value == pytest.approx(3 / 5)
    assert not r.significant


def test_seed_reproducibility(plantclef_board):
    d = load_competition("plantclef2025")
    again = build_leaderboard(REF / "plantclef2025" / "submissions", REF / "plantclef2025" / "solution.csv", d,
                              reveal_private=True, n_resamples=300, seed=3, recursive=True)
    other = build_leaderboard(REF / "plantclef2025" / "submissions", REF / "plantclef2025" / "solution.csv", d,
                              n_resamples=300, seed=4)
    ci = {e.name: (e.public.ci_low, e.public.ci_high) for e in plantclef_board.scored}
    assert ci == {e.name: (e.public.ci_low, e.public.ci_high) for e in again.scored}
    assert ci != {e.name: (e.public.ci_low, e.public.ci_high) for e in other.scored}


def test_public_private_agreement_and_shifts():
    d = load_competition("agrichallenge2024")
    board = build_leaderboard(REF / "agrichallenge2024" / "submissions", REF / "agrichallenge2024" / "solution.csv",
                              d, reveal_private=True, n_resamples=50)
    from scipy import stats

    pub = [e.public.score for e in board.scored]
    priv = [e.private.score for e in board.scored]
    assert board.agreement["spearman"]["statistic"] == pytest.approx(stats.spearmanr(pub, priv).statistic)
    assert board.agreement["kendall"]["pvalue"] == pytest.approx(stats.kendalltau(pub, priv).pvalue)
    shifts = {e.name: e.rank_shift for e in board.scored}
    exp = EXPECTED["agrichallenge2024"]
    names = [n for n, v in exp.items() if v["status"] == "scored"]
    pub_rank = dict(zip(names, competition_ranks([exp[n]["public"]["accuracy"] for n in names])))
    priv_rank = dict(zip(names, competition_ranks([exp[n]["private"]["accuracy"] for n in names])))
    assert shifts == {n: pub_rank[n] - priv_rank[n] for n in names}
    assert {e.name for e in board.largest_shifts()} == {n for n in names if shifts[n]}


def test_cli_writes_outputs_and_neutralises_names(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    src = REF / "plantclef2025" / "submissions"
    shutil.copy(src / "partial.csv", subs / "=HYPERLINK(x).csv")
    shutil.copy(src / "perfect.csv", subs / "perfect.csv")
    shutil.copy(src / "malformed" / "wrong_header.csv", subs / "broken.csv")
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["leaderboard", str(subs), "-s", str(REF / "plantclef2025" / "solution.csv"),
                                   "-c", "plantclef2025", "--out", str(out), "--resamples", "100",
                                   "--reveal-private", "--plots"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader((out / "leaderboard.csv").open()))
    assert [r["name"] for r in rows] == ["perfect", "'=HYPERLINK(x)", "broken"]
    assert rows[2]["status"] == "rejected" and rows[2]["error_codes"] == "missing_column"
    assert "| =HYPERLINK(x) |" in (out / "leaderboard.md").read_text()  # the CSV's guard stays in the CSV
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["entries"][1]["name"] == "=HYPERLINK(x)"  # JSON keeps the name verbatim
    assert data["bootstrap"]["n_units"] == {"public": 10, "private": 10}
    for png in ("scores.png", "ranks.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"


def test_cli_json_only_on_stdout_and_host_error(tmp_path):
    sol = REF / "agrichallenge2024" / "solution.csv"
    res = CliRunner().invoke(cli, ["leaderboard", str(REF / "agrichallenge2024" / "submissions"), "-s", str(sol),
                                   "-c", "agrichallenge2024", "--out", str(tmp_path), "--json", "--resamples", "20"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["metric"] == "accuracy"
    bad = tmp_path / "bad_solution.csv"
    bad.write_text("nothing,here\n1,2\n")
    res = CliRunner().invoke(cli, ["leaderboard", str(REF / "agrichallenge2024" / "submissions"), "-s", str(bad),
                                   "-c", "agrichallenge2024", "--out", str(tmp_path / "o")])
    assert res.exit_code == 3
    empty = tmp_path / "empty"
    empty.mkdir()
    res = CliRunner().invoke(cli, ["leaderboard", str(empty), "-s", str(sol), "-c", "agrichallenge2024"])
    assert res.exit_code == 2
