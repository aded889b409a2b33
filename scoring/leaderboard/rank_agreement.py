"""Agreement between two rankings of the same items (teams, submissions, archs).

For paired scores ``x`` and ``y`` over the same keys:

* Spearman rho = Pearson correlation of the average ranks (ties share the mean rank);
* Kendall tau-b = (C - D) / sqrt((C + D + T_x)(C + D + T_y)), C/D concordant and
  discordant pairs, T ties in only one of the two;
* Pearson r on the raw scores.

The statistics come from scipy.stats (``spearmanr``, ``kendalltau``, ``pearsonr``). Their two-sided
p-values are computed once, here, by ``agreement_stats`` for every command (``rank-agreement`` and
``ctv summarize``/``ctv report``), which states its method: for n <= 8 items the exact permutation
p-value (all n! pairings, ``agrieval.scoring.leaderboard._permutation_pvalues``; the asymptotic formulas are
wrong there: for 4 teams scipy's Spearman p is 0.60 where the exact one is 0.75); above, scipy's
asymptotic p-values, a perfect agreement getting 2/n! instead of 0. The bootstrap interval resamples
the keys (pairs) with replacement and takes the percentile interval
(``agrieval.scoring.leaderboard._bootstrap.percentile_interval``, the one interval function of the
leaderboards); resamples where a statistic is undefined (a constant ranking) are left out and counted.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agrieval.scoring.analysis_input._csv_input import key_cell, number_cell, read_csv_rows
from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.leaderboard._permutation_pvalues import MAX_EXACT_N, exact_pvalues, perfect_agreement_pvalue
from agrieval.scoring.text.tables import json_number

# Imported inside functions, so that importing this module loads only what it needs: scipy (heavy or optional);
# scoring.leaderboard.bootstrap (it loads concurrent, concurrent.futures, pandas).

STATISTICS = ("spearman", "pearson", "kendall")


@dataclass
class Correlation:
    statistic: float  # NaN when undefined (a constant ranking)
    pvalue: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    n_valid_resamples: int = 0

    def as_dict(self) -> dict:
        d = {"statistic": json_number(self.statistic), "pvalue": json_number(self.pvalue)}
        if self.n_valid_resamples:
            d |= {"ci_low": json_number(self.ci_low), "ci_high": json_number(self.ci_high),
                  "n_valid_resamples": self.n_valid_resamples}
        return d


@dataclass
class RankAgreement:
    keys: list[str]
    x: np.ndarray
    y: np.ndarray
    stats: dict[str, Correlation]
    n_resamples: int = 0
    confidence: float = 0.95
    seed: int | None = None
    warnings: list[str] = field(default_factory=list)
    pvalue_method: str = ""

    def as_dict(self) -> dict:
        return {"n": len(self.keys), "n_resamples": self.n_resamples, "confidence": self.confidence,
                "seed": self.seed, "pvalue_method": self.pvalue_method,
                **{k: v.as_dict() for k, v in self.stats.items()}, "warnings": list(self.warnings)}


def correlations(x, y) -> dict[str, tuple[float, float]]:
    """``{name: (statistic, pvalue)}`` for Spearman, Pearson and Kendall tau-b.

    A constant input makes every statistic undefined: (NaN, NaN), never an error.
    """
    from scipy import stats

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(x) != len(y):
        raise ValueError("x and y must have the same length")
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {k: (math.nan, math.nan) for k in STATISTICS}
    with warnings.catch_warnings():
        # n = 2 gives a p-value scipy warns about; it is reported as it is.
        warnings.simplefilter("ignore")
        s = stats.spearmanr(x, y)
        p = stats.pearsonr(x, y)
        k = stats.kendalltau(x, y)
    return {"spearman": (float(s.statistic), float(s.pvalue)),
            "pearson": (float(p.statistic), float(p.pvalue)),
            "kendall": (float(k.statistic), float(k.pvalue))}


def agreement_stats(x, y) -> tuple[dict[str, tuple[float, float]], str]:
    """Spearman, Pearson, Kendall with p-values at their real precision, and how the p-values were got.

    n <= 8: exact permutation p-values (``permutation_pvalues``); more items:
    scipy's asymptotic ones, except that a perfect agreement gets 2/n! instead of 0.
    """
    stats = correlations(x, y)
    if any(math.isnan(st) for st, _ in stats.values()):
        return stats, "undefined"
    if len(x) <= MAX_EXACT_N:
        exact = exact_pvalues(x, y)
        method = f"exact permutation ({math.factorial(len(x))} pairings)"
        return {k: (st, exact[k]) for k, (st, _) in stats.items()}, method
    floor = perfect_agreement_pvalue(len(x))
    fixed = {k: (st, p if p > 0 else floor) for k, (st, p) in stats.items()}
    return fixed, "scipy (asymptotic; a perfect ranking gets 2/n!)"


def rank_agreement(a: Mapping[str, float], b: Mapping[str, float], *, n_resamples: int = 1000,
                   seed: int | None = 0, confidence: float = 0.95,
                   names: tuple[str, str] = ("A", "B")) -> RankAgreement:
    """Spearman, Pearson and Kendall between two score tables keyed alike.

    Raises ``InputError('keys_mismatch')`` listing the keys only one side has,
    and ``InputError('too_few_items')`` below 3 common keys.
    """
    from agrieval.scoring.leaderboard._bootstrap import percentile_interval

    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    if only_a or only_b:
        parts = []
        if only_a:
            parts.append(f"only in {names[0]}: {_preview(only_a)}")
        if only_b:
            parts.append(f"only in {names[1]}: {_preview(only_b)}")
        raise InputError("keys_mismatch", "the two rankings do not have the same keys; " + "; ".join(parts))
    keys = sorted(a)
    if len(keys) < 3:
        raise InputError("too_few_items", f"rank agreement needs at least 3 common keys, got {len(keys)}")
    x = np.array([float(a[k]) for k in keys])
    y = np.array([float(b[k]) for k in keys])
    point, method = agreement_stats(x, y)
    out = RankAgreement(keys, x, y, {k: Correlation(*point[k]) for k in STATISTICS},
                        n_resamples=n_resamples, confidence=confidence, seed=seed, pvalue_method=method)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        out.warnings.append("one ranking is constant: the correlations are undefined")
    if n_resamples > 0:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, len(keys), size=(n_resamples, len(keys)))
        draws = _resample_statistics(x, y, idx)
        for k in STATISTICS:
            c = out.stats[k]
            c.n_valid_resamples = int(np.count_nonzero(~np.isnan(draws[k])))
            if c.n_valid_resamples:
                c.ci_low, c.ci_high = percentile_interval(draws[k], confidence)
        skipped = n_resamples - min(c.n_valid_resamples for c in out.stats.values())
        if skipped:
            out.warnings.append(f"{skipped} of {n_resamples} resamples had a constant ranking and were left out")
    return out


def _resample_statistics(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> dict[str, np.ndarray]:
    """Each statistic on every resample ``x[idx[i]], y[idx[i]]``; NaN where undefined.

    Spearman is scipy's Pearson on scipy's average ranks, row by row (the same
    number ``spearmanr`` gives, a hundred times faster); Kendall has no
    vectorised form in scipy and is called per resample.
    """
    from scipy import stats

    xs, ys = x[idx], y[idx]
    ok = (np.ptp(xs, axis=1) > 0) & (np.ptp(ys, axis=1) > 0)
    out = {k: np.full(len(idx), np.nan) for k in STATISTICS}
    if not ok.any():
        return out
    xs, ys = xs[ok], ys[ok]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["pearson"][ok] = stats.pearsonr(xs, ys, axis=1).statistic
        out["spearman"][ok] = stats.pearsonr(stats.rankdata(xs, axis=1), stats.rankdata(ys, axis=1), axis=1).statistic
        out["kendall"][ok] = [stats.kendalltau(a, b).statistic for a, b in zip(xs, ys)]
    return out


def _preview(keys: list[str], n: int = 5) -> str:
    shown = ", ".join(repr(k) for k in keys[:n])
    return shown + (f" and {len(keys) - n} more" if len(keys) > n else "")


def read_scores(path: str | Path, key: str, value: str, where: Mapping[str, str] | None = None) -> dict[str, float]:
    """``{key: value}`` from a CSV file, over the rows whose ``where`` columns hold the given values (a
    report's ``results.csv``: ``{"protocol": "LOTO", "arch": "densenet121"}``); duplicate keys among those
    rows and non-numbers are rejected, and so is a filter that keeps no row."""
    where = dict(where or {})
    table = read_csv_rows(path, [key, value, *sorted(set(where) - {key, value})])
    out: dict[str, float] = {}
    first_line: dict[str, int] = {}
    for i in range(len(table.rows)):
        if any(key_cell(table, i, col) != want for col, want in where.items()):
            continue
        k = key_cell(table, i, key)
        if k in out:
            raise InputError("duplicate_key", f"{key} {k!r} also appears on line {first_line[k]}",
                             file=table.path, line=table.lines[i], column=table.column_index(key))
        out[k] = number_cell(table, i, value)
        first_line[k] = table.lines[i]
    if where and not out:
        shown = ", ".join(f"{c}={v}" for c, v in where.items())
        raise InputError("no_rows", f"no row has {shown}", file=table.path)
    return out
