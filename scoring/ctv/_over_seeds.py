"""The study's aggregates over replicate seeds, with intervals, per selection rule; the worst target team and class.

For each (protocol, arch, selection rule) and each seed s, over the folds (teams) of that seed:

* ``test_acc``, ``val_acc``: mean over the folds of the run's accuracy (percent) under the rule
  (``agrieval.scoring.ctv._selection_rules``); ``vtg`` = val_acc - test_acc;
* ``gap_to_paper_rule``: test_acc under the rule - test_acc under the paper's rule (same seed; not for the
  paper's rule itself);
* under the paper's rule only (they need the predictions): ``worst_team_acc`` = min over target
  teams t of the mean, over the runs that test on t, of the accuracy on t's images (TOTO: every
  team but the training one; LOTO: the held-out team), and ``worst_class_acc`` = min over classes c
  of the mean over runs of the test recall of c (WILDS' worst-group accuracy, groups = teams, classes).

Then over the n seeds (DomainBed's "mean +/- standard error over trials"):
mean m = (1/n) sum v_s, std = sd(v, ddof=1), standard error se = std / sqrt(n), and the 95 % interval
m +/- t_{0.975, n-1} se (Student t), all from ``agrieval.scoring.ctv._spread``. With one seed they are undefined
(null).
The interval is over seeds: training noise. The spread over folds (teams), which mixes team differences
with training noise, is the std of ``ctv summarize`` over the seed-mean per team, reported apart.
"""

from __future__ import annotations

import numpy as np

from agrieval.scoring.ctv._records import Records, values
from agrieval.scoring.ctv._selection_rules import PAPER_RULE, rules_for, select
from agrieval.scoring.ctv._spread import seed_stats

__all__ = ["INTERVAL", "LEVEL", "METRICS", "seed_interval", "over_seeds", "worst_group", "run_name",
           "lacking_warnings"]

LEVEL = 0.95
INTERVAL = "student_t_over_seeds"
METRICS = ("test_acc", "val_acc", "vtg", "gap_to_paper_rule", "worst_team_acc", "worst_class_acc")


def seed_interval(values) -> dict:
    """Mean, standard deviation and standard error (ddof 1) and the 95 % Student-t interval of per-seed values
    (``agrieval.scoring.ctv._spread.seed_stats``: the one place they are computed).

    >>> d = seed_interval([80.0, 82.0, 84.0])
    >>> d["mean"], round(d["se"], 6), round(d["ci_low"], 3), round(d["ci_high"], 3)
    (82.0, 1.154701, 77.032, 86.968)
    """
    s = seed_stats(values)
    return {"n_seeds": s["n_seeds"], "mean": s["mean"], "std": s["std"], "se": s["se"],
            "ci_low": s["mean"] - s["ci95"], "ci_high": s["mean"] + s["ci95"], "level": LEVEL}


def worst_group(cells, runs: list[int], group: str) -> tuple[str, float]:
    """The group served worst among ``runs``: min over the values of ``group`` (``team``: the per-team rows,
    ``label``: the per-class rows) of the mean accuracy (percent) of the runs that have it; ties: the first name."""
    cells = cells[cells["run"].isin(runs)]
    means = {name: float(np.mean(values(g))) for (name,), g in cells.groupby([group], sort=True)}
    name = min(means, key=lambda t: (means[t], t))
    return name, means[name]


def run_name(row) -> str:
    """``protocol/arch/fold`` and its seed when there are replicates: how a report names one run (a record row)."""
    return f"{row.protocol}/{row.arch}/{row.fold}" + (f" (seed {row.seed})" if row.seed is not None else "")


def lacking_warnings(entries: list[dict]) -> list[str]:
    """One warning per (protocol, arch, rule) that gives no number, naming the runs that lack its data."""
    out = []
    for e in entries:
        if e["n_runs_without"]:
            what = ("a held-out run for every training team (ctv report --lodo)" if e["rule"] == "leave_one_team_out"
                    else "the per-epoch test accuracy (train them with --eval-test-every-epoch)")
            out.append(f"{e['rule']}: {e['protocol']}/{e['arch']}: no number, {e['n_runs_without']} of {e['n_runs']} "
                       f"runs lack {what}: {', '.join(e['runs_without'])}")
    return out


def over_seeds(rec: Records) -> list[dict]:
    """One entry per (protocol, arch, rule) with every metric's per-seed values and interval."""
    rows_of = {i: rows for (i,), rows in rec.groups(rec.frame, ("run",))}  # each run's rows, for the rules
    teams, classes = rec.team_cells(), rec.class_cells()
    out = []
    for (protocol, arch), group in rec.groups(rec.run_rows(), ("protocol", "arch")):
        seeds = sorted(set(values(group, "seed")), key=lambda s: (s is None, s or 0))
        by_seed = {s: group[[seed == s for seed in values(group, "seed")]] for s in seeds}
        paper_test = {s: float(np.mean(values(g))) for s, g in by_seed.items()}
        for rule in rules_for(rec.frame[rec.frame["run"].isin(group["run"])], protocol):
            chosen = {s: [select(rows_of[i], rule) for i in values(g, "run")] for s, g in by_seed.items()}
            lacking = [run_name(row) for s, g in by_seed.items() for row, c in zip(g.itertuples(), chosen[s])
                       if c is None]
            entry = {"protocol": protocol, "arch": arch, "rule": rule, "seeds": seeds,
                     "n_folds": len(set(values(group, "fold"))), "n_runs": len(group), "n_runs_without": len(lacking),
                     "runs_without": sorted(lacking), "interval": INTERVAL, "metrics": {}}
            out.append(entry)
            if lacking:  # the rule cannot say for every run: no number rather than a mixed one
                continue
            per_seed: dict[str, list] = {m: [] for m in METRICS}
            worst: dict[str, list[str]] = {"worst_team_per_seed": [], "worst_class_per_seed": []}
            for s in seeds:
                test = float(np.mean([c.test for c in chosen[s]]))
                val = float(np.mean([c.val for c in chosen[s]]))
                per_seed["test_acc"].append(test)
                per_seed["val_acc"].append(val)
                per_seed["vtg"].append(val - test)
                if rule != PAPER_RULE:  # the paper's rule against itself: 0 by definition
                    per_seed["gap_to_paper_rule"].append(test - paper_test[s])
                    continue
                for metric, cells, column in (("worst_team", teams, "team"), ("worst_class", classes, "label")):
                    name, acc = worst_group(cells, values(by_seed[s], "run"), column)
                    per_seed[f"{metric}_acc"].append(acc)
                    worst[f"{metric}_per_seed"].append(name)
            entry["metrics"] = {m: {"per_seed": v, **seed_interval(v)} for m, v in per_seed.items() if v}
            if rule == PAPER_RULE:
                entry |= worst
    return out
