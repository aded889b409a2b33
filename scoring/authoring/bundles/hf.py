"""Hugging Face ``competitions`` bundle: a self-contained ``metric.py``, ``solution.csv`` and a conf.json snippet.

The platform downloads only ``metric.py`` from the competition's dataset
repository (``docs/facts/platforms.md``: huggingface/competitions
``compute_metrics.py``), in the Space image built with Python 3.10: so the
runtime and the frozen definition are embedded in that one file, and it fetches
``solution.csv`` and the upload itself with ``huggingface_hub``.
"""

from __future__ import annotations

import json

from agrieval.scoring.authoring import vendoring
from agrieval.scoring.authoring.bundles import markdown_pages
from agrieval.scoring.authoring.bundles.starting_kit import VALIDATE_CMD
from agrieval.scoring.authoring.bundles.submission_limits import resolved
from agrieval.scoring.authoring.bundles.competition_pages import Options
from agrieval.scoring.authoring.bundles.files import (BUNDLE_HOLE, Bundle, Inputs, runtime_note, sample_submission,
                                                      solution_notes)
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.text import literals as lit

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
    from agrieval_runtime.platforms.hf import compute_scores

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
    reveal = (f"Submissions are accepted until {end} (00:00, the Space's clock) and scored at once on the public "
              "part of the test set; from then on, submissions are refused and the private leaderboard appears by "
              f"itself: for each team, the best private score among its selected submissions (up to {k}, chosen "
              "on the Space's submissions page), or of its best public submission if it selected none.")
    # the starting kit's validate.py: Python and numpy, nothing to install
    pages = markdown_pages.pages(inputs, options, "hf", sample_note=note, validate_cmd=VALIDATE_CMD,
                                 until=f" until {end}", timeline=reveal)
    for name, page in (("COMPETITION_DESC.md", "overview"), ("DATASET_DESC.md", "data"),
                       ("SUBMISSION_DESC.md", "submission")):
        bundle.add(name, pages[page])
    bundle.add("RULES.md", "# Rules\n\nOrganizers: replace this text with your rules.\n")
    bundle.add("README.md", f"""# Hugging Face competition for {lit.markdown_code(d.name)}

Written by `agrieval bundle hf`. {runtime_note()} The Space image runs Python 3.10 with huggingface_hub.
{solution_notes(inputs)}
## From nothing to a running competition

The steps follow huggingface/competitions' own documentation and code (at d887d2e: `docs/source/create_competition.mdx`,
`docs/source/competition_repo.mdx`, `docs/source/custom_metric.mdx`, `competitions/create.py` `_create`).

1. **Account, token, organization.** A Hugging Face account, a **write** token (https://huggingface.co/settings/tokens)
   and an organization you belong to (https://huggingface.co/organizations/new). The competition's Space keeps the
   token as its `HF_TOKEN` secret for the whole competition: do not refresh it, or put the new one in the Space's
   settings at once (participants could not submit otherwise).
2. **Create the competition** with the competition creator, https://huggingface.co/spaces/competitions/create (or
   `pip install competitions`, then `competitions create`): your token, the organization, a name (the creator
   keeps only its letters and digits), type `generic`, hardware `cpu-basic` (free). Leave the other fields: step 3
   replaces the `conf.json` they make. The creator makes two **private** repositories, both `ORG/NAME`: the
   **dataset** that holds the competition's files (the solution among them: it stays private) and the **Space**
   participants use, with its secrets `HF_TOKEN` and `COMPETITION_ID` (`create.py` `_create` ~117-285).
3. **Upload this folder's files** to that dataset, over the creator's samples, README.md excepted. From any
   folder, BUNDLE being this README's folder (`agrieval bundle` printed the line with its path):

       huggingface-cli upload ORG/NAME BUNDLE . --repo-type=dataset --exclude README.md

   (`hf upload` from huggingface_hub 0.34 on, which renamed the command: https://huggingface.co/blog/hf-cli.
   Or from Python, the same call before and after the rename (`ignore_patterns` read in the Space's pin, 0.24.6):
   `HfApi().upload_folder(repo_id="ORG/NAME", repo_type="dataset", folder_path="BUNDLE", ignore_patterns=["README.md"])`.)

4. **Publish the test data** (the images and `sample_submission.csv`) where participants can download it, a public
   dataset for instance, and say where in `DATASET_DESC.md` (upload it again). `conf.json`'s `DATASET` is for script
   competitions only and stays empty.
5. **Try it**: open the Space, register as a participant, upload `sample_submission.csv`, see it scored on the
   public leaderboard. Then make the **Space** public (its settings); never the dataset
   (`competition_repo.mdx`: "Competition repo must always be kept private").

## What each file is

- `conf.json`: every key `CompetitionInfo` reads; `EVAL_METRIC` "custom", `SCORING_METRIC` {lit.markdown_code(inputs.keys[0])} (the
  leaderboard sorts on it; without it the competition does not start), `END_DATE` {end} (`--end`),
  `SUBMISSION_ROWS` {len(inputs.solution.ids)}, `SELECTION_LIMIT` {k} (`--selection-limit`).
- `metric.py`: the metric (runtime and definition embedded: the platform downloads only this file).
- `solution.csv`: the truth. Its split column may be the platform's own lowercase `split` (`public`/`private`,
  as its built-in metrics read it) or Kaggle's `Usage` (`Public`/`Private`); `metric.py` reads either.
- `COMPETITION_DESC.md` (every leaderboard metric defined with its formula), `DATASET_DESC.md` (both required),
  `SUBMISSION_DESC.md` (the format with a file that is accepted and one that is rejected, the limits, the
  timeline and the reveal, as this README states them), `RULES.md` (yours to write): the pages.
- `sample_submission.csv` ({note}): for the participants' data (step 4).

Uploads may be the CSV or a zip holding it; the platform keeps the uploaded file's extension (`sub.CSV`, `.txt`,
`.zip`...): the usual spellings are fetched by name, any other through the repository listing.

What the platform does with the date and the reveal: one date, `END_DATE` ({end},
midnight at its start, the Space's clock). Before it, participants submit (`SUBMISSION_LIMIT` a day) and see the
public leaderboard; from it on, submissions are refused and the private leaderboard appears by itself, made of
submissions made before it: for each team its selected submissions (up to `SELECTION_LIMIT`, chosen by the
team) ranked by private score, or, if it selected none, its best public submission. There are no phases to set.
(huggingface/competitions at d887d2ec: `submissions.py` `_is_submission_allowed`, `app.py` ~207-208,
`leaderboard.py` `_process_private_lb`.)

Two things the limits do not say. **A failed upload counts against the daily limit**: the count is every
submission of the day, whatever its status (`submissions.py` `_num_subs_today` ~27-34), so a participant whose
file is rejected has one upload fewer that day (tell them to run `validate.py` first). **`TIME_LIMIT` applies
only to script competitions**: the platform times the participant's `script.py` (`evaluate.py`
`generate_submission_file` ~62-67, called only when `COMPETITION_TYPE` is `script`, ~99-122), never the metric;
for this generic competition the only time limit is the bundled scorer's own guard.

`compute(params)` returns `public_score` and `private_score` with identical keys, {lit.markdown_code(inputs.keys[0])} first. A
rejected upload raises with the participant-safe reason (the platform shows participants only "failed" and keeps
the message in the Space log).
""")
    bundle.next_steps = ["create the competition: https://huggingface.co/spaces/competitions/create (README step 2)",
                         f"upload: huggingface-cli upload ORG/NAME {BUNDLE_HOLE} . --repo-type=dataset "
                         "--exclude README.md",
                         "publish sample_submission.csv with the test data; try a submission; make the Space public"]
    return bundle
