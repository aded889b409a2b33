"""The TOTO cross-team matrix: rows = training team, columns = test team.

Cell (i, j), i != j: accuracy of the model trained on team i on team j's
images (with several seeds, the mean over them). The diagonal holds team i's own validation accuracy (its 30 % held-out
split) and is marked as such; it is left out of every summary:

* row mean_i = mean_{j != i} A_ij (how well team i's data generalises),
  row range_i = max_{j != i} A_ij - min_{j != i} A_ij;
* column mean_j = mean_{i != j} A_ij (how easy team j's images are), column range likewise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agrieval.scoring.ctv._records import FINAL, Records, values


@dataclass
class CrossTeamMatrix:
    """One architecture's cross-team matrix: ``values[i, j]`` is the accuracy (percent) of the runs trained on
    ``teams[i]`` tested on ``teams[j]``, the mean over seeds (``seeds`` keeps each cell's per-seed values)."""

    arch: str
    teams: list[str]
    values: np.ndarray  # percent; NaN where no run covers the pair
    seeds: dict = field(default_factory=dict)  # (i, j) -> the per-seed accuracies values[i, j] is the mean of

    def seed_values(self, i: int, j: int) -> list[float]:
        """The per-seed values of cell (i, j) (its mean alone when none are recorded)."""
        return self.seeds.get((i, j)) or ([] if np.isnan(self.values[i, j]) else [float(self.values[i, j])])

    def off_diagonal(self) -> np.ndarray:
        v = self.values.copy()
        np.fill_diagonal(v, np.nan)
        return v

    def row_mean(self) -> np.ndarray:
        return _nan_stat(self.off_diagonal(), np.nanmean, axis=1)

    def row_range(self) -> np.ndarray:
        off = self.off_diagonal()
        return _nan_stat(off, np.nanmax, axis=1) - _nan_stat(off, np.nanmin, axis=1)

    def col_mean(self) -> np.ndarray:
        return _nan_stat(self.off_diagonal(), np.nanmean, axis=0)

    def col_range(self) -> np.ndarray:
        off = self.off_diagonal()
        return _nan_stat(off, np.nanmax, axis=0) - _nan_stat(off, np.nanmin, axis=0)


def _nan_stat(a: np.ndarray, fn, axis: int) -> np.ndarray:
    out = np.full(a.shape[1 - axis], np.nan)
    has = ~np.all(np.isnan(a), axis=axis)
    if has.any():
        out[has] = fn(a[:, has] if axis == 0 else a[has], axis=axis)
    return out


def toto_matrices(rec: Records) -> list[CrossTeamMatrix]:
    """One matrix per architecture of the TOTO runs of the record table: a query of the final rows, each cell the
    mean of its seeds' values."""
    toto = rec.query(protocol="TOTO", epoch=FINAL)
    out = []
    for arch in sorted(set(toto["arch"])):
        mine = toto[toto["arch"] == arch]
        own = mine[(mine["split"] == "val") & (mine["team"] == "")]
        cross = mine[mine["team"] != ""]
        teams = sorted(set(own["fold"]) | set(cross["team"]))
        index = {t: k for k, t in enumerate(teams)}
        seeds: dict[tuple[int, int], list[float]] = {}
        for (fold,), g in rec.groups(own, ("fold",)):  # several seeds of one fold: each cell is their mean
            seeds[(index[fold], index[fold])] = values(g)
        for (fold, team), g in rec.groups(cross, ("fold", "team")):
            seeds[(index[fold], index[team])] = values(g)
        matrix = np.full((len(teams), len(teams)), np.nan)
        for (i, j), v in seeds.items():
            matrix[i, j] = sum(v) / len(v)
        out.append(CrossTeamMatrix(arch, teams, matrix, seeds))
    return out
