"""Hugging Face ``competitions`` bundle: a self-contained ``metric.py``, ``solution.csv`` and a conf.json snippet.

The platform downloads only ``metric.py`` from the competition's dataset
repository (``docs/facts/platforms.md``: huggingface/competitions
``compute_metrics.py``), in the Space image built with Python 3.10: so the
runtime and the frozen definition are embedded in that one file, and it fetches
``solution.csv`` and the upload itself with ``huggingface_hub``.
"""

from __future__ import annotations

import json

from agrieval.scoring.authoring import _vendoring as vendoring
from agrieval.scoring.authoring._bundles import markdown_pages
from agrieval.scoring.authoring._bundles.competition_pages import Options
from agrieval.scoring.authoring._bundles.files import (
    BUNDLE_HOLE,
    Bundle,
    Inputs,
    runtime_note,
    sample_submission,
    solution_notes,
)
from agrieval.scoring.authoring._bundles.starting_kit import VALIDATE_CMD
from agrieval.scoring.authoring._bundles.submission_limits import resolved
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.text import literals as lit
from agrieval.scoring.text.template import fill

# Each hole is one Python literal (agrieval.scoring.text.literals.python), or the vendored runtime's own code.
METRIC_PY = '''"""Custom metric for Hugging Face competitions, written by `agrieval bundle hf` for the competition
COMPETITION. Do not edit: rebuild it.

The agrieval grading runtime and the competition definition are embedded below, so that this one file is all the
platform needs to download. ``compute(params)`` fetches solution.csv and the upload from the competition repository.
"""
{embedded}
COMPETITION = {name}
_DEFINITION_JSON = {definition}


def _definition():
    from agrieval_runtime.definition import thaw

    return thaw(_DEFINITION_JSON, "metric.py (embedded definition)")


def compute(params):
    from agrieval_runtime._platforms.hf import compute_scores

    return compute_scores(_definition(), params)
'''


def conf_json(inputs: Inputs, options: Options) -> dict:
    """Every key ``CompetitionInfo`` reads (huggingface/competitions competitions/info.py lines 74-162), in the
    order competitions/create.py writes them."""
    d = inputs.definition
    end = options.dates()[3]
    limits = resolved("hf", options)
    return {"COMPETITION_TYPE": "generic", "SUBMISSION_LIMIT": limits.per_day, "TIME_LIMIT": limits.time_limit,
            "SELECTION_LIMIT": limits.selection_limit,
            "HARDWARE": "cpu-basic", "END_DATE": end.strftime("%Y-%m-%d"),
            "EVAL_HIGHER_IS_BETTER": bool(d.higher_is_better), "SUBMISSION_ID_COLUMN": d.id_column,
            "SUBMISSION_COLUMNS": ",".join(d.expected_columns), "SUBMISSION_ROWS": len(inputs.solution.ids),
            "EVAL_METRIC": "custom", "LOGO": "", "DATASET": "", "SUBMISSION_FILENAMES": ["submission.csv"],
            "SCORING_METRIC": inputs.keys[0]}


# The markdown pages CompetitionInfo downloads (info.py lines 15-56): the first two are required.
DESC_FILES = ("COMPETITION_DESC.md", "DATASET_DESC.md", "SUBMISSION_DESC.md", "RULES.md")


def build(inputs: Inputs, *, options: Options | None = None, **_options) -> Bundle:
    options = options or Options()
    d = inputs.definition
    bundle = Bundle("hf", d)
    bundle.add("metric.py", METRIC_PY.format(name=lit.python(d.name), embedded=vendoring.embedded_runtime(),
                                             definition=lit.python(freeze(d))))
    bundle.add("solution.csv", inputs.solution_path.read_bytes())
    sample, note = sample_submission(inputs)
    bundle.add("sample_submission.csv", sample)
    settings = conf_json(inputs, options)
    bundle.add("conf.json", json.dumps(settings, indent=4) + "\n")
    end, k = settings["END_DATE"], settings["SELECTION_LIMIT"]
    reveal = fill(__file__, "hf_timeline.txt", end=end, selection_limit=k)
    # the starting kit's validate.py: Python and numpy, nothing to install
    pages = markdown_pages.pages(inputs, options, "hf", sample_note=note, validate_cmd=VALIDATE_CMD,
                                 until=fill(__file__, "hf_until.md", end=end), timeline=reveal)
    for name, page in (("COMPETITION_DESC.md", "overview"), ("DATASET_DESC.md", "data"),
                       ("SUBMISSION_DESC.md", "submission")):
        bundle.add(name, pages[page])
    bundle.add("RULES.md", "# Rules\n\nOrganizers: replace this text with your rules.\n")
    bundle.add("README.md", fill(__file__, "hf_readme.md", name=d.name, runtime=runtime_note(),
                                 notes=solution_notes(inputs), primary=inputs.keys[0], end=end,
                                 rows=len(inputs.solution.ids), selection_limit=k, note=note))
    bundle.next_steps = ["create the competition: https://huggingface.co/spaces/competitions/create (README step 2)",
                         "upload: huggingface-cli upload ORG/NAME " + BUNDLE_HOLE
                         + " . --repo-type=dataset --exclude README.md",
                         "publish sample_submission.csv with the test data; try a submission; make the Space public"]
    return bundle
