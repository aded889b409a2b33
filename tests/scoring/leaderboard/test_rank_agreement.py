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

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.cli.main import cli
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


def _perm_p(x, y, stat):
    """Exact two-sided permutation p-value, enumerated here."""
    obs = abs(stat(x, y))
    perms = list(itertools.permutations(y))
    return sum(abs(stat(x, np.array(p))) >= obs - 1e-12 for p in perms) / len(perms)


def test_rank_agreement_and_ctv_summarize_state_one_p_value(tmp_path):
    """For 4 teams scipy's asymptotic Spearman p (0.60) is not the exact one (0.75): both commands give the
    exact permutation p-value and say so."""
    from agrieval.scoring.ctv.results_table import ResultsTable, TeamResult
    from agrieval.scoring.ctv.summarize import summarize

    x, y = [70.0, 80.0, 75.0, 90.0], [60.0, 65.0, 72.0, 71.0]
    res = rank_agreement(dict(zip("abcd", x)), dict(zip("abcd", y)), n_resamples=0)
    assert res.pvalue_method.startswith("exact permutation")
    spearman = lambda u, v: pearson(average_ranks(u), average_ranks(v))  # noqa: E731
    assert res.stats["spearman"].pvalue == pytest.approx(_perm_p(np.array(x), np.array(y), spearman))
    assert res.stats["pearson"].pvalue == pytest.approx(_perm_p(np.array(x), np.array(y), pearson))
    table = ResultsTable([TeamResult("LOTO", arch, t, 90.0, v) for arch, vals in (("A", x), ("B", y))
                          for t, v in zip("abcd", vals)])
    entry = next(e for e in summarize(table).agreement if e["metric"] == "test_acc")
    assert entry["pvalue_method"] == res.pvalue_method
    for name in ("spearman", "pearson", "kendall"):
        assert entry[name]["pvalue"] == res.stats[name].pvalue


def test_reads_a_ctv_reports_results_with_filters(tmp_path):
    path = tmp_path / "results.csv"
    rows = ["protocol,arch,team,val_acc,test_acc"]
    for protocol in ("TOTO", "LOTO"):
        for arch, base in (("densenet121", 70), ("swin_tiny", 60)):
            rows += [f"{protocol},{arch},t{i},90,{base + i * (3 if arch == 'swin_tiny' else 2)}" for i in range(5)]
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError) as info:
        read_scores(path, "team", "test_acc")
    assert info.value.code == "duplicate_key"  # without a filter the report's table has one row per group
    assert read_scores(path, "team", "test_acc", {"protocol": "LOTO", "arch": "swin_tiny"}) == {
        f"t{i}": 60.0 + 3 * i for i in range(5)}
    with pytest.raises(InputError) as info:
        read_scores(path, "team", "test_acc", {"protocol": "loto"})
    assert info.value.code == "no_rows"
    res = CliRunner().invoke(cli, ["rank-agreement", str(path), str(path), "--key", "team", "--value", "test_acc",
                                   "--where", "protocol=LOTO", "--where-a", "arch=densenet121",
                                   "--where-b", "arch=swin_tiny", "--json", "--resamples", "0"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["n"] == 5 and out["spearman"]["statistic"] == 1.0
    assert out["spearman"]["pvalue"] == pytest.approx(2 / 120) and out["pvalue_method"].startswith("exact")
    res = CliRunner().invoke(cli, ["rank-agreement", str(path), str(path), "--key", "team", "--value", "test_acc",
                                   "--where", "protocol"])
    assert res.exit_code == 2 and "COLUMN=VALUE" in res.output
