"""rank-agreement: independent oracles (ranks and pair counts by hand), errors, bootstrap."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.cli.main import cli
from agrieval.scoring.ctv.input_error import InputError
from agrieval.scoring.leaderboard.rank_agreement import correlations, rank_agreement, read_scores


def average_ranks(x):
    x = np.asarray(x, float)
    ranks = np.empty(len(x))
    for i, v in enumerate(x):
        ranks[i] = np.sum(x < v) + (np.sum(x == v) + 1) / 2
    return ranks


def pearson(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    return np.sum((x - x.mean()) * (y - y.mean())) / np.sqrt(np.sum((x - x.mean()) ** 2) * np.sum((y - y.mean()) ** 2))


def tau_b(x, y):
    c = d = tx = ty = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if sx == 0 and sy == 0:
            continue
        if sx == 0:
            tx += 1
        elif sy == 0:
            ty += 1
        elif sx == sy:
            c += 1
        else:
            d += 1
    return (c - d) / math.sqrt((c + d + tx) * (c + d + ty))


scores = st.lists(st.integers(min_value=0, max_value=6), min_size=4, max_size=12)  # small range: many ties


@settings(max_examples=60, deadline=None)
@given(scores, st.data())
def test_statistics_match_hand_oracles_with_ties(x, data):
    y = data.draw(st.lists(st.integers(0, 6), min_size=len(x), max_size=len(x)))
    got = correlations(x, y)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert all(math.isnan(s) for s, _ in got.values())
        return
    assert got["spearman"][0] == pytest.approx(pearson(average_ranks(x), average_ranks(y)))
    assert got["pearson"][0] == pytest.approx(pearson(x, y))
    assert got["kendall"][0] == pytest.approx(tau_b(np.array(x), np.array(y)))
    assert all(0 <= p <= 1 for _, p in got.values())


def test_keys_mismatch_names_the_missing_keys():
    with pytest.raises(InputError) as info:
        rank_agreement({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "d": 3}, names=("x.csv", "y.csv"))
    assert info.value.code == "keys_mismatch"
    assert "only in x.csv: 'c'" in info.value.message and "only in y.csv: 'd'" in info.value.message


def test_too_few_keys():
    with pytest.raises(InputError) as info:
        rank_agreement({"a": 1, "b": 2}, {"a": 1, "b": 2})
    assert info.value.code == "too_few_items"


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    x = rng.normal(size=15)
    a = {f"k{i}": v for i, v in enumerate(x)}
    b = {f"k{i}": v + rng.normal(scale=0.5) for i, v in enumerate(x)}
    r1 = rank_agreement(a, b, n_resamples=300, seed=7)
    r2 = rank_agreement(a, b, n_resamples=300, seed=7)
    r3 = rank_agreement(a, b, n_resamples=300, seed=8)
    assert r1.as_dict() == r2.as_dict()
    assert r1.stats["spearman"].ci_low != r3.stats["spearman"].ci_low
    for name in ("spearman", "pearson", "kendall"):
        c = r1.stats[name]
        assert c.ci_low <= c.statistic <= c.ci_high
    # oracle for the interval: the same draws, scipy called one resample at a time
    from scipy import stats

    keys = sorted(a)
    xs, ys = np.array([a[k] for k in keys]), np.array([b[k] for k in keys])
    idx = np.random.default_rng(7).integers(0, len(keys), size=(300, len(keys)))
    rho = np.array([stats.spearmanr(xs[i], ys[i]).statistic for i in idx])
    assert r1.stats["spearman"].ci_low == pytest.approx(np.quantile(rho[~np.isnan(rho)], 0.025))


def test_shift_invariance_of_rank_statistics():
    a = {"t1": 70.0, "t2": 80.0, "t3": 60.0, "t4": 65.0}
    b = {"t1": 71.0, "t2": 79.0, "t3": 66.0, "t4": 60.0}
    shifted = {k: v + 12.5 for k, v in b.items()}
    r, s = rank_agreement(a, b, n_resamples=0), rank_agreement(a, shifted, n_resamples=0)
    for name in ("spearman", "kendall", "pearson"):
        assert r.stats[name].statistic == pytest.approx(s.stats[name].statistic)


def test_read_scores_rejects_duplicates_with_line(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("team,acc\nt1,1\nt2,2\nt1,3\n")
    with pytest.raises(InputError) as info:
        read_scores(p, "team", "acc")
    assert (info.value.code, info.value.line, info.value.column) == ("duplicate_key", 4, 1)


def test_cli_json_and_mismatch_exit_code(tmp_path):
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    a.write_text("team,test_acc\nt1,90\nt2,80\nt3,85\nt4,70\n")
    b.write_text("team,score\nt1,88\nt2,82\nt3,81\nt4,75\n")
    c.write_text("team,test_acc\nt1,88\nt2,82\nt9,81\nt4,75\n")
    res = CliRunner().invoke(cli, ["rank-agreement", str(a), str(b), "--key", "team", "--value", "test_acc",
                                   "--value-b", "score", "--json", "--resamples", "100"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["n"] == 4
    # ranks a = (4,2,3,1), b = (4,3,2,1): d^2 = 2, rho = 1 - 12/60
    assert out["spearman"]["statistic"] == pytest.approx(0.8)
    res = CliRunner().invoke(cli, ["rank-agreement", str(a), str(c), "--key", "team", "--value", "test_acc"])
    assert res.exit_code == 1
    assert "[keys_mismatch]" in res.stderr and "'t3'" in res.stderr and "'t9'" in res.stderr
