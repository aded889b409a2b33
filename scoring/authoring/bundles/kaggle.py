"""Kaggle bundle: one Python file for the metric notebook (or a utility script), and the solution to upload.

What Kaggle does (``docs/facts/platforms.md``): it reads both files itself, checks
the ids, removes ``Usage`` and calls ``score(solution, submission,
row_id_column_name)`` once for the public rows and once for the private rows,
maybe inside a multiprocessing pool worker; only ``ParticipantVisibleError``
messages reach the participant. So the file holds the runtime and the frozen
definition, and ``score`` grades with ``split_safe=True`` (no message depends
on which rows a call was handed).
"""

from __future__ import annotations

from scoring.authoring import vendoring
from scoring.authoring.bundles.files import Bundle, Inputs, runtime_note
from scoring.runtime.definition import freeze

METRIC_PY = '''"""Kaggle metric for {name}, written by `agrieval bundle kaggle`. Do not edit: rebuild it.

Paste this file into the metric notebook (or attach it as a utility script). ``score`` is the metric;
``ParticipantVisibleError`` is the one exception class Kaggle shows to participants.
"""
{embedded}
import pandas as pd

import agrieval_runtime.platforms.kaggle as _kaggle
from agrieval_runtime.definition import thaw as _thaw

_DEFINITION = _thaw({definition!r}, "the metric's embedded definition")
ParticipantVisibleError = _kaggle.ParticipantVisibleError


def score(solution: pd.DataFrame, submission: pd.DataFrame, row_id_column_name: str) -> float:
    """{primary} of the submission on the rows Kaggle hands over ({name}); higher is {better}."""
    return _kaggle.score(solution, submission, row_id_column_name, competition=_DEFINITION)
'''


def build(inputs: Inputs, **_options) -> Bundle:
    d = inputs.definition
    bundle = Bundle("kaggle", d)
    bundle.add("agrieval_metric.py", METRIC_PY.format(
        name=d.name, embedded=vendoring.embedded_runtime(), definition=freeze(d),
        primary=d.primary_metric, better="better" if d.higher_is_better else "worse"))
    bundle.add("solution.csv", inputs.solution_path.read_bytes())
    bundle.add("README.md", f"""# Kaggle metric for `{d.name}`

Written by `agrieval bundle kaggle`. {runtime_note()} Kaggle's image has them.

1. Create a metric notebook, paste `agrieval_metric.py` into one cell (or attach it as a utility script and
   `from agrieval_metric import score, ParticipantVisibleError`).
2. Upload `solution.csv` as the competition's solution file; `row_id_column_name` is `{d.id_column}`; its
   `{d.split.column}` column holds {d.split.public!r}/{d.split.private!r}.
3. Primary metric: `{d.primary_metric}` ({'higher' if d.higher_is_better else 'lower'} is better).

Messages never depend on which rows a call is handed (Kaggle scores the public and the private rows in separate
calls): a problem of the header is named; any problem in the rows is one message that names no line, count,
cell or code and asks the participant to run `agrieval validate SUBMISSION.csv --competition {d.name}` locally,
which lists every problem with its line and column. That is a choice against leaking the split; participants
lose the position in the Kaggle message, not the information.
""")
    bundle.next_steps = ["paste agrieval_metric.py into the metric notebook", "upload solution.csv"]
    return bundle
