"""The numbers behind the paper's other figures, from a set of runs.

* ``split_accuracy`` (Figs 4 and 10): per (protocol, arch), the mean and std
  over runs of the train, val and test accuracy (percent). Train accuracy is
  the accuracy on the train split predicted after training (eval mode), so
  only runs that wrote train predictions count for it.
* ``learning_curves`` (Figs 5 and 11): per (protocol, arch, epoch), the mean
  and std over the runs that reached that epoch of the per-epoch train, val
  and test accuracy in their history (the running train accuracy during the
  epoch, as both the kit and the script log it).
* ``matrix_correlation``: Pearson r between two architectures' TOTO
  cross-team matrices over the off-diagonal cells both have (the paper: 0.95),
  r = sum (a - mean a)(b - mean b) / sqrt(sum (a - mean a)^2 sum (b - mean b)^2),
  with scipy's two-sided p-value.

Std: sqrt(sum (x - mean)^2 / (n - ddof)), the ddof of the protocol.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from agrieval.scoring.ctv._records import FINAL, Records, values
from agrieval.scoring.ctv.cross_team_matrix import CrossTeamMatrix
from agrieval.scoring.ctv.runs import SPLITS
from agrieval.scoring.ctv.summarize import mean_std

# Imported inside functions, so that importing this module loads only what it needs: scipy (heavy or optional).


def split_accuracy(rec: Records, ddof: dict[str, int]) -> list[dict]:
    """Per (protocol, arch): the final accuracy of each split over the runs that have images in it."""
    finals = rec.query(epoch=FINAL, team="")
    rows = []
    for (protocol, arch), group in rec.groups(finals, ("protocol", "arch")):
        accs = {s: values(group[(group["split"] == s) & (group["n"] > 0)]) for s in SPLITS}
        rows.append({"protocol": protocol, "arch": arch, "ddof": ddof[protocol], **_per_split(accs, ddof[protocol])})
    return rows


def _per_split(accs: dict[str, list[float]], ddof: int) -> dict:
    """{split: its number of runs, mean and std (``ddof``)} of each split's accuracies over runs."""
    return {s: dict(zip(("n_runs", "mean", "std"), (len(accs[s]), *mean_std(accs[s], ddof)))) for s in SPLITS}


def learning_curves(rec: Records, ddof: dict[str, int]) -> list[dict]:
    """Per (protocol, arch, epoch): each split's accuracy over the runs whose history has it (one pass over the
    history rows: a history of a million lines stays linear)."""
    ep = rec.epochs()
    by_group: dict[tuple[str, str], dict[int, dict[str, list[float]]]] = {
        key: {} for key in zip(rec.frame["protocol"], rec.frame["arch"])}  # the run set's order of groups
    for protocol, arch, epoch, split, acc in zip(ep["protocol"], ep["arch"], ep["epoch"], ep["split"], ep["acc"]):
        if acc != acc:  # NaN: the epoch did not measure this split
            continue
        by_group[(protocol, arch)].setdefault(int(epoch), {s: [] for s in SPLITS})[split].append(acc)
    rows = []
    for (protocol, arch), by_epoch in by_group.items():
        rows += [{"protocol": protocol, "arch": arch, "epoch": epoch, "ddof": ddof[protocol],
                  **_per_split(by_epoch[epoch], ddof[protocol])} for epoch in sorted(by_epoch)]
    return rows


def matrix_correlation(matrices: list[CrossTeamMatrix]) -> list[dict]:
    from scipy import stats

    out = []
    for a, b in itertools.combinations(matrices, 2):
        cells = [(i, j) for i in sorted(set(a.teams) & set(b.teams)) for j in sorted(set(a.teams) & set(b.teams))
                 if i != j]
        xa = np.array([a.values[a.teams.index(i), a.teams.index(j)] for i, j in cells])
        xb = np.array([b.values[b.teams.index(i), b.teams.index(j)] for i, j in cells])
        keep = np.isfinite(xa) & np.isfinite(xb)
        xa, xb = xa[keep], xb[keep]
        r = p = math.nan
        if len(xa) >= 3 and np.ptp(xa) > 0 and np.ptp(xb) > 0:
            res = stats.pearsonr(xa, xb)
            r, p = float(res.statistic), float(res.pvalue)
        out.append({"arch_a": a.arch, "arch_b": b.arch, "n_cells": int(len(xa)), "pearson": r, "pvalue": p})
    return out
