"""The CTV study's summary statistics from a per-team results table.

For each (protocol, arch) group of n teams with accuracies in percent:

* mean  m = (1/n) sum x_i;  std s = sqrt( sum (x_i - m)^2 / (n - ddof) ),
  ddof = 0 (population std) or 1 (sample std), per protocol. The default
  follows the paper's table being reproduced: its Table 6 (TOTO) Std rows are
  population stds (ddof 0, also what the public script computes), its Table 7
  (LOTO) Std rows sample stds (ddof 1). The ddof used is written in the output;
* VTG_i = val_acc_i - test_acc_i, from the unrounded inputs;
* share above threshold = #{i : test_acc_i > threshold} / n.

``agreement``: per protocol and metric (test_acc, vtg), Spearman, Pearson and
Kendall between the per-team values of each pair of architectures, over the
teams both have, with their p-values and the method that gave them, computed once for every command by
``agrieval.scoring.leaderboard.rank_agreement.agreement_stats`` (exact permutation for n <= 8, else scipy's).

``protocol_change``: per arch present under both protocols,

* test gain (points)     = mean_test(LOTO) - mean_test(TOTO)
* VTG reduction (%)      = 100 (mean_vtg(TOTO) - mean_vtg(LOTO)) / mean_vtg(TOTO)
* std reduction (%)      = 100 (std_test(TOTO) - std_test(LOTO)) / std_test(TOTO)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from agrieval.scoring.ctv.results_table import ResultsTable, TeamResult
from agrieval.scoring.leaderboard.rank_agreement import agreement_stats
from agrieval.scoring.text.tables import json_number

SCHEMA_VERSION = 2  # 2: ddof is per protocol
METRICS = ("val_acc", "test_acc", "vtg")
# The paper's Table 6 (TOTO) used ddof 0, its Table 7 (LOTO) ddof 1.
PAPER_DDOF = {"TOTO": 0, "LOTO": 1}


def resolve_ddof(ddof: int | dict | None) -> dict[str, int]:
    """``{protocol: ddof}``: None -> the paper's per-table choice, an int -> the same for both."""
    if ddof is None:
        return dict(PAPER_DDOF)
    if isinstance(ddof, dict):
        out = dict(PAPER_DDOF) | dict(ddof)
    else:
        out = {p: ddof for p in PAPER_DDOF}
    if any(v not in (0, 1) for v in out.values()):
        raise ValueError("ddof must be 0 or 1")
    return out


def mean_std(values, ddof: int) -> tuple[float, float]:
    x = np.asarray(values, dtype=float)
    mean = float(x.mean()) if len(x) else math.nan
    std = float(x.std(ddof=ddof)) if len(x) > ddof else math.nan
    return mean, std


def _values(rows: list[TeamResult], metric: str) -> list[float]:
    return [getattr(r, metric) for r in rows]


@dataclass
class Summary:
    ddof: dict[str, int]  # protocol -> ddof of every std of that protocol
    threshold: float
    groups: list[dict]
    agreement: list[dict]
    protocol_change: list[dict]
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "ddof": dict(self.ddof), "threshold": self.threshold,
                "groups": json_safe(self.groups), "agreement": json_safe(self.agreement),
                "protocol_change": json_safe(self.protocol_change), "warnings": list(self.warnings)}

    def group(self, protocol: str, arch: str) -> dict:
        return next(g for g in self.groups if g["protocol"] == protocol and g["arch"] == arch)


def json_safe(obj):
    """Floats rounded for stable JSON (``json_number``), NaN as null, in nested dicts and lists."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_safe(v) for v in obj]
    if isinstance(obj, float):
        return json_number(obj)
    return obj


def summarize(table: ResultsTable, *, ddof: int | dict | None = None, threshold: float = 95.0) -> Summary:
    """The statistics of the module docstring; ``ddof`` per ``resolve_ddof``."""
    ddofs = resolve_ddof(ddof)

    warnings = list(table.warnings)
    groups = []
    for protocol in table.protocols():
        for arch in table.archs(protocol):
            rows = table.group(protocol, arch)
            ddof = ddofs[protocol]
            g = {"protocol": protocol, "arch": arch, "n_teams": len(rows), "ddof": ddof}
            for metric in METRICS:
                m, s = mean_std(_values(rows, metric), ddof)
                g[metric] = {"mean": m, "std": s}
            if len(rows) <= ddof:
                warnings.append(f"{protocol}/{arch}: one team only, the std with ddof={ddof} is undefined")
            test = _values(rows, "test_acc")
            lo, hi = int(np.argmin(test)), int(np.argmax(test))
            g |= {"test_acc_min": test[lo], "test_acc_min_team": rows[lo].team,
                  "test_acc_max": test[hi], "test_acc_max_team": rows[hi].team,
                  "test_acc_range": test[hi] - test[lo],
                  "share_above_threshold": sum(t > threshold for t in test) / len(test)}
            groups.append(g)

    agreement = []
    for protocol in table.protocols():
        for arch_a, arch_b in itertools.combinations(table.archs(protocol), 2):
            a = {r.team: r for r in table.group(protocol, arch_a)}
            b = {r.team: r for r in table.group(protocol, arch_b)}
            teams = sorted(set(a) & set(b))
            missing = sorted(set(a) ^ set(b))
            if missing:
                warnings.append(f"{protocol}: {arch_a} vs {arch_b} compared on the {len(teams)} common teams; "
                                f"only one has {', '.join(missing)}")
            for metric in ("test_acc", "vtg"):
                xa, xb = [getattr(a[t], metric) for t in teams], [getattr(b[t], metric) for t in teams]
                stats, method = agreement_stats(xa, xb)
                entry = {"protocol": protocol, "metric": metric, "arch_a": arch_a, "arch_b": arch_b,
                         "n_teams": len(teams), "pvalue_method": method}
                for name, (s, p) in stats.items():
                    entry[name] = {"statistic": s, "pvalue": p}
                if len(teams) < 3 or any(math.isnan(s) for s, _ in stats.values()):
                    warnings.append(f"{protocol}/{metric}: {arch_a} vs {arch_b}: correlation undefined or "
                                    f"meaningless ({len(teams)} teams or a constant column)")
                agreement.append(entry)

    change = []
    by_key = {(g["protocol"], g["arch"]): g for g in groups}
    for arch in sorted({a for (_, a) in by_key}):
        toto, loto = by_key.get(("TOTO", arch)), by_key.get(("LOTO", arch))
        if not toto or not loto:
            continue
        entry = {"arch": arch,
                 "toto_test_mean": toto["test_acc"]["mean"], "loto_test_mean": loto["test_acc"]["mean"],
                 "test_gain_points": loto["test_acc"]["mean"] - toto["test_acc"]["mean"],
                 "toto_vtg_mean": toto["vtg"]["mean"], "loto_vtg_mean": loto["vtg"]["mean"],
                 "vtg_reduction_pct": _reduction(toto["vtg"]["mean"], loto["vtg"]["mean"]),
                 "toto_test_std": toto["test_acc"]["std"], "loto_test_std": loto["test_acc"]["std"],
                 "std_reduction_pct": _reduction(toto["test_acc"]["std"], loto["test_acc"]["std"])}
        if entry["vtg_reduction_pct"] is None or entry["std_reduction_pct"] is None:
            warnings.append(f"{arch}: a TOTO value is 0, so a reduction in % is undefined")
        change.append(entry)
    return Summary(ddofs, threshold, groups, agreement, change, warnings)


def _reduction(before: float, after: float) -> float | None:
    if before == 0 or math.isnan(before) or math.isnan(after):
        return None
    return 100.0 * (before - after) / before
