"""The run tree read once into one record table: what every CTV analysis queries (DomainBed's shape).

``Records.from_runs`` flattens the runs that ``run_set.read_runs`` read (the one reader of run folders, and the
only code that holds ``Run`` objects) into a pandas frame, one row per (run, epoch, split, team or class), each
with the run's configuration:

* ``run`` (the run's position in the run set), ``protocol``, ``arch``, ``arch_raw`` (as the run wrote it),
  ``fold``, ``seed`` (None: not recorded), ``layout``, ``train_teams`` (a tuple), ``source`` (its predictions),
  ``meta_file`` (its run.json or results JSON);
* ``epoch``: -1 (``FINAL``) for the run's final predictions (its own selection, ``predictions.csv``), else the
  epoch of ``history.jsonl``;
* ``split`` (``train``, ``val``, ``test``); ``team`` ("": the whole split; a team: the run's test images of that
  team) and ``label`` ("": every class; a class of the test split's truth or predictions: the run's test images
  of that true class, its recall, NaN for a class only predicted), both for the final predictions only;
* ``held_out`` ("": the run's own rows; a team h: a row of the held-out run of ``ctv report --lodo`` that held
  out h for this LOTO run, its final whole-split rows and its history);
* ``n``, ``correct`` (images and right ones; -1 for a history row, which records the accuracy alone),
  ``predicted`` (a class row: the test images predicted as that class, what its precision needs; -1 elsewhere) and
  ``acc``, the accuracy in percent (NaN for a split without images, or an epoch that did not measure it: every
  history line gives one row per split).

Rows keep the run set's order (protocol, arch, fold, seed) and each history's line order, so that a query's
values come in the order the report's arithmetic has always summed them (its outputs stay byte-identical:
``tests/scoring/ctv/test_golden_report.py``). ``query`` leaves out the per-class and held-out rows unless asked.

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
     1 train      -1  NaN
     1   val      -1 80.0
     1  test      -1  NaN
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from agrieval.scoring.ctv.runs import SPLITS, Run

# Imported inside functions, so that importing this module loads only what it needs: pandas (heavy or optional).

__all__ = ["FINAL", "Records", "values"]

FINAL = -1  # the epoch of a run's final predictions
CONFIG = ("protocol", "arch", "arch_raw", "fold", "seed", "layout", "train_teams", "source", "meta_file")
COLUMNS = ("run", *CONFIG, "epoch", "split", "team", "label", "held_out", "n", "correct", "predicted", "acc")


def _rows(i: int, r: Run, config: tuple, held_out: str = "") -> list[tuple]:
    """One run's rows: its final predictions per split (per test team and class for its own run), its history."""
    rows = [config + (FINAL, s, "", "", held_out, r.n.get(s, 0), r.n_correct.get(s, 0), -1, r.pct(s)) for s in SPLITS]
    if not held_out:
        rows += [config + (FINAL, "test", t, "", "", r.team_n[t], r.team_correct[t], -1, r.team_pct(t))
                 for t in r.team_n]
        if "test" in r.labels:
            true, pred = r.labels["test"]
            for c in sorted(set(true) | set(pred)):
                hit = true == c
                n, right = int(hit.sum()), int((pred[hit] == c).sum())
                rows.append(config + (FINAL, "test", "", str(c), "", n, right, int((pred == c).sum()),
                                      100 * right / n if n else math.nan))
    rows += [config + (h["epoch"], s, "", "", held_out, -1, -1, -1, h.get(s, math.nan))
             for h in r.history for s in SPLITS]
    return rows


@dataclass
class Records:
    frame: object  # pandas.DataFrame, columns in the module docstring

    @classmethod
    def from_runs(cls, runs: list[Run]) -> Records:
        import pandas as pd

        rows = []
        for i, r in enumerate(runs):
            config = (i, r.protocol, r.arch, r.arch_raw, r.fold, r.seed, r.layout, tuple(r.train_teams),
                      r.source, r.meta_file)
            rows += _rows(i, r, config)
            for h in r.held_out:
                rows += _rows(i, h, config, held_out=h.fold)
        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        frame["seed"] = pd.Series([row[5] for row in rows], dtype=object)  # ints and None, never 42.0 and NaN
        return cls(frame)

    def query(self, frame=None, **where) -> object:
        """The rows whose columns equal the given values (``epoch=FINAL, split="val"``); the per-class and
        held-out rows only when ``label`` or ``held_out`` is given."""
        frame = self.frame if frame is None else frame
        for column, value in ({"label": "", "held_out": ""} | where).items():
            if value is not None:  # None: any value
                frame = frame[frame[column] == value]
        return frame

    def team_cells(self) -> object:
        """The final per-test-team rows."""
        f = self.query(epoch=FINAL)
        return f[f["team"] != ""]

    def class_cells(self) -> object:
        """The final per-class rows of the classes in the truth (test recall of each true class)."""
        f = self.query(epoch=FINAL, label=None)
        return f[(f["label"] != "") & (f["n"] > 0)]

    def epochs(self) -> object:
        """The history rows (every run's per-epoch accuracies; NaN: not measured that epoch)."""
        f = self.query()
        return f[f["epoch"] != FINAL]

    def run_rows(self) -> object:
        """One row per run (its final test rows): its configuration, in the run set's order."""
        return self.query(epoch=FINAL, split="test", team="")

    def per_run(self) -> list[dict]:
        """One dict per run, in the run set's order, from its final rows (one pass): its configuration
        (``run`` and ``CONFIG``), per split its images ``n``, right ones ``correct`` and accuracy ``acc``, its
        ``teams`` {test team: acc} and ``classes`` [(label, n, correct, predicted)]."""
        f = self.query(epoch=FINAL, label=None)
        out: dict[int, dict] = {}
        for k, (run, split, team, label, n, right, predicted, acc) in enumerate(zip(
                *(values(f, c) for c in ("run", "split", "team", "label", "n", "correct", "predicted", "acc")))):
            if run not in out:
                first = f.iloc[k]
                out[run] = {"run": run, **{c: first[c] for c in CONFIG}, "n": {}, "correct": {}, "acc": {},
                            "teams": {}, "classes": []}
            r = out[run]
            if label:
                r["classes"].append((label, n, right, predicted))
            elif team:
                r["teams"][team] = acc
            else:
                r["n"][split], r["correct"][split], r["acc"][split] = n, right, acc
        return list(out.values())

    def groups(self, frame, keys: tuple[str, ...]) -> Iterator[tuple[tuple, object]]:
        """``frame``'s rows by ``keys``, in the order each key first appears (the run set's order)."""
        for key, group in frame.groupby(list(keys), sort=False, dropna=False):
            yield key, group


def values(frame, column: str = "acc") -> list:
    """A column as Python values, in row order (floats stay the exact numbers the runs gave)."""
    return frame[column].tolist()
