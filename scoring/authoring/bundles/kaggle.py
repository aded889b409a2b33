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

from agrieval.scoring.authoring import vendoring
from agrieval.scoring.authoring.bundles import markdown_pages
from agrieval.scoring.authoring.bundles.competition_pages import Options
from agrieval.scoring.authoring.bundles.submission_limits import resolved
from agrieval.scoring.authoring.bundles.starting_kit import VALIDATE_CMD
from agrieval.scoring.authoring.bundles.files import (DEFINITION_FILE, Bundle, Inputs, runtime_note, sample_submission,
                                                      solution_notes, validate_command)
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.text import literals as lit

# Each hole is one Python literal (agrieval.scoring.text.literals.python), or the vendored runtime's own code.
METRIC_PY = '''"""Kaggle metric for the competition COMPETITION, written by `agrieval bundle kaggle`. Do not edit:
rebuild it.

Publish this file as a Kaggle utility script and attach it to the metric notebook (see the bundle's README).
``score`` is the metric;
``ParticipantVisibleError`` is the one exception class Kaggle shows to participants.
"""
{embedded}
import pandas as pd

import agrieval_runtime.platforms.kaggle as _kaggle
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
    reveal = ("The public leaderboard ranks every submission on the public part of the test set as it is scored; "
              "at the end, Kaggle ranks each team on the private part with its selected submissions (up to "
              f"{k}), or with its best public ones if it selected none. The dates are on the Overview page.")
    pages = markdown_pages.pages(inputs, options, "kaggle", sample_note=note, validate_cmd=VALIDATE_CMD, until="",
                                 timeline=reveal)
    for page, text in pages.items():
        bundle.add(f"pages/{page}.md", text)
    size = len(bundle.files["agrieval_metric.py"]) // 1000
    bundle.add("README.md", f"""# Kaggle metric for {lit.markdown_code(d.name)}

Written by `agrieval bundle kaggle`. {runtime_note()} Kaggle's image has them.
{solution_notes(inputs)}
## From nothing to a running competition

Kaggle hosts community competitions from its own site (https://www.kaggle.com/c/about/community); its host pages
are not public documentation or code, so the steps below say what to set, each with where that fact comes from,
and leave the labels of Kaggle's buttons to its pages. The metric is one file, `agrieval_metric.py` ({size} KB:
the runtime and the definition embedded), kept as a notebook, as Kaggle keeps every metric (its own are public
notebooks under https://www.kaggle.com/code/metric, e.g. https://www.kaggle.com/code/metric/santa-2023-metric).

1. **Create the competition** as its host, from the Community Competitions page above: its title, its pages (paste
   `pages/overview.md`, every metric defined with its formula; `pages/data.md`; `pages/submission.md`, the format
   with a file that is accepted and one that is rejected, the limits and the reveal), the dates, and the data
   participants download: your test images, `sample_submission.csv` ({note}) and `validate.py`
   (`{VALIDATE_CMD}` checks a file as this metric reads it, with Python and numpy alone).
2. **Publish the metric**: a new notebook whose code is `agrieval_metric.py`, marked as a **utility script** in its
   settings and saved (it must run once without error: it only defines functions). Its name is the module name:
   keep `agrieval_metric`.
3. **The metric notebook**: a second notebook with `agrieval_metric` attached as a utility script; its one cell is
   `metric_notebook.py` (`from agrieval_metric import ParticipantVisibleError, score`). Save it.
4. **Evaluation**, in the competition's host settings: that notebook as the metric (Kaggle calls `score(solution,
   submission, row_id_column_name)` once for the public rows and once for the private rows, and shows a
   participant only a `ParticipantVisibleError`'s message: docs/facts/platforms.md, `kaggle_metric_utilities`);
   the solution file `solution.csv` (`row_id_column_name` {lit.markdown_code(d.id_column)}; its {lit.markdown_code(d.split.column)} column holds
   {lit.markdown_code(d.split.public)}/{lit.markdown_code(d.split.private)}, which Kaggle removes before calling `score`); the sample
   submission `sample_submission.csv`; {lit.markdown_code(d.primary_metric)} is {'higher' if d.higher_is_better else 'lower'}-is-better
   (Kaggle keeps the one float `score` returns).
5. **Limits and final submissions** (the section below gives the values): the daily limit and the number of
   final submissions a team selects.
6. **Try it**: submit `sample_submission.csv` yourself; it must be scored, not rejected.

Dates and the reveal are Kaggle's competition settings, not this bundle's: the metric scores every submission on
both splits, the public score is shown at once, and Kaggle shows the private leaderboard when the competition
ends (the `Usage` column decides which rows count where).

Messages never depend on which rows a call is handed (Kaggle scores the public and the private rows in separate
calls): a problem of the header is named; any problem in the rows is one message that names no line, count,
cell or code and asks the participant to run `{VALIDATE_CMD}` (publish `validate.py` with the data, step 1) or
{lit.markdown_code(validate_command(d))} locally{f" (publish `{DEFINITION_FILE}` with the data too)" if custom else ""},
which lists every problem with its line and column. That is a choice against leaking the split; participants
lose the position in the Kaggle message, not the information.

What a participant sees for a malformed row: the metric is called once per split, so only the call whose rows
hold it fails, with that one message (`[rows_invalid]`, the same whichever split it is), while the other split's
call scores the file. A bad row among the public rows shows the message at once; one among the private rows
leaves a public score shown and the private score failing, which Kaggle's own grading code (not public) decides
how to show. Either way the message names no row; `validate.py` finds every bad row before the upload.
""")
    bundle.next_steps = ["create the competition: https://www.kaggle.com/c/about/community (README step 1)",
                         "publish agrieval_metric.py as a utility script; attach it to the metric notebook",
                         "choose that notebook as the metric; upload solution.csv and sample_submission.csv; "
                         "set the limits; try a submission"]
    return bundle
