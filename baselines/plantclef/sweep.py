"""Score many aggregation settings of saved tile scores against a solution.

The solution is a validation set the user labelled (or a pseudo-solution);
only its ids are aggregated. Every setting's submission goes through the same
writer and validator as ``predict`` and is scored by ``agrieval.scoring.runtime.scorer``; the
table is sorted by the competition's primary metric (public split), best first,
ties by setting name. A setting the saved scores cannot give exactly
(``aggregate.NotExact``), or whose target mean no threshold reaches, is listed
with its reason instead of a score.
"""

from __future__ import annotations

import itertools
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from agrieval.baselines.plantclef._threshold_search import TargetUnreachable
from agrieval.baselines.plantclef.aggregate import NotExact, aggregate
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.transects import transect_map
from agrieval.baselines.submission import write_validated
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.scorer import score_file
from agrieval.scoring.text.tables import fmt, markdown_table

OVERFIT_WARNING = ("WARNING: picking the best of these settings on this solution overfits it; tuning on the "
                   "test leaderboard overfits. Choose on a labelled validation set, then confirm on held-out data.")


@dataclass(frozen=True)
class SweepGrid:
    """The aggregation settings a sweep tries: one list of candidate values per setting, combined as a grid."""

    strategies: tuple[str, ...] = ("union", "max", "mean", "vote")
    top_k: tuple[int, ...] = (1, 3, 5)
    thresholds: tuple[float, ...] = (0.05, 0.1, 0.2)
    min_votes: tuple[int, ...] = (1, 2)
    z_thresholds: tuple[float, ...] = (2.0,)
    scale_weights: tuple[tuple[float, ...] | None, ...] = (None,)
    max_species: tuple[int | None, ...] = (None,)
    group_modes: tuple[str | None, ...] = (None,)
    pool_k: int = 10
    pool_min_images: int = 2
    tie_rules: tuple[str, ...] = ("score",)
    target_means: tuple[float | None, ...] = (None,)
    tile_transforms: tuple[str, ...] = ("none",)
    min_species: int = 0

    def _cores(self, strategy: str) -> list[dict]:
        if strategy == "union":
            return [dict(top_k=k, threshold=t) for k, t in itertools.product(self.top_k, self.thresholds)]
        if strategy == "max":
            return [dict(threshold=t) for t in self.thresholds]
        if strategy == "multiscale":
            return [dict(threshold=t, scale_weights=w) for t, w in itertools.product(self.thresholds,
                                                                                     self.scale_weights)]
        if strategy in ("mean", "pairs"):
            return [dict(top_k=k) for k in self.top_k]
        if strategy == "vote":
            return [dict(top_k=k, min_votes=m) for k, m in itertools.product(self.top_k, self.min_votes)]
        if strategy == "bma":
            return [dict(z_threshold=z) for z in self.z_thresholds]
        if strategy == "zmerge":  # its own bisection: nothing to sweep but the shared knobs
            return [dict()]
        raise ValueError(f"unknown strategy {strategy!r}")

    def settings(self) -> list[AggregationConfig]:
        """Cartesian product of the knobs each strategy uses (others left at their defaults)."""
        out: list[AggregationConfig] = []
        for strategy in self.strategies:
            for core, cap, mode, tie, target, transform in itertools.product(
                    self._cores(strategy), self.max_species, self.group_modes, self.tie_rules, self.target_means,
                    self.tile_transforms):
                if target is not None and strategy in ("pairs", "mean", "vote"):
                    continue  # their keep rule is a count, not a threshold
                if target is not None:
                    core = {k: v for k, v in core.items() if k != "threshold"}
                min_species = min(self.min_species, cap) if cap else self.min_species
                out.append(AggregationConfig(strategy=strategy, max_species=cap, group_mode=mode, tie_rule=tie,
                                             target_mean=target, tile_transform=transform, min_species=min_species,
                                             pool_k=self.pool_k, pool_min_images=self.pool_min_images, **core))
        return list(dict.fromkeys(out))


def run_sweep(tiles: pd.DataFrame, solution_path: Path, definition: CompetitionDefinition,
              settings: list[AggregationConfig], transect_rule: str | None = None,
              progress=None, stats=None, n_classes: int | None = None) -> pd.DataFrame:
    """One row per setting: ``setting``, every public metric, ``mean_labels``, ``note``, sorted best first."""
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
            try:
                labels = aggregate(tiles, cfg, image_ids=ids, groups=groups, stats=stats, n_classes=n_classes)
            except (NotExact, TargetUnreachable) as exc:
                kind = "not exact" if isinstance(exc, NotExact) else "target unreachable"
                rows.append({"setting": cfg.label(), "note": f"{kind}: {exc}"})
                if progress is not None:
                    progress.update(1)
                continue
            path = Path(tmp) / f"setting-{n:04d}.csv"
            write_validated(path, ids, [labels[i] for i in ids], definition)
            report = score_file(path, solution, definition)
            if report.status != "scored":
                raise RuntimeError(f"setting {cfg.label()}: scoring failed: {report.errors}")
            rows.append({"setting": cfg.label(), **report.metrics.public,
                         "mean_labels": sum(len(v) for v in labels.values()) / max(len(ids), 1), "note": ""})
            if progress is not None:
                progress.update(1)
    frame = pd.DataFrame(rows)
    metric = definition.primary_metric
    if metric not in frame:
        frame[metric] = float("nan")
    return frame.sort_values([metric, "setting"], ascending=[False, True], kind="mergesort",
                             na_position="last").reset_index(drop=True)


def render_table(frame: pd.DataFrame, primary: str) -> str:
    """Markdown table: rank, setting, primary metric first, then the other metrics; refused settings last."""
    metrics = [primary] + sorted(c for c in frame.columns if c not in ("setting", primary, "mean_labels", "note"))
    header = ["rank", "setting", *metrics, "labels/quadrat"]
    rows = []
    for i, r in frame.iterrows():
        if isinstance(r.get("note"), str) and r["note"]:
            rows.append([str(i + 1), r["setting"], r["note"], *[""] * (len(header) - 3)])
        else:
            rows.append([str(i + 1), r["setting"], *[fmt(r[m]) for m in metrics], fmt(r["mean_labels"], 2)])
    return markdown_table(header, rows, align=["r", "l"] + ["r"] * (len(header) - 2))
