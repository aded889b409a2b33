"""The CTV report's Markdown sections and CSV rows for replicates, selection rules, worst groups and accuracy
on the line (the numbers: ``over_seeds``, ``selection_rules``, ``on_the_line``). Names from run files are text
(``agrieval.scoring.text.markdown`` escapes them in ``markdown_table``)."""

from __future__ import annotations

from agrieval.scoring.ctv._over_seeds import METRICS
from agrieval.scoring.ctv._selection_rules import ALL_RULES, LODO_RULE, PAPER_RULE
from agrieval.scoring.ctv._spread import DEFAULT, SPREADS
from agrieval.scoring.ctv._spread import cell as spread_cell
from agrieval.scoring.ctv.summarize import Summary
from agrieval.scoring.text.tables import fmt, markdown_table

__all__ = ["on_the_line_section", "over_seeds_rows", "over_seeds_section"]


def over_seeds_rows(entries: list[dict], digits: int) -> list[list]:
    """``over_seeds.csv``: one row per (protocol, arch, rule, metric)."""
    return [[e["protocol"], e["arch"], e["rule"], m, v["n_seeds"], fmt(v["mean"], digits), fmt(v["se"], digits),
             fmt(v["ci_low"], digits), fmt(v["ci_high"], digits), v["level"], e["interval"], fmt(v["std"], digits)]
            for e in entries for m in METRICS if m in e["metrics"] for v in [e["metrics"][m]]]


def interval_cell(stat: dict | None, digits: int, spread: str = DEFAULT) -> str:
    """``82.00 ± 1.15 [77.03, 86.97]``: mean ± ``spread`` [95 % interval] over seeds; one seed: ``82.00 (n=1)``."""
    if not stat:
        return ""
    if stat["n_seeds"] < 2:
        return f"{fmt(stat['mean'], digits)} (n=1)"
    return (f"{spread_cell(stat | {'ci95': stat['ci_high'] - stat['mean']}, spread, digits)} "
            f"[{fmt(stat['ci_low'], digits)}, {fmt(stat['ci_high'], digits)}]")


def over_seeds_section(entries: list[dict], summary: Summary, digits: int, spread: str = DEFAULT) -> str:
    seeds = sorted({"not recorded" if s is None else str(s) for e in entries for s in e["seeds"]})
    n = max((len(e["seeds"]) for e in entries), default=0)
    level = next((v["level"] for e in entries for v in e["metrics"].values()), 0.95)
    out = ["## Replicates, selection rules and worst groups\n",
           f"Seeds: {', '.join(seeds)} ({n} per group). Every cell below is mean ± {SPREADS[spread]} "
           f"[{level:.0%} Student-t interval] **over seeds** (one seed: the mean and n=1): each seed's value is "
           "first averaged over the folds (teams), as DomainBed averages over test domains per trial; "
           "std = sd(ddof 1), se = std / √seeds. The spread "
           "**over folds** (teams), which mixes team differences with training noise, is the std column (the "
           "Summary's, over the per-team mean over seeds, with the protocol's ddof). "
           "A rule that cannot say for every run of a group (no per-epoch test accuracy) gives no number.\n",
           "Selection rules: " + "; ".join(f"**{name}** {text}" for name, text in ALL_RULES.items()
                                           if any(e["rule"] == name for e in entries))
           + f". The paper's tables are the **{PAPER_RULE}** rule's. Gap = test acc under the rule − test acc "
           "under the paper's rule.\n"]
    rows = []
    for e in entries:
        m = e["metrics"]
        folds = ""
        if e["rule"] == PAPER_RULE:
            g = summary.group(e["protocol"], e["arch"])
            folds = f"{fmt(g['test_acc']['std'], digits)} (ddof {g['ddof']}, {g['n_teams']} folds)"
        if not m:
            lacking = ("no held-out run for every training team, or no epoch they all recorded"
                       if e["rule"] == LODO_RULE else "no per-epoch test accuracy")
            rows.append([e["protocol"], e["arch"], e["rule"], len(e["seeds"]),
                         f"{e['n_runs_without']} of {e['n_runs']} runs have {lacking}", "", "", "", folds])
            continue
        rows.append([e["protocol"], e["arch"], e["rule"], len(e["seeds"]), interval_cell(m["test_acc"], digits, spread),
                     interval_cell(m["val_acc"], digits, spread), interval_cell(m["vtg"], digits, spread),
                     "" if e["rule"] == PAPER_RULE else interval_cell(m["gap_to_paper_rule"], digits, spread),
                     folds])
    out.append(markdown_table(["Protocol", "Arch", "Rule", "Seeds", "Test acc", "Val acc", "VTG", "Gap to paper's rule",
                               "Test std over folds"], rows))
    worst = [e for e in entries if e["rule"] == PAPER_RULE and e["metrics"]]
    out.append(f"### Worst target team and worst class ({PAPER_RULE} rule)\n\n"
               "Worst target team: the lowest, over target teams, of the mean accuracy on that team's images "
               "of the runs that test on it (TOTO: every other team; LOTO: the held-out team). Worst class: the "
               "lowest, over classes, of the mean test recall over runs. Computed per seed, then mean ± "
               f"{SPREADS[spread]} [interval] over seeds; the names are each seed's worst.\n")
    out.append(markdown_table(
        ["Protocol", "Arch", "Mean test acc", "Worst team acc", "Worst team (per seed)", "Worst class acc",
         "Worst class (per seed)"],
        [[e["protocol"], e["arch"], interval_cell(e["metrics"]["test_acc"], digits, spread),
          interval_cell(e["metrics"]["worst_team_acc"], digits, spread), ", ".join(e["worst_team_per_seed"]),
          interval_cell(e["metrics"]["worst_class_acc"], digits, spread), ", ".join(e["worst_class_per_seed"])]
         for e in worst]))
    return "\n".join(out)


def on_the_line_section(fits: list[dict], n_points: int, digits: int) -> str:
    head = ("## Accuracy on the line (Miller et al. 2021)\n\n"
            "Validation accuracy on the training team(s) (x) against test accuracy on the other team(s) (y), "
            f"probit-transformed, over {n_points} points: every epoch of every run and seed with both "
            "recorded (a run without a per-epoch history: its final point). Per protocol, a least-squares line "
            "in probit units and its R²; an architecture's effective robustness (ER) is the mean of test − "
            "Φ(line) over its points, in accuracy points (> 0: above the line). Accuracies are clipped to "
            "[0.1 %, 99.9 %] before the probit. `on_the_line.csv` holds the points.\n")
    rows = []
    for f in fits:
        if not f["archs"]:
            rows.append([f["protocol"], f["n_points"], "no line (fewer than 3 points or one val accuracy)", "", "",
                         "", "", ""])
        for a in f["archs"]:
            rows.append([f["protocol"], f["n_points"], fmt(f["slope"], 3), fmt(f["intercept"], 3), fmt(f["r2"], 3),
                         a["arch"], a["n_points"], fmt(a["effective_robustness"], digits)])
    return head + "\n" + markdown_table(["Protocol", "Points", "Slope", "Intercept", "R²", "Arch", "Arch points",
                                         "Effective robustness (pts)"], rows)
