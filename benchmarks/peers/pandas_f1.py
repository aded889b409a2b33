"""Sample F1 of a PlantCLEF submission with pandas, ``ast`` and scikit-learn: the plain reference pipeline.

    python pandas_f1.py SOLUTION SUBMISSION DELIMITER ID_COLUMN LABEL_COLUMN SPLIT_COLUMN

Prints one JSON object: the sample F1 of each value of the split column.
"""
import ast
import json
import sys


def sample_f1(sol, sub, sep, id_col, labels, split_col):
    import pandas as pd
    from sklearn.metrics import f1_score
    from sklearn.preprocessing import MultiLabelBinarizer

    s = pd.read_csv(sol, sep=sep)
    p = pd.read_csv(sub, sep=sep)
    merged = s.merge(p, on=id_col, suffixes=("_true", "_pred"))
    y_true = [ast.literal_eval(x) for x in merged[f"{labels}_true"]]
    y_pred = [ast.literal_eval(x) for x in merged[f"{labels}_pred"]]
    mlb = MultiLabelBinarizer(sparse_output=True)
    mlb.fit(y_true + y_pred)
    t, p = mlb.transform(y_true), mlb.transform(y_pred)
    split = merged[split_col].to_numpy()
    return {str(v): float(f1_score(t[split == v], p[split == v], average="samples", zero_division=1.0))
            for v in sorted(set(split))}


if __name__ == "__main__":
    print(json.dumps(sample_f1(*sys.argv[1:7])))
