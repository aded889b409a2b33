"""The audit of one competition: per team its gap and p-value (Holm-flagged), rank movement, near duplicates.

``audit(scored, ...)`` runs on an already scored log (``scored_log.score_log``), so that the
benchmark and the tests can hand it matrices without files; ``to_dict`` is ``--json``'s object,
whose ``teams`` entries are exactly ``team, n_submissions, gap, p_value, flagged``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from agrieval.scoring.audit._near_duplicates import NearDuplicateRun, near_duplicate_runs
from agrieval.scoring.audit._rank_movement import RankMovement, rank_movement
from agrieval.scoring.audit._selection_cost import selection_costs
from agrieval.scoring.audit._split_permutation import TeamTest, permutation_test
from agrieval.scoring.runtime._unit_scores import unit_values
from agrieval.scoring.text.terminal import cell, one_line


@dataclass
class Audit:
    """An audit's findings: per team, the permutation test of its selected public score, the ranks, near-duplicate
    submissions, the rejected files and the file each team selected, with the settings that produced them."""

    competition: str
    metric: str
    unit: str
    alpha: float
    n_permutations: int
    seed: int
    teams: list[TeamTest]
    ranks: list[RankMovement]
    near_duplicates: list[NearDuplicateRun]
    near_duplicate_rows: int
    rejected: list[dict] = field(default_factory=list)
    best_files: dict[str, str] = field(default_factory=dict)
    selection: list = field(default_factory=list)  # selection_cost.SelectionCost per team

    def to_dict(self) -> dict:
        return {
            "teams": [{"team": t.team, "n_submissions": t.n_submissions, "gap": t.gap, "p_value": t.p_value,
                       "flagged": t.flagged} for t in self.teams],
            "details": [{"team": t.team, "best_file": self.best_files.get(t.team), "public": t.public,
                         "private": t.private, "p_holm": t.p_holm} for t in self.teams],
            "rank_movement": [asdict(r) for r in self.ranks],
            "near_duplicate_runs": [asdict(r) for r in self.near_duplicates],
            "rejected": list(self.rejected),
            "selection": [c.to_dict() for c in self.selection],
            "settings": {"competition": self.competition, "metric": self.metric, "unit": self.unit,
                         "alpha": self.alpha, "permutations": self.n_permutations, "seed": self.seed,
                         "near_duplicate_rows": self.near_duplicate_rows,
                         "correction": "holm", "test": "split permutation", "can_flag": _can_flag(self)},
        }


def audit(values: np.ndarray, units: np.ndarray, split: np.ndarray, team_names: list[str], files: list[str],
          keys: list[np.ndarray] | None, *, competition: str, metric: str, unit: str, alpha: float = 0.01,
          n_permutations: int = 2000, seed: int = 0, n_resamples: int = 1000, near_duplicate_rows: int | None = None,
          rejected: list[dict] | None = None) -> Audit:
    """``values``: (S, N) per-row metric parts of the S scored submissions, grouped by team in time order
    (``team_names[s]``, ``files[s]``); ``keys``: their per-row prediction keys (None: no near-duplicate search)."""
    teams = sorted(set(team_names), key=team_names.index)
    index = {t: i for i, t in enumerate(teams)}
    team_of = np.array([index[t] for t in team_names], dtype=np.int64)
    tests = permutation_test(values, units, split, team_of, teams, n_permutations=n_permutations, seed=seed,
                             alpha=alpha)
    chosen = [int(np.flatnonzero(team_of == i)[t.best]) for i, t in enumerate(tests)]
    private_rows = np.flatnonzero(split == "private")
    ranks = rank_movement(np.vstack([unit_values(values[s], units, private_rows) for s in chosen]), teams,
                          n_resamples=n_resamples, seed=seed) if len(private_rows) else []
    max_rows = near_duplicate_rows if near_duplicate_rows is not None else max(1, math.ceil(0.01 * len(split)))
    runs: list[NearDuplicateRun] = []
    if keys is not None:
        for i, team in enumerate(teams):
            mine = np.flatnonzero(team_of == i)
            runs.extend(near_duplicate_runs(team, [files[s] for s in mine], [keys[s] for s in mine], max_rows))

    return Audit(competition, metric, unit, alpha, n_permutations, seed, tests, ranks, runs, max_rows,
                 rejected or [], {t: files[s] for t, s in zip(teams, chosen)},
                 selection_costs(values, units, split, team_names, files))


def _can_flag(a: Audit) -> bool:
    """Whether Holm's procedure can flag anyone at all: the smallest p-value times the number of teams."""
    return len(a.teams) / (1 + a.n_permutations) <= a.alpha


