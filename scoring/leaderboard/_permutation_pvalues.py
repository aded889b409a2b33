"""Exact permutation p-values of Spearman, Pearson and Kendall for few teams.

With n teams there are n! equally likely pairings under the null hypothesis
of no association. For a statistic T and the observed pairing t,

    p = #{permutations pi : |T(x, y[pi])| >= |t|} / n!      (two-sided)

enumerated exactly for n <= ``MAX_EXACT_N`` (8! = 40,320 pairings). The
smallest p it can give is 2 / n! (a perfect ranking), so with 4 teams no
p-value is below 1/12: this is the real precision of a p-value over few teams,
where an asymptotic formula can print 0. Above ``MAX_EXACT_N`` the caller keeps
scipy's p-values; a perfect agreement there gets 2 / n! (its exact value when
neither side has ties) instead of scipy's 0.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

# Imported inside functions, so that importing this module loads only what it needs: scipy (heavy or optional).

MAX_EXACT_N = 8
# |T| equal to |t| up to rounding counts as "at least as extreme". Absolute, not relative: the statistics lie
# in [-1, 1], and an observed value that is exactly 0 (every pairing at least as extreme, p = 1) is computed
# as +-1e-17 while other pairings that are also exactly 0 come out as 0 or 1e-18.
_TOL = 1e-12


def _pearson_rows(x: np.ndarray, ys: np.ndarray) -> np.ndarray:
    xc = x - x.mean()
    yc = ys - ys.mean(axis=1, keepdims=True)
    return (yc @ xc) / np.sqrt((xc @ xc) * np.einsum("ij,ij->i", yc, yc))


def _kendall_rows(x: np.ndarray, ys: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(len(x), 1)
    sx = np.sign(x[j] - x[i])
    sy = np.sign(ys[:, j] - ys[:, i])
    # tau-b: the tie counts do not change under permutation, so the denominator is one number
    denom = math.sqrt(np.count_nonzero(sx) * np.count_nonzero(sy[0]))
    return (sy @ sx) / denom


def exact_pvalues(x, y) -> dict[str, float]:
    """``{"spearman", "pearson", "kendall"}``: exact two-sided permutation p-values (n <= MAX_EXACT_N)."""
    from scipy.stats import rankdata

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    if n > MAX_EXACT_N:
        raise ValueError(f"exact enumeration is for n <= {MAX_EXACT_N}, got {n}")
    perms = np.array(list(itertools.permutations(range(n))))
    out = {}
    rx, ry = rankdata(x), rankdata(y)
    for name, stat in (("spearman", lambda ys: _pearson_rows(rx, ys)), ("pearson", lambda ys: _pearson_rows(x, ys)),
                       ("kendall", lambda ys: _kendall_rows(x, ys))):
        values = stat((ry if name == "spearman" else y)[perms])
        observed = abs(values[0])  # perms[0] is the identity
        out[name] = float(np.mean(np.abs(values) >= observed - _TOL))
    return out


def perfect_agreement_pvalue(n: int) -> float:
    """2 / n!: the exact two-sided p-value of a perfect ranking of n untied values."""
    return 2.0 / math.factorial(n)
