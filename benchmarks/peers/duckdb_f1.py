"""Sample F1 of a PlantCLEF submission with duckdb SQL, as a speed-minded user writes it (no validation).

    python duckdb_f1.py SOLUTION SUBMISSION DELIMITER ID_COLUMN LABEL_COLUMN SPLIT_COLUMN

Prints one JSON object: the mean sample F1 of each value of the split column.
"""
import json
import sys

import duckdb

sol, sub, sep, id_col, labels, split_col = sys.argv[1:7]
rows = duckdb.execute(f"""
    WITH t AS (SELECT "{id_col}" AS id, regexp_extract_all("{labels}", '\\d+') AS t, "{split_col}" AS split
               FROM read_csv(?, delim = ?, header = true, all_varchar = true)),
         p AS (SELECT "{id_col}" AS id, regexp_extract_all("{labels}", '\\d+') AS p
               FROM read_csv(?, delim = ?, header = true, all_varchar = true))
    SELECT split, avg(CASE WHEN len(t) + len(p) = 0 THEN 1.0
                           ELSE 2.0 * len(list_intersect(t, p)) / (len(t) + len(p)) END)
    FROM t LEFT JOIN p USING (id) GROUP BY split
""", [sol, sep, sub, sep]).fetchall()
print(json.dumps({split: f1 for split, f1 in rows}))