def to_text(a: Audit) -> str:
    """The audit as plain-text tables (the default output)."""
    lines = [f"audit of {one_line(a.competition)}: {a.metric}, public-private gap of each team's best public submission; "
             f"split-permutation test ({a.n_permutations} re-drawn splits, seed {a.seed}), Holm at alpha {a.alpha}",
             "", f"{'team':<24} {'subs':>5} {'public':>8} {'private':>8} {'gap':>8} {'p':>8} {'p_holm':>8}  flagged"]
    for t in a.teams:
        lines.append(f"{cell(t.team, 24, clip=True)} {t.n_submissions:>5d} {t.public:>8.4f} {t.private:>8.4f} {t.gap:>+8.4f} "
                     f"{t.p_value:>8.4f} {t.p_holm:>8.4f}  {'FLAGGED' if t.flagged else '-'}")
    if a.ranks:
        lines += ["", f"private rank of each team's best public submission, {int(100 * 0.95)}% bootstrap interval "
                  f"over private {a.unit}s (host-only)",
                  f"{'team':<24} {'private':>8} {'rank':>5} {'interval':>10} {'p_moved':>8}"]
        for r in sorted(a.ranks, key=lambda r: (r.private_rank, r.team)):
            lines.append(f"{cell(r.team, 24, clip=True)} {r.private_score:>8.4f} {r.private_rank:>5d} "
                         f"{cell(f'{r.rank_low}-{r.rank_high}', 10, '>')} {r.p_moved:>8.3f}")
    if a.selection:
        lines += ["", "which submission counts: the private score each rule gives the team, and what it lost against "
                  "the team's best private (host-only)",
                  f"{'team':<24} {'best priv':>9} {'best pub':>9} {'lost':>8} {'top2 pub':>9} {'lost':>8} "
                  f"{'last':>8} {'lost':>8}"]
        for c in a.selection:
            cells = " ".join(f"{c.counted[r]['private']:>{w}.5f} {c.counted[r]['lost']:>8.5f}"
                             for r, w in (("best_public", 9), ("top2_public", 9), ("last", 8)))
            lines.append(f"{cell(c.team, 24, clip=True)} {c.best_private:>9.5f} {cells}")
    if not _can_flag(a):
        lines += ["", f"note: with {len(a.teams)} teams the smallest Holm-adjusted p-value is "
                  f"{len(a.teams)} / (1 + {a.n_permutations}) > alpha {a.alpha}: no team can be flagged; "
                  f"raise --permutations to at least {math.ceil(len(a.teams) / a.alpha)}"]
    lines += ["", f"near-duplicate runs (consecutive submissions differing in at most {a.near_duplicate_rows} rows): "
              + ("none" if not a.near_duplicates else str(len(a.near_duplicates)))]
    for team in sorted({r.team for r in a.near_duplicates}):
        mine = [r for r in a.near_duplicates if r.team == team]
        longest = max(mine, key=lambda r: r.n_submissions)
        lines.append(f"  {one_line(team)}: {len(mine)} runs, {sum(r.n_submissions for r in mine)} submissions in them; "
                     f"the longest {longest.n_submissions} submissions, {one_line(longest.first)} .. {one_line(longest.last)}, "
                     f"at most {longest.max_rows_changed} rows changed per step")
    if a.rejected:
        lines += ["", f"rejected submissions (not audited): {len(a.rejected)}"]
        lines += [f"  {one_line(r['team'])}: {one_line(r['file'])} [{one_line(', '.join(r['codes']))}]" for r in a.rejected]
    return "\n".join(lines)
