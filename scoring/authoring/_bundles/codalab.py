"""CodaLab (legacy, v1) bundle: the competition bundle zip that ``CompetitionDefBundle.unpack`` reads.

What CodaLab reads (``docs/facts/platforms.md`` and ``docs/platform_checks.md``: codalab/codalab-competitions
``codalab/apps/web/models.py`` ``CompetitionDefBundle.unpack``, ``tasks.py``; the v1 worker ``worker.py``): the
first ``*.yaml`` of the zip; its top-level keys, but ``html``, ``phases`` and ``leaderboard``, become fields of
``Competition`` (so only field names may appear there); ``html`` overview, evaluation, terms and data, read from
the zip; ``phases`` numbered, each a ``CompetitionPhase`` (its keys are field names) with a scoring program and
reference data zip in the bundle; ``leaderboard: {leaderboards, columns}``. The worker YAML-parses an upload
that is not a zip, so participants must zip their CSV. A phase with ``leaderboard_management_mode:
hide_results`` is "blind": its results are shown to the admins only (``CompetitionPhase.is_blind``).
"""

from __future__ import annotations

from agrieval.scoring.authoring._bundles.codabench import IMAGE, shared_files, upload_zip
from agrieval.scoring.authoring._bundles.competition_pages import Options
from agrieval.scoring.authoring._bundles.files import Bundle, Inputs, runtime_note, solution_notes
from agrieval.scoring.authoring._bundles.starting_kit import VALIDATE_CMD
from agrieval.scoring.authoring._bundles.submission_limits import resolved
from agrieval.scoring.authoring._bundles.yaml_text import dump
from agrieval.scoring.text.template import fill, prose

NUMERIC_FORMAT = 4
UPLOAD = "codalab_competition.zip"
HTML = ("overview", "evaluation", "terms", "data")


def competition(inputs: Inputs, options: Options) -> dict:
    d = inputs.definition
    dev_start, _dev_end, final_start, end = options.text_dates()
    board = {"label": "Results", "rank": 1}
    columns = {k: dict({"leaderboard": board, "label": k, "rank": i + 1, "numeric_format": NUMERIC_FORMAT},
                       **({} if d.higher_is_better else {"sort": "asc"})) for i, k in enumerate(inputs.keys)}
    limits = resolved("codalab", options)
    common = {"max_submissions": limits.total, "max_submissions_per_day": limits.per_day, "is_scoring_only": True,
              "execution_time_limit": limits.time_limit, "reference_data": "reference_data.zip",
              "starting_kit": "starting_kit.zip"}
    return {
        "title": options.title_of(inputs),
        "description": d.title or d.name,
        "image": "logo.png",
        "has_registration": True,
        "end_date": end,
        "competition_docker_image": IMAGE,
        "force_submission_to_leaderboard": True,
        "html": {name: f"{name}.html" for name in HTML},
        "phases": {
            1: dict({"phasenumber": 1, "label": options.dev_name, "description": "Scored on the public split.",
                     "start_date": dev_start, "color": "green", "scoring_program": "scoring_program_public.zip"},
                    **common),
            # Blind (results hidden from participants) and scored on the private split.
            2: dict({"phasenumber": 2, "label": options.final_name,
                     "description": "Scored on the private split; results hidden until the organizers publish them.",
                     "start_date": final_start, "color": "purple", "scoring_program": "scoring_program_private.zip",
                     "leaderboard_management_mode": "hide_results"}, **common),
        },
        "leaderboard": {"leaderboards": {"RESULTS": board}, "columns": columns},
    }


def build(inputs: Inputs, *, split: str = "public", options: Options | None = None) -> Bundle:
    options = options or Options()
    d = inputs.definition
    bundle = Bundle("codalab", d)
    note = shared_files(bundle, inputs, split, "metadata")
    config_text = "# CodaLab competition bundle (v1), written by `agrieval bundle codalab`.\n" + dump(
        competition(inputs, options))
    bundle.add("competition.yaml", config_text)
    kit_readme = fill(__file__, "codalab_starting_kit.md", name=d.name, note=note, validate=VALIDATE_CMD)
    bundle.add(UPLOAD, upload_zip(bundle, inputs, options, config_text, "metadata", page_folder="",
                                  kit_readme=kit_readme, sample_note=note,
                                  upload_how=prose("Upload a zip holding the CSV alone (<code>zip submission.zip "
                                                   "submission.csv</code>): CodaLab reads an upload that is not a "
                                                   "zip as YAML and fails it.")))
    dev_start, _dev_end, final_start, end = options.text_dates()
    bundle.add("README.md", fill(__file__, "codalab_readme.md", name=d.name, runtime=runtime_note(),
                                 notes=solution_notes(inputs), upload=UPLOAD, title=options.title_of(inputs),
                                 image=IMAGE, dev_name=options.dev_name, final_name=options.final_name,
                                 dev_start=dev_start, final_start=final_start, end=end, note=note, split=split))
    bundle.next_steps = [f"upload {UPLOAD} (Create Competition)", "replace terms and logo; publish",
                         "approve each participant: registrations stay pending until you do (README step 2)",
                         "after the end: set the final phase's leaderboard mode to default (README step 4)"]
    return bundle
