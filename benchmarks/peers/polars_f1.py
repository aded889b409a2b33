"""Sample F1 of a PlantCLEF submission with polars, as a speed-minded user writes it (no validation).

    python polars_f1.py SOLUTION SUBMISSION DELIMITER ID_COLUMN LABEL_COLUMN SPLIT_COLUMN

Prints one JSON object: the mean sample F1 of each value of the split column.
"""
import json
import sys

import polars as pl

sol, sub, sep, id_col, labels, split_col = sys.argv[1:7]
items = pl.col(labels).str.extract_all(r"\d+")
truth = pl.scan_csv(sol, separator=sep, infer_schema=False).select(id_col, items.alias("t"), split_col)
pred = pl.scan_csv(sub, separator=sep, infer_schema=False).select(id_col, items.alias("p"))
n_t, n_p = pl.col("t").list.len(), pl.col("p").list.len()
hits = pl.col("t").list.set_intersection(pl.col("p")).list.len()
f1 = pl.when(n_t + n_p == 0).then(1.0).otherwise(2 * hits / (n_t + n_p))
out = truth.join(pred, on=id_col, how="left").group_by(split_col).agg(f1.mean().alias("f1")).collect()
print(json.dumps(dict(zip(out[split_col].to_list(), out["f1"].to_list()))))
