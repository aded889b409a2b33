"""Transect F1 of a PlantCLEF submission in plain Python, as a careful user writes it (csv module and sets).

    python plain_f1.py SOLUTION SUBMISSION DELIMITER ID_COLUMN LABEL_COLUMN SPLIT_COLUMN [PUBLIC_VALUE]

Public split only, transects from the solution's ``transect_id`` column, no validation beyond what a
crash would show. Prints one JSON number. ``transect_f1(...)`` is what the rescoring benchmark calls.
"""
import csv
import json
import sys


def _labels(cell):
    return {int(t) for t in cell.strip("[] ").replace(",", " ").split()}


def load_truth(path, sep, id_col, label_col, split_col, public):
    """{id: (labels, transect)} of the public rows."""
    with open(path, newline="") as fh:
        rows = csv.reader(fh, delimiter=sep)
        head = next(rows)
        i, j, s, g = (head.index(c) for c in (id_col, label_col, split_col, "transect_id"))
        return {r[i]: (_labels(r[j]), r[g]) for r in rows if r[s] == public}


def transect_f1(truth, path, sep, id_col, label_col):
    with open(path, newline="") as fh:
        rows = csv.reader(fh, delimiter=sep)
        head = next(rows)
        i, j = head.index(id_col), head.index(label_col)
        pred = {r[i]: _labels(r[j]) for r in rows}
    per_transect = {}
    for id_, (t, transect) in truth.items():
        p = pred.get(id_, set())
        f1 = 1.0 if not t and not p else 2 * len(t & p) / (len(t) + len(p))
        per_transect.setdefault(transect, []).append(f1)
    return sum(sum(v) / len(v) for v in per_transect.values()) / len(per_transect)


if __name__ == "__main__":
    sol, sub, sep, id_col, labels, split_col = sys.argv[1:7]
    public = sys.argv[7] if len(sys.argv) > 7 else "Public"
    print(json.dumps(transect_f1(load_truth(sol, sep, id_col, labels, split_col, public), sub, sep, id_col, labels)))
