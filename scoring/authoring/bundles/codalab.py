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

from agrieval.scoring.authoring.bundles.codabench import IMAGE, shared_files, upload_zip
from agrieval.scoring.authoring.bundles.starting_kit import VALIDATE_CMD
from agrieval.scoring.authoring.bundles.submission_limits import resolved
from agrieval.scoring.authoring.bundles.competition_pages import Options
from agrieval.scoring.authoring.bundles.files import Bundle, Inputs, runtime_note, solution_notes
from agrieval.scoring.authoring.bundles.yaml_text import dump
from agrieval.scoring.text import literals as lit

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
    kit_readme = (f"# Starting kit: {lit.markdown(d.name)}\n\n`sample_submission.csv`: {note}.\n\nCheck a file: "
                  f"`{VALIDATE_CMD}`.\nUpload a zip holding the CSV alone: `zip submission.zip "
                  "submission.csv` (CodaLab fails a CSV uploaded as it is).\n")
    bundle.add(UPLOAD, upload_zip(bundle, inputs, options, config_text, "metadata", page_folder="",
                                  kit_readme=kit_readme, sample_note=note,
                                  upload_how="Upload a zip holding the CSV alone (<code>zip submission.zip "
                                             "submission.csv</code>): CodaLab reads an upload that is not a zip as "
                                             "YAML and fails it."))
    dev_start, _dev_end, final_start, end = options.text_dates()
    bundle.add("README.md", f"""# CodaLab (legacy) competition for {lit.markdown_code(d.name)}

Written by `agrieval bundle codalab`. {runtime_note()}
{solution_notes(inputs)}
**Upload `{UPLOAD}`**: sign in to the CodaLab site (an account is all an organizer needs), then My Competitions ->
Create Competition -> upload the bundle (codalab/codalab-competitions at c7ef5e28: the menu, `templates/base.html`
~94; the button, `templates/web/my/index.html` ~57; the upload page, `web/competitions/upload_competition.html`;
the site unpacks it with `CompetitionDefBundle.unpack`, `codalab/apps/web/models.py` ~1875). Its
`competition.yaml` (v1; copy next to this README) names the title "{lit.markdown(options.title_of(inputs))}", the docker image
`{IMAGE}`, the html pages (overview, evaluation, terms, data), a logo, and two phases:
{lit.markdown_code(options.dev_name)} from {dev_start} (public split, results shown) and {lit.markdown_code(options.final_name)} from {final_start}
(private split, `leaderboard_management_mode: hide_results`: results shown to the organizers only); the
competition ends {end} (UTC; `--dev-start/--final-start/--end`).

Then:
1. Replace the terms page and the logo in the editor; publish.
2. **Approve each participant**: the competition requires registration (`has_registration: true`), so a
   registration stays `pending`, and its author cannot submit, until you approve it (the competition's
   Participants page, as organizer). Approve no one after the end. (codalab/codalab-competitions at c7ef5e28:
   `codalab/apps/api/views/competition_views.py` `participate` ~236-239 stores `pending`;
   `CompetitionSubmissionViewSet.perform_create` ~590-591 refuses a participant who is not approved.)
3. **Participants must zip their CSV** (`zip submission.zip submission.csv`): the v1 worker reads an upload that
   is not a zip as YAML and the submission fails before the scoring program runs. The starting kit says so and
   holds `sample_submission.csv` ({note}).
4. After the end, publish the final phase's results: edit the phase {lit.markdown_code(options.final_name)} and set its
   leaderboard mode to the default (results shown).

What CodaLab does with the dates: a phase takes submissions from its start date until the next phase starts,
the last one until the competition's end date ({end}); nothing switches by itself at the end. The final phase
is blind: participants see that their submission ran, not its scores, until step 4, which is the reveal.
(codalab/codalab-competitions at c7ef5e28: `codalab/apps/web/models.py` `CompetitionPhase.is_active` ~1001-1013,
`Competition.is_active` ~430-436.)

The program writes `scores.txt` (`key: value` lines: the only file CodaLab reads) and `scores.json`. A rejected
submission exits 1 with the reason in `stderr.txt`; a failure on the organizers' side exits 3 and says it is not
the participant's fault. Also here, to read or try: `scoring_program/` (the {split} split's program),
`reference_data/`, `sample_submission.csv`.
""")
    bundle.next_steps = [f"upload {UPLOAD} (Create Competition)", "replace terms and logo; publish",
                         "approve each participant: registrations stay pending until you do (README step 2)",
                         "after the end: set the final phase's leaderboard mode to default (README step 4)"]
    return bundle
