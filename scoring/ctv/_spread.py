"""Mean ± spread over replicate seeds: the one place every CTV table, figure and CSV computes and writes it.

For the n per-seed values v_1..v_n of one cell (a team's accuracy, a cross-team cell, a group's mean over folds):

* ``mean`` = (1/n) Σ v_s;
* ``std`` = sqrt(Σ (v_s − mean)² / (n − 1)): the sample standard deviation (ddof 1), WILDS' convention
  ("mean and standard deviation over replicates");
* ``se`` = std / √n: the standard error, DomainBed's ("mean ± standard error over trials"), the default;
* ``ci95`` = t_{0.975, n−1} × se: the half-width of the 95 % Student-t interval (scipy, imported when asked).

With one seed (n = 1) there is no spread: every spread is NaN, a cell shows the mean alone and a caption
says n = 1. ``--spread se|std|ci95`` on ``agrieval ctv report`` picks the one the tables show; the CSV files
carry all three.
"""

from __future__ import annotations

import math

import numpy as np

from agrieval.scoring.text.tables import fmt

__all__ = ["DEFAULT", "SPREADS", "caption", "cell", "seed_stats"]

DEFAULT = "se"
SPREADS = {"se": "standard error", "std": "standard deviation (ddof 1)", "ci95": "95 % Student-t half-width"}


def seed_stats(values) -> dict:
    """``n_seeds``, ``mean``, ``std`` (ddof 1), ``se`` and ``ci95`` (half-width) of per-seed values.

    >>> s = seed_stats([80.0, 82.0, 84.0])
    >>> s["mean"], s["std"], round(s["se"], 4), round(s["ci95"], 3)
    (82.0, 2.0, 1.1547, 4.968)
    >>> seed_stats([81.5])["se"]
    nan
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    out = {"n_seeds": n, "mean": float(x.mean()) if n else math.nan, "std": math.nan, "se": math.nan,
           "ci95": math.nan}
    if n >= 2:
        out["std"] = float(x.std(ddof=1))
        out["se"] = out["std"] / math.sqrt(n)
        out["ci95"] = _t_quantile(0.975, n - 1) * out["se"]
    return out


def _t_quantile(q: float, dof: int) -> float:
    """The ``q`` quantile of Student's t with ``dof`` degrees of freedom."""
    from scipy import stats

    return float(stats.t.ppf(q, dof))


def cell(stat: dict, kind: str, digits: int) -> str:
    """``27.80 ± 1.20`` (the mean and the ``kind`` spread), or the mean alone for one seed."""
    if stat["n_seeds"] < 2:
        return fmt(stat["mean"], digits)
    return f"{fmt(stat['mean'], digits)} ± {fmt(stat[kind], digits)}"


def caption(kind: str, n_seeds: list[int] | set[int]) -> str:
    """What a table's ``±`` is, for cells of ``n_seeds`` seeds each (one sentence, for the table's caption)."""
    most = max(n_seeds, default=1)
    if most < 2:
        return "One seed per cell (n=1): no spread over seeds."
    counts = sorted(set(n_seeds))
    n = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    single = " A cell of one seed (n=1) shows its mean alone." if counts[0] < 2 else ""
    return f"Cells with several seeds are mean ± {SPREADS[kind]} over seeds (n={n} per cell).{single}"
