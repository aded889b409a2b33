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

from agrieval.scoring.authoring import _vendoring as vendoring
from agrieval.scoring.authoring._bundles import markdown_pages
from agrieval.scoring.authoring._bundles.competition_pages import Options
from agrieval.scoring.authoring._bundles.files import (
    DEFINITION_FILE,
    Bundle,
    Inputs,
    runtime_note,
    sample_submission,
    solution_notes,
    validate_command,
)
from agrieval.scoring.authoring._bundles.starting_kit import VALIDATE_CMD
from agrieval.scoring.authoring._bundles.submission_limits import resolved
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.text import literals as lit
from agrieval.scoring.text.template import fill, prose

# Each hole is one Python literal (agrieval.scoring.text.literals.python), or the vendored runtime's own code.
METRIC_PY = '''"""Kaggle metric for the competition COMPETITION, written by `agrieval bundle kaggle`. Do not edit:
rebuild it.

Publish this file as a Kaggle utility script and attach it to the metric notebook (see the bundle's README).
``score`` is the metric;
``ParticipantVisibleError`` is the one exception class Kaggle shows to participants.
"""
{embedded}
import pandas as pd

import agrieval_runtime._platforms.kaggle as _kaggle
from agrieval_runtime.definition import thaw as _thaw

COMPETITION = {name}
_DEFINITION = _thaw({definition}, "the metric's embedded definition")
ParticipantVisibleError = _kaggle.ParticipantVisibleError


def score(solution: pd.DataFrame, submission: pd.DataFrame, row_id_column_name: str) -> float:
    """The definition's primary metric (``_DEFINITION.primary_metric``; ``_DEFINITION.higher_is_better`` says
    which way is better) of the submission on the rows Kaggle hands over."""
    return _kaggle.score(solution, submission, row_id_column_name, competition=_DEFINITION)
'''


NOTEBOOK_PY = '''"""Metric notebook: its only cell. `agrieval_metric` is the attached utility script (its
COMPETITION names the competition)."""
import pandas as pd

from agrieval_metric import ParticipantVisibleError, score  # noqa: F401 - Kaggle looks both names up here
'''


def build(inputs: Inputs, *, options: Options | None = None, **_options) -> Bundle:
    options = options or Options()
    d = inputs.definition
    bundle = Bundle("kaggle", d)
    bundle.add("agrieval_metric.py", METRIC_PY.format(name=lit.python(d.name), embedded=vendoring.embedded_runtime(),
                                                      definition=lit.python(freeze(d))))
    bundle.add("metric_notebook.py", NOTEBOOK_PY)
    custom = validate_command(d).endswith(DEFINITION_FILE)
    if custom:  # `agrieval validate --competition competition.json`: participants download it with the data
        bundle.add(DEFINITION_FILE, freeze(d))
    bundle.add("solution.csv", inputs.solution_path.read_bytes())
    sample, note = sample_submission(inputs)
    bundle.add("sample_submission.csv", sample)
    k = resolved("kaggle", options).selection_limit
    reveal = fill(__file__, "kaggle_timeline.txt", selection_limit=k)
    pages = markdown_pages.pages(inputs, options, "kaggle", sample_note=note, validate_cmd=VALIDATE_CMD, until=prose(""),
                                 timeline=reveal)
    for page, text in pages.items():
        bundle.add(f"pages/{page}.md", text)
    size = len(bundle.files["agrieval_metric.py"]) // 1000
    ship = fill(__file__, "kaggle_ship_definition.md", file=DEFINITION_FILE) if custom else prose("")
    bundle.add("README.md", fill(__file__, "kaggle_readme.md", name=d.name, runtime=runtime_note(),
                                 notes=solution_notes(inputs), size_kb=size, note=note, validate=VALIDATE_CMD,
                                 id_column=d.id_column, split_column=d.split.column, public=d.split.public,
                                 private=d.split.private, primary_metric=d.primary_metric,
                                 better="higher" if d.higher_is_better else "lower",
                                 validate_command=validate_command(d), ship_definition=ship))
    bundle.next_steps = ["create the competition: https://www.kaggle.com/c/about/community (README step 1)",
                         "publish agrieval_metric.py as a utility script; attach it to the metric notebook",
                         "choose that notebook as the metric; upload solution.csv and sample_submission.csv; "
                         "set the limits; try a submission"]
    return bundle
