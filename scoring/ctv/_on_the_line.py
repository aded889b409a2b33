"""Accuracy on the line (Miller et al. 2021): validation against cross-team test accuracy on probit axes.

Miller et al. found that across models and checkpoints, in-distribution and out-of-distribution
accuracy lie close to a line once both are probit-transformed, and call a model's distance above
that line its effective robustness. For CTV the in-distribution accuracy is the training team(s)'
own validation split and the out-of-distribution one the other teams' test images (TOTO) or the
held-out team (LOTO); the VTG is one point's horizontal-minus-vertical distance in accuracy units.

Points: every epoch of every run (every seed and fold) whose ``history.jsonl`` has both the val and
the test accuracy (``--eval-test-every-epoch``); a run without such a history gives its final point
(its predictions). Per protocol, over all architectures' points:

* probit(a) = Phi^-1(clip(a / 100, EPS, 1 - EPS)), EPS = 0.001 (0 % and 100 % stay finite);
* the least-squares line y = slope * x + intercept with x = probit(val), y = probit(test), and its
  R^2 = 1 - sum (y - yhat)^2 / sum (y - mean y)^2 (the fit's quality, in probit units);
* effective robustness of an architecture = mean over its points of test - 100 Phi(slope x + intercept),
  in accuracy points (above the line: more robust than its validation accuracy predicts), and the
  same mean in probit units.

Fewer than 3 points or a constant x: no line (null), said in the report.
"""

from __future__ import annotations

import math

import numpy as np

from agrieval.scoring.ctv._records import FINAL, Records

# Imported inside functions, so that importing this module loads only what it needs: scipy (heavy or optional).

__all__ = ["EPS", "fit_lines", "line_points", "probit"]

EPS = 0.001


def probit(acc_pct) -> np.ndarray:
    """Phi^-1 of an accuracy in percent, clipped to [EPS, 1 - EPS]."""
    from scipy.stats import norm

    return norm.ppf(np.clip(np.asarray(acc_pct, dtype=float) / 100.0, EPS, 1 - EPS))


def line_points(rec: Records) -> list[dict]:
    """One point per (run, epoch): protocol, arch, fold, seed, epoch (None: the run's final predictions), val, test."""
    out = []
    for (run,), rows in rec.groups(rec.query(), ("run",)):
        first = rows.iloc[0]
        base = {"protocol": first["protocol"], "arch": first["arch"], "fold": first["fold"], "seed": first["seed"]}
        acc: dict = {}
        for epoch, split, team, value in zip(rows["epoch"], rows["split"], rows["team"], rows["acc"]):
            if not team and value == value:  # NaN: an epoch that did not measure the split
                acc.setdefault(int(epoch), {})[split] = value
        final = acc.pop(FINAL)
        epochs = [(e, a) for e, a in acc.items() if "val" in a and "test" in a]
        if epochs:
            out += [{**base, "epoch": e, "val": a["val"], "test": a["test"]} for e, a in epochs]
        else:
            out.append({**base, "epoch": None, "val": final["val"], "test": final["test"]})
    return out


def fit_lines(points: list[dict]) -> list[dict]:
    """Per protocol: the probit line, its R^2, and each architecture's effective robustness."""
    from scipy.stats import norm

    out = []
    for protocol in sorted({p["protocol"] for p in points}, key=lambda p: (p != "TOTO", p)):
        pts = [p for p in points if p["protocol"] == protocol]
        x = probit([p["val"] for p in pts])
        y = probit([p["test"] for p in pts])
        entry = {"protocol": protocol, "n_points": len(pts), "slope": math.nan, "intercept": math.nan,
                 "r2": math.nan, "eps": EPS, "archs": []}
        if len(pts) >= 3 and np.ptp(x) > 0:
            slope, intercept = np.polyfit(x, y, 1)
            yhat = slope * x + intercept
            ss_tot = float(((y - y.mean()) ** 2).sum())
            entry |= {"slope": float(slope), "intercept": float(intercept),
                      "r2": 1.0 - float(((y - yhat) ** 2).sum()) / ss_tot if ss_tot > 0 else math.nan}
            for arch in sorted({p["arch"] for p in pts}):
                k = np.array([p["arch"] == arch for p in pts])
                test = np.array([p["test"] for p in pts])[k]
                entry["archs"].append({
                    "arch": arch, "n_points": int(k.sum()),
                    "effective_robustness": float(np.mean(test - 100.0 * norm.cdf(yhat[k]))),
                    "effective_robustness_probit": float(np.mean(y[k] - yhat[k]))})
        out.append(entry)
    return out
