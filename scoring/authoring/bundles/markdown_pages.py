"""The participant's pages in Markdown, for the platforms whose pages are Markdown: Hugging Face's
``COMPETITION_DESC.md``/``DATASET_DESC.md``/``SUBMISSION_DESC.md`` and the texts a Kaggle host pastes.

They say what the other platforms' HTML pages say (``competition_pages.pages``): the overview with every
leaderboard metric defined (``metric_pages.definitions_markdown``), the data, and the submission format with a
file that is accepted and one that is rejected, the limits, the timeline and the reveal
(``metric_pages.participant_markdown``), with the platform's own limits (``submission_limits.resolved``) and its
own words for the reveal (the caller's ``timeline``). Every value lands through ``agrieval.scoring.text.literals``.
"""

from __future__ import annotations

from agrieval.scoring.authoring.bundles.competition_pages import Options, example_labels, limits_sentence
from agrieval.scoring.authoring.bundles.files import Inputs
from agrieval.scoring.authoring.bundles.metric_pages import definitions_markdown, group_name, participant_markdown
from agrieval.scoring.authoring.bundles.submission_limits import resolved
from agrieval.scoring.text import literals as lit

__all__ = ["pages"]


def pages(inputs: Inputs, options: Options, platform: str, *, sample_note: str, validate_cmd: str, until: str,
          timeline: str) -> dict:
    """``{"overview", "data", "submission": markdown}``. ``until``: the overview's words for how long the
    public ranking runs (" until 2027-04-01"); ``timeline``: the platform's account of the dates and the reveal.
    The limits sentence names the scorer's own time limit (``--time-limit``, else the definition's
    ``limits.max_seconds``): the platforms' time settings bound their own workers, not a metric run."""
    d = inputs.definition
    limits = resolved(platform, options)
    better = "higher" if d.higher_is_better else "lower"
    title = options.title_of(inputs)
    subtitle = f"{lit.markdown(d.title or d.name)}\n\n" if (d.title or d.name) != title else ""
    about = f"{lit.markdown(options.description)}\n\n" if options.description else ""
    sentence = limits_sentence(d, limits.per_day, limits.total, options.time_limit)
    header = lit.markdown_code(d.delimiter.join(d.expected_columns))
    return {
        "overview": f"# {lit.markdown(title)}\n\n{subtitle}{about}Ranked on {lit.markdown_code(d.primary_metric)} ({better} "
                    f"is better) on the public part of the test set{until}; the private leaderboard is shown after "
                    "the end.\n\n" + definitions_markdown(list(inputs.keys), d.primary_metric, group_name(d)),
        "data": f"# Data\n\n`sample_submission.csv` holds every id of the test set: {lit.markdown(sample_note)}. "
                "`validate.py` checks a file before you upload it.\n",
        "submission": f"# Submissions\n\nA CSV with the header {header}, one row per id (or a zip holding it). "
                      "Check it first with `validate.py` (Python 3.8+ and numpy, nothing else; it checks the format "
                      f"and the ids as the grader reads them):\n\n    {validate_cmd}\n\n"
                      + participant_markdown(d, sorted(inputs.solution.ids), example_labels(d), sentence, timeline),
    }
