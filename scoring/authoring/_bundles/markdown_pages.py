"""The participant's pages in Markdown, for the platforms whose pages are Markdown: Hugging Face's
``COMPETITION_DESC.md``/``DATASET_DESC.md``/``SUBMISSION_DESC.md`` and the texts a Kaggle host pastes.

They say what the other platforms' HTML pages say (``competition_pages.pages``): the overview with every
leaderboard metric defined (``metric_pages.definitions_markdown``), the data, and the submission format with a
file that is accepted and one that is rejected, the limits, the timeline and the reveal
(``metric_pages.participant_markdown``), with the platform's own limits (``submission_limits.resolved``) and its
own words for the reveal (the caller's ``timeline``). Every value lands through ``agrieval.scoring.text.literals``.
"""

from __future__ import annotations

from agrieval.scoring.authoring._bundles.competition_pages import Options, example_labels, limits_sentence
from agrieval.scoring.authoring._bundles.files import Inputs
from agrieval.scoring.authoring._bundles.metric_pages import definitions_markdown, group_name, participant_markdown
from agrieval.scoring.authoring._bundles.submission_limits import resolved
from agrieval.scoring.text.template import Filled, fill, prose

__all__ = ["pages"]


def pages(inputs: Inputs, options: Options, platform: str, *, sample_note: str, validate_cmd: str, until: Filled,
          timeline: str) -> dict:
    """``{"overview", "data", "submission": markdown}``. ``until``: the overview's words for how long the
    public ranking runs (" until 2027-04-01"); ``timeline``: the platform's account of the dates and the reveal.
    The limits sentence names the scorer's own time limit (``--time-limit``, else the definition's
    ``limits.max_seconds``): the platforms' time settings bound their own workers, not a metric run."""
    d = inputs.definition
    limits = resolved(platform, options)
    title = options.title_of(inputs)
    subtitle = fill(__file__, "paragraph.md", text=d.title or d.name) if (d.title or d.name) != title else prose("")
    about = fill(__file__, "paragraph.md", text=options.description) if options.description else prose("")
    sentence = limits_sentence(d, limits.per_day, limits.total, options.time_limit)
    participant = participant_markdown(d, sorted(inputs.solution.ids), example_labels(d), sentence, timeline)
    return {
        "overview": fill(__file__, "overview.md", title=title, subtitle=subtitle, about=about,
                         primary_metric=d.primary_metric, better="higher" if d.higher_is_better else "lower",
                         until=until, definitions=definitions_markdown(list(inputs.keys), d.primary_metric,
                                                                       group_name(d))),
        "data": fill(__file__, "data.md", sample_note=sample_note),
        "submission": fill(__file__, "submission.md", header=d.delimiter.join(d.expected_columns),
                           validate_cmd=validate_cmd, participant=participant),
    }
