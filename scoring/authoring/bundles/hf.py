"""Hugging Face ``competitions`` bundle: a self-contained ``metric.py``, ``solution.csv`` and a conf.json snippet.

The platform downloads only ``metric.py`` from the competition's dataset
repository (``docs/facts/platforms.md``: huggingface/competitions
``compute_metrics.py``), in the Space image built with Python 3.10: so the
runtime and the frozen definition are embedded in that one file, and it fetches
``solution.csv`` and the upload itself with ``huggingface_hub``.
"""

from __future__ import annotations

import json

from scoring.authoring import vendoring
from scoring.authoring.bundles.files import Bundle, Inputs, runtime_note
from scoring.runtime.definition import freeze

METRIC_PY = '''"""Custom metric for Hugging Face competitions, written by `agrieval bundle hf` for {name}. Do not edit: rebuild it.

The agrieval grading runtime and the competition definition are embedded below, so that this one file is all the
platform needs to download. ``compute(params)`` fetches solution.csv and the upload from the competition repository.
"""
{embedded}
_DEFINITION_JSON = {definition!r}


def _definition():
    from agrieval_runtime.definition import thaw

    return thaw(_DEFINITION_JSON, "metric.py (embedded definition)")


def compute(params):
    from agrieval_runtime.platforms.hf import compute_scores

    return compute_scores(_definition(), params)
'''


def conf_json(inputs: Inputs) -> dict:
    d = inputs.definition
    return {"EVAL_METRIC": "custom", "SCORING_METRIC": inputs.keys[0], "EVAL_HIGHER_IS_BETTER": d.higher_is_better,
            "SUBMISSION_ID_COLUMN": d.id_column, "SUBMISSION_COLUMNS": ",".join(d.expected_columns),
            "SUBMISSION_ROWS": len(inputs.solution.ids)}


def build(inputs: Inputs, **_options) -> Bundle:
    d = inputs.definition
    bundle = Bundle("hf", d)
    bundle.add("metric.py", METRIC_PY.format(name=d.name, embedded=vendoring.embedded_runtime(),
                                             definition=freeze(d)))
    bundle.add("solution.csv", inputs.solution_path.read_bytes())
    conf = json.dumps(conf_json(inputs), indent=2) + "\n"
    bundle.add("conf.json", conf)
    bundle.add("README.md", f"""# Hugging Face competitions metric for `{d.name}`

Written by `agrieval bundle hf`. {runtime_note()} The Space image runs Python 3.10 with huggingface_hub.

1. Upload `metric.py` and `solution.csv` to the root of the competition's dataset repository (`org/name`).
   `solution.csv` must keep its `{d.split.column}` column ({d.split.public!r}/{d.split.private!r}).
2. Merge `conf.json` (below) into the repository's `conf.json`: `EVAL_METRIC` "custom", `SCORING_METRIC` the
   primary metric (the leaderboard sorts on it; without it the competition does not start).
3. Uploads may be the CSV or a zip holding it (the platform keeps the extension; the metric reads both).

`compute(params)` returns `public_score` and `private_score` with identical keys, `{inputs.keys[0]}` first. A
rejected upload raises with the participant-safe reason (the platform shows participants only "failed" and keeps
the message in the Space log).

```json
{conf}```
""")
    bundle.next_steps = ["upload metric.py and solution.csv to the competition repository", "merge conf.json"]
    return bundle
