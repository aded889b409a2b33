"""Score many aggregation settings of saved tile scores against a solution.

The solution is a validation set the user labelled (or a pseudo-solution);
only its ids are aggregated. Every setting's submission goes through the same
writer and validator as ``predict`` and is scored by ``scoring.runtime.scorer``; the
table is sorted by the competition's primary metric (public split), best first,
ties by setting name.
"""

from __future__ import annotations

import itertools
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from baselines.plantclef.aggregate import AggregationConfig, aggregate
from baselines.plantclef.submission import write_validated
from baselines.plantclef.transects import transect_map
from scoring.runtime.definition import CompetitionDefinition

OVERFIT_WARNING = ("WARNING: picking the best of these settings on this solution overfits it; tuning on the "
                   "test leaderboard overfits. Choose on a labelled validation set, then confirm on held-out data.")


@dataclass(frozen=True)
class SweepGrid:
    strategies: tuple[str, ...] = ("union", "max", "mean", "vote")
    top_k: tuple[int, ...] = (1, 3, 5)
    thresholds: tuple[float, ...] = (0.05, 0.1, 0.2)
    min_votes: tuple[int, ...] = (1, 2)
    max_species: tuple[int | None, ...] = (None,)
    group_modes: tuple[str | None, ...] = (None,)
    min_species: int = 1

    def settings(self) -> list[AggregationConfig]:
        """Cartesian product of the knobs each strategy uses (others left at their defaults)."""
        out: list[AggregationConfig] = []
        for strategy in self.strategies:
            if strategy == "union":
                cores = [dict(top_k=k, threshold=t) for k, t in itertools.product(self.top_k, self.thresholds)]
            elif strategy == "max":
                cores = [dict(threshold=t) for t in self.thresholds]
            elif strategy == "mean":
                cores = [dict(top_k=k) for k in self.top_k]
            elif strategy == "vote":
                cores = [dict(top_k=k, min_votes=m) for k, m in itertools.product(self.top_k, self.min_votes)]
            else:
                raise ValueError(f"unknown strategy {strategy!r}")
            for core, cap, mode in itertools.product(cores, self.max_species, self.group_modes):
                min_species = min(self.min_species, cap) if cap else self.min_species
                out.append(AggregationConfig(strategy=strategy, max_species=cap, group_mode=mode,
                                             min_species=min_species, **core))
        return list(dict.fromkeys(out))


def run_sweep(tiles: pd.DataFrame, solution_path: Path, definition: CompetitionDefinition,
              settings: list[AggregationConfig], transect_rule: str | None = None,
              progress=None) -> pd.DataFrame:
    """One row per setting: ``setting``, every public metric, ``mean_labels``, sorted best first."""
    from scoring.runtime.scorer import score_file
    from scoring.runtime.reading.solution import load_solution

    solution = load_solution(solution_path, definition)
    ids = list(solution.ids)
    have = set(tiles["image_id"])
    missing = [i for i in ids if i not in have]
    if missing:
        raise ValueError(f"{len(missing)} solution id(s) have no tile scores, e.g. {missing[:3]}")
    tiles = tiles[tiles["image_id"].isin(set(ids))]
    groups = transect_map(ids, definition, transect_rule) if any(s.group_mode for s in settings) else None
    rows = []
    with tempfile.TemporaryDirectory(prefix="plantclef-sweep-") as tmp:
        for n, cfg in enumerate(settings):
            labels = aggregate(tiles, cfg, image_ids=ids, groups=groups)
            path = Path(tmp) / f"setting-{n:04d}.csv"
            write_validated(path, ids, [labels[i] for i in ids], definition)
            report = score_file(path, solution, definition)
            if report.status != "scored":
                raise RuntimeError(f"setting {cfg.label()}: scoring failed: {report.errors}")
            rows.append({"setting": cfg.label(), **report.metrics.public,
                         "mean_labels": sum(len(v) for v in labels.values()) / max(len(ids), 1)})
            if progress is not None:
                progress.update(1)
    frame = pd.DataFrame(rows)
    metric = definition.primary_metric
    return frame.sort_values([metric, "setting"], ascending=[False, True], kind="mergesort").reset_index(drop=True)


def render_table(frame: pd.DataFrame, primary: str) -> str:
    """Markdown table: rank, setting, primary metric first, then the other metrics."""
    from scoring.formatting import fmt, markdown_table

    metrics = [primary] + sorted(c for c in frame.columns if c not in ("setting", primary, "mean_labels"))
    header = ["rank", "setting", *metrics, "labels/quadrat"]
    rows = [[str(i + 1), r["setting"], *[fmt(r[m]) for m in metrics], fmt(r["mean_labels"], 2)]
            for i, r in frame.iterrows()]
    return markdown_table(header, rows, align=["r", "l"] + ["r"] * (len(header) - 2))
