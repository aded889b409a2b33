"""The run tree read once into one record table: what every CTV analysis queries (DomainBed's shape).

``Records.from_runs`` flattens the runs that ``run_set.read_runs`` read (its one reader) into a pandas frame,
one row per (run, epoch, split, team), each with the run's configuration:

* ``run`` (the run's position in the run set), ``protocol``, ``arch``, ``fold``, ``seed`` (None: not recorded),
  ``layout``;
* ``epoch``: -1 for the run's final predictions (its own selection, ``predictions.csv``), else the epoch of
  ``history.jsonl``;
* ``split`` (``train``, ``val``, ``test``) and ``team`` ("": the whole split; a team: the run's test images of
  that team, final predictions only);
* ``n``, ``correct`` (images and right ones; -1 for a history row, which records the accuracy alone) and
  ``acc``, the accuracy in percent (NaN for a split without images).

Rows keep the run set's order (protocol, arch, fold, seed) and each history's epoch order, so that a query's
values come in the order the report's arithmetic has always summed them (its outputs stay byte-identical:
``tests/ctv/test_ctv_golden_report.py``). A query takes ``Records`` or a list of runs (``of``).

>>> from agrieval.scoring.ctv.runs import Run
>>> run = Run("p", "agrieval", "TOTO", "net", "a", ["a"], {"train": 0, "val": 10, "test": 20},
...           {"train": 0, "val": 9, "test": 15}, {"b": 20}, {"b": 15}, history=[{"epoch": 1, "val": 80.0}])
>>> r = Records.from_runs([run])
>>> print(r.frame[["epoch", "split", "team", "n", "acc"]].to_string(index=False))
 epoch split team  n  acc
    -1 train       0  NaN
    -1   val      10 90.0
    -1  test      20 75.0
    -1  test    b 20 75.0
     1   val      -1 80.0
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agrieval.scoring.ctv.runs import SPLITS, Run

__all__ = ["FINAL", "Records", "of"]

FINAL = -1  # the epoch of a run's final predictions
CONFIG = ("protocol", "arch", "fold", "seed", "layout")


@dataclass
class Records:
    frame: object  # pandas.DataFrame, columns in the module docstring
    runs: list[Run]  # by ``run``: what a row's run holds beyond the table (labels, held-out runs, stored numbers)

    @classmethod
    def from_runs(cls, runs: list[Run]) -> Records:
        import pandas as pd

        rows = []
        for i, r in enumerate(runs):
            config = (i, r.protocol, r.arch, r.fold, r.seed, r.layout)
            rows += [config + (FINAL, s, "", r.n.get(s, 0), r.n_correct.get(s, 0), r.pct(s)) for s in SPLITS]
            rows += [config + (FINAL, "test", t, r.team_n[t], r.team_correct[t], r.team_pct(t)) for t in r.team_n]
            rows += [config + (h["epoch"], s, "", -1, -1, h[s]) for h in r.history for s in SPLITS if s in h]
        frame = pd.DataFrame(rows, columns=["run", *CONFIG, "epoch", "split", "team", "n", "correct", "acc"])
        frame["seed"] = pd.Series([row[4] for row in rows], dtype=object)  # ints and None, never 42.0 and NaN
        return cls(frame, list(runs))

    def query(self, **where) -> object:
        """The rows whose columns equal the given values (``epoch=FINAL, split="val"``)."""
        frame = self.frame
        for column, value in where.items():
            frame = frame[frame[column] == value]
        return frame

    def finals(self, split: str, team: str = "") -> object:
        """The final predictions' rows of one split (``team`` "": the whole split)."""
        return self.query(epoch=FINAL, split=split, team=team)

    def team_cells(self) -> object:
        """The final per-test-team rows."""
        f = self.frame
        return f[(f["epoch"] == FINAL) & (f["team"] != "")]

    def epochs(self) -> object:
        """The history rows (every run's per-epoch accuracies)."""
        return self.frame[self.frame["epoch"] != FINAL]

    def groups(self, frame, keys: tuple[str, ...]) -> Iterator[tuple[tuple, object]]:
        """``frame``'s rows by ``keys``, in the order each key first appears (the run set's order)."""
        for key, group in frame.groupby(list(keys), sort=False, dropna=False):
            yield key, group


def of(runs_or_records) -> Records:
    """``Records`` as they are, or the record table of a list of runs."""
    return runs_or_records if isinstance(runs_or_records, Records) else Records.from_runs(list(runs_or_records))


def values(frame, column: str = "acc") -> list:
    """A column as Python values, in row order (floats stay the exact numbers the runs gave)."""
    return frame[column].tolist()
