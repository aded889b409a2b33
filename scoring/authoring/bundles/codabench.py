"""Codabench bundle: ``scoring_program/`` and ``reference_data/`` for a competition.yaml v2 task.

What Codabench reads (``docs/facts/platforms.md``: codalab/codabench
``compute_worker.py``, ``unpackers/v2.py``): the scoring program's
``metadata.yaml`` ``command:`` (``$program``/``$input``/``$output`` become
``/app/program``, ``/app/input``, ``/app/output``), ``output/scores.json``
keys that are leaderboard column keys, and ``docker_image`` from
competition.yaml, whose default (``codalab/codalab-legacy:py37``) is older
than the runtime: the snippet names ``codalab/codalab-legacy:py39``
(Python 3.9, numpy 1.22.4; codalab/codalab-dockers ``Dockerfiles/Dockerfile-py39``).
"""

from __future__ import annotations

from agrieval.scoring.authoring.bundles.starting_kit import VALIDATE_CMD, validator_py
from agrieval.scoring.authoring.bundles.submission_limits import resolved
from agrieval.scoring.authoring.bundles.competition_pages import Options, logo_png, pages
from agrieval.scoring.authoring.bundles.files import (Bundle, Inputs, runtime_note, sample_submission, solution_notes,
                                             sorting, under, zip_bytes)
from agrieval.scoring.authoring.bundles.yaml_text import dump
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.text import literals as lit

IMAGE = "codalab/codalab-legacy:py39"
COMMAND = "python3 $program/score.py $input $output"
PRECISION = 4

# score.py, written into the bundle: a version check first (the default images are Python 3.7), then the runtime.
# Each hole is one Python literal (agrieval.scoring.text.literals.python): no value is ever formatted into code.
SCORE_PY = '''"""Scoring program written by `agrieval bundle` (PLATFORM) for the competition COMPETITION, scored on
the SPLIT split. Do not edit: rebuild it."""
import sys

PLATFORM = {platform}
COMPETITION = {name}
SPLIT = {split}
DOCKER_IMAGE = {image}
HOST_FAILURE = ("the scoring program failed on the organizers' side; this is not your submission's fault "
                "(the organizers have been given the code below)")

if sys.version_info < (3, 8):
    sys.stderr.write(HOST_FAILURE + ": [internal_error] the docker image runs Python %d.%d; this program needs "
                     "3.8 or newer (organizers: set docker_image to %s)\\n" % (sys.version_info[:2] + (DOCKER_IMAGE,)))
    sys.exit(3)

from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import numpy  # noqa: F401
    from agrieval_runtime.platforms.codabench import main
except Exception as exc:  # noqa: BLE001 - the participant must see a clean line, not a traceback
    sys.stderr.write(HOST_FAILURE + ": [internal_error] the scoring program cannot start (%s: %s); organizers: "
                     "use docker_image %s or an image with numpy >= 1.21\\n" % (type(exc).__name__, exc, DOCKER_IMAGE))
    sys.exit(3)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:3] + ["--split", SPLIT] + sys.argv[3:], competition=str(HERE / "competition.json")))
'''


def program_files(bundle: Bundle, inputs: Inputs, split: str, metadata_name: str, command: str,
                  folder: str = "scoring_program") -> None:
    """A scoring program for ``split`` under ``folder/`` (shared with the CodaLab bundle)."""
    d = inputs.definition
    bundle.add_runtime(folder)
    bundle.add(f"{folder}/competition.json", freeze(d))
    bundle.add(f"{folder}/score.py", SCORE_PY.format(platform=lit.python(bundle.platform), name=lit.python(d.name),
                                                     split=lit.python(split), image=lit.python(IMAGE)))
    description = f"agrieval scoring program for {d.name} ({split} split)"
    bundle.add(f"{folder}/{metadata_name}", dump({"command": command, "description": description}))


def shared_files(bundle: Bundle, inputs: Inputs, split: str, metadata_name: str) -> str:
    """What the Codabench and CodaLab bundles share: the folders to read (``scoring_program/`` of ``split``,
    ``reference_data/``), the two scoring program zips, the reference data zip and the sample submission.
    Returns the sample submission's note."""
    program_files(bundle, inputs, split, metadata_name, COMMAND)
    bundle.add("reference_data/solution.csv", inputs.solution_path.read_bytes())
    sample, note = sample_submission(inputs)
    bundle.add("sample_submission.csv", sample)
    return note


def program_zips(inputs: Inputs, metadata_name: str, platform: str) -> dict:
    """``{scoring_program_public.zip, scoring_program_private.zip}``, each zipped from inside (the worker reads
    ``metadata.yaml`` at the zip's root: compute_worker.py ~847-850)."""
    out = {}
    for split in ("public", "private"):
        one = Bundle(platform, inputs.definition)
        program_files(one, inputs, split, metadata_name, COMMAND)
        out[f"scoring_program_{split}.zip"] = zip_bytes(under(one, "scoring_program"))
    return out


def upload_zip(bundle: Bundle, inputs: Inputs, options: Options, config_text: str, metadata_name: str, *,
               page_folder: str, kit_readme: str, sample_note: str, upload_how: str) -> bytes:
    """The zip an organizer uploads (to Codabench or CodaLab): the competition YAML, a logo, the reference data,
    the starting kit (the sample submission, ``kit_readme`` and ``validate.py``), the pages (under ``page_folder``) and the two
    scoring programs. ``bundle`` already holds ``reference_data/`` and the sample submission (``shared_files``)."""
    page_html = pages(inputs, options, validate_cmd=VALIDATE_CMD, sample_note=sample_note,
                      sample_where="in the starting kit", upload_how=upload_how)
    # the starting kit's validate.py: the grader's own reading, with Python and numpy alone
    kit = {"sample_submission.csv": bundle.files["sample_submission.csv"], "README.md": kit_readme.encode(),
           "validate.py": validator_py(inputs).encode()}
    upload = {"competition.yaml": config_text.encode(), "logo.png": logo_png(),
              "reference_data.zip": zip_bytes(under(bundle, "reference_data")), "starting_kit.zip": zip_bytes(kit)}
    upload.update({f"{page_folder}{name}.html": text.encode() for name, text in page_html.items()})
    upload.update(program_zips(inputs, metadata_name, bundle.platform))
    return zip_bytes(upload)


def competition(inputs: Inputs, options: Options) -> dict:
    """competition.yaml (version 2) as V2Unpacker reads it (src/apps/competitions/unpackers/v2.py)."""
    d = inputs.definition
    dev_start, dev_end, final_start, end = options.text_dates()
    reveal = options.reveal_text()
    columns = [{"title": k, "key": k, "index": i, "sorting": sorting(d), "precision": PRECISION, "hidden": False}
               for i, k in enumerate(inputs.keys)]
    limits = resolved("codabench", options)
    phase = {"max_submissions_per_day": limits.per_day, "max_submissions": limits.total,
             "execution_time_limit": limits.time_limit,
             "starting_kit": "starting_kit.zip", "hide_output": False, "hide_prediction_output": False,
             "hide_score_output": False}
    return {
        "version": 2,
        "title": options.title_of(inputs),
        "description": d.title or d.name,
        "image": "logo.png",
        "terms": "pages/terms.html",
        "docker_image": IMAGE,
        # Approved on registering, unless the organizer asks (--require-approval): with false, Codabench keeps
        # every participant "pending" until approved by hand (api/views/competitions.py register ~351-375).
        "registration_auto_approve": not options.require_approval,
        "make_programs_available": False,
        "make_input_data_available": False,
        "enable_detailed_results": False,
        "pages": [{"title": title, "file": f"pages/{name}.html"} for name, title in PAGE_TITLES],
        "tasks": [{"index": i, "name": f"{d.name}: {split} split",
                   "description": f"agrieval scoring program, {split} split of the solution",
                   "scoring_program": f"scoring_program_{split}.zip", "reference_data": "reference_data.zip"}
                  for i, split in enumerate(("public", "private"))],
        "phases": [
            dict({"index": 0, "name": options.dev_name, "description": "Scored on the public split.",
                  "start": dev_start, "end": dev_end, "tasks": [0]}, **phase),
            # Scored on the public split too: every phase shares the first leaderboard (base_unpacker.py ~324) and a
            # participant sees every score of their own submissions (api/serializers/submissions.py
            # SubmissionSerializer.scores, hidden columns included), so no private score may exist before the end.
            dict({"index": 1, "name": options.final_name,
                  "description": "Scored on the public split; your last submission here is ranked on the private "
                                 "split after the end.",
                  "start": final_start, "end": end, "tasks": [0]}, **phase),
            # The reveal: when it starts, Codabench re-submits each participant's final-phase submission that is
            # on the leaderboard (Force_Last: the last one) to this phase (auto_migrate_to_this_phase;
            # models.py Competition.apply_phase_migration ~116-170), scored by task 1 on the private split. One
            # submission per person: the migrated one counts (Phase.can_user_make_submissions ~326-345).
            dict({"index": 2, "name": options.reveal_name,
                  "description": "The private leaderboard: the final phase's submissions, scored on the private "
                                 "split.",
                  "start": reveal, "end": options.reveal_end_text(), "tasks": [1],
                  "auto_migrate_to_this_phase": True},
                 **dict(phase, max_submissions_per_day=1, max_submissions=1)),
        ],
        "leaderboards": [{"title": "Results", "key": "main", "primary_index": 0, "submission_rule": "Force_Last",
                          "hidden": False, "columns": columns}],
    }


PAGE_TITLES = (("overview", "Overview"), ("evaluation", "Evaluation"), ("data", "Data"), ("terms", "Terms"))


def build(inputs: Inputs, *, split: str = "public", options: Options | None = None) -> Bundle:
    options = options or Options()
    d = inputs.definition
    bundle = Bundle("codabench", d)
    note = shared_files(bundle, inputs, split, "metadata.yaml")
    config = competition(inputs, options)
    config_text = "# Codabench competition bundle (version 2), written by `agrieval bundle codabench`.\n" + dump(config)
    bundle.add("competition.yaml", config_text)
    bundle.add(UPLOAD, upload_zip(bundle, inputs, options, config_text, "metadata.yaml", page_folder="pages/",
                                  kit_readme=STARTING_KIT.format(name=lit.markdown(d.name), validate=VALIDATE_CMD,
                                                                 note=note),
                                  sample_note=note,
                                  upload_how="Codabench takes a zip: put the CSV alone in a zip "
                                             "(<code>zip submission.zip submission.csv</code>) and upload the zip."))
    bundle.add("README.md", _readme(inputs, options, split, note))
    bundle.next_steps = [f"upload {UPLOAD} (Benchmarks -> Management -> Upload)",
                         "set the dates, terms and logo in the editor if the placeholders stay",
                         ("approve each participant before the end, none after it (Participants button; README "
                          "step 3)" if options.require_approval else
                          "participants are approved on registering (--auto-approve), latecomers too (README step 3)"),
                         "after the end: the private ranking appears by itself (README step 5); once it lists the "
                         "re-run entries, untick Auto-run submissions (step 6) and delete every private entry "
                         "without a final-phase submission (step 7)"]
    return bundle


UPLOAD = "codabench_competition.zip"

STARTING_KIT = """# Starting kit: {name}

`sample_submission.csv` holds every id of the test set with a valid prediction that says nothing of the truth
({note}). Replace the predictions with yours, keep the header, the ids and the format.

Check your file before uploading it, with the validator in this kit (Python 3.8+ and numpy, nothing else; it
checks the format and the ids as the grader reads them):

    {validate}

Codabench takes a zip: `zip submission.zip submission.csv`, then upload `submission.zip`. A rejected file fails
with the reason (line, column, a stable code) in the submission's logs.
"""


# The README's step 3: who may submit. Codabench keeps a registration "pending" without auto-approval, and a
# pending participant cannot submit (api/views/competitions.py register ~351-375; api/serializers/submissions.py
# SubmissionCreationSerializer.validate ~157-163).
APPROVAL = """\
3. **Approve each participant** before the end: a registration stays pending, and that person cannot submit,
   until you approve it (`registration_auto_approve: false`): on the competition's page, button Participants
   (shown to organizers), approve each pending request. **Approve no registration after the end**: a latecomer
   left pending gets no private score. (Approving nobody leaves the leaderboard empty; rebuild with
   `--auto-approve` to let everyone in at once, at the cost stated there.)"""
AUTO_APPROVAL = """\
3. Participants are approved as they register (you chose `--auto-approve`; `registration_auto_approve:
   true`). Its cost: someone who registers after the end is approved at once and can upload to the private
   leaderboard phase; steps 6 and 7 are then all that keeps such an entry off the private ranking. To close
   registration at the end, untick "Auto approve registration requests" in the editor's participation tab then."""

# The README's end-of-competition steps, each one checked against Codabench's code (codalab/codabench c7dbc756;
# docs/platform_checks.md). Codabench has no setting that closes one phase to uploads: its upload page offers
# only the phase that is Current, but its API checks no dates, and a phase limit of 0 means no limit.
AFTER_THE_END = """\
5. The reveal is automatic: when {reveal_name} starts ({reveal}, one minute after the end), Codabench
   re-runs each participant's last {final_name} submission (the one on its leaderboard, `Force_Last`; choose
   "Force_Best" in the editor's leaderboard to take each participant's best public score instead) on the private
   split, within minutes (its migration task runs every 300 s). That phase's leaderboard is the private ranking.
6. **Once that leaderboard lists the re-run entries, stop scoring new uploads**: in the editor's details, untick
   "Auto-run submissions" (`auto_run_submissions`). From then on an upload to any phase waits unscored
   ("Submitting") until you run it yourself (`api/serializers/submissions.py` ~128-131 starts a new submission
   only with that box ticked); the re-run entries were started by the migration itself (`competitions/models.py`
   `Competition.apply_phase_migration` ~159-160). Not before the re-run entries are listed: a {final_name} upload
   left unscored keeps the migration waiting (~125-134). Do not set a phase's max submissions to 0: Codabench
   reads 0 as no limit (`Phase.can_user_make_submissions` ~339-344); ending a phase closes only its upload page
   (the submissions API checks no dates).
7. **Remove every private entry without a {final_name} submission**: the private leaderboard phase takes one
   submission per person and the re-run one counts, but an approved participant who made no {final_name}
   submission may still upload one there between {reveal} and step 6. In that phase's submissions (organizer
   view), delete each submission whose author has no finished {final_name} submission (organizers may delete any
   submission, one on the leaderboard too: `api/views/submissions.py` `destroy` ~199-220)."""


def _readme(inputs: Inputs, options: Options, split: str, note: str) -> str:
    d = inputs.definition
    dev_start, dev_end, final_start, end = options.text_dates()
    reveal, reveal_end = options.reveal_text(), options.reveal_end_text()
    approval = (APPROVAL if options.require_approval else AUTO_APPROVAL).format(reveal=reveal)
    after_end = AFTER_THE_END.format(reveal=reveal, reveal_name=lit.markdown_code(options.reveal_name),
                                     final_name=lit.markdown_code(options.final_name))
    return f"""# Codabench competition for {lit.markdown_code(d.name)}

Written by `agrieval bundle codabench`. {runtime_note()}
{solution_notes(inputs)}
**Upload `{UPLOAD}`** on Codabench's bundle upload page (Benchmarks -> Management -> Upload; Codabench's docs:
Organizers/Benchmark_Creation/Competition-Creation-Bundle.md). Its
`competition.yaml` (copy next to this README) names the title "{lit.markdown(options.title_of(inputs))}", the docker image
`{IMAGE}` (Python 3.9, numpy 1.22; the default `codalab/codalab-legacy:py37` is too old), the pages (overview,
evaluation, data, terms), a logo, two tasks (the same program for the public and the private split, one
`reference_data.zip`), three phases and one leaderboard ({lit.markdown_code(inputs.keys[0])} first, {PRECISION} decimals).

Then, in the competition's editor:
1. Dates (UTC; `--dev-start/--final-start/--end/--reveal-end`, or the editor): {lit.markdown_code(options.dev_name)} {dev_start}
   to {dev_end}, {lit.markdown_code(options.final_name)} {final_start} to {end}, {lit.markdown_code(options.reveal_name)} {reveal} to
   {reveal_end}. Replace the terms page and the logo.
2. Publish the competition. The first two phases score the public split: participants see public scores only.
{approval}
4. Participants zip their CSV (`zip submission.zip submission.csv`; Codabench unzips every upload itself).
   The starting kit holds `sample_submission.csv` ({note}) and `validate.py` (Python and numpy alone).
{after_end}
What the phase dates do on Codabench. A phase takes submissions from its start to its end; the page shows each
phase as Next, Current or Previous from those dates. Codabench stores none of the statuses or the "final phase"
mark written in the upload: it recomputes them from the dates, every few minutes, so right after the upload a
phase may show no status for a while. A phase without an end date would show none once it starts, so the private
leaderboard phase ends too ({reveal_end}; any date after its start will do). Change a date in the editor, not by
uploading again (an upload makes a new competition).

Why the final phase scores the public split: a participant sees every score of their own submissions, hidden
leaderboard columns included, so a private score computed before the end would be seen by its author. The
private scores exist only from the reveal on.

What participants see: a rejected submission fails with the reason in its logs (stable codes such as
`[missing_column]`, line and column; no label of the solution, nothing about which ids are private). A failure
on the organizers' side says "this is not your submission's fault" and names only the problem's code; rerun
`agrieval grade SUBMISSION --solution reference_data/solution.csv --competition scoring_program/competition.json`
to see its cause.

Also here, to read or try: `scoring_program/` (the {split} split's program, as zipped in the bundle),
`reference_data/`, `sample_submission.csv`. Try it as the worker lays it out: `input/ref/solution.csv`,
`input/res/<participant files>`, then `python3 scoring_program/score.py input output --show-scores`.

Sources (codalab/codabench at c7dbc756): statuses recomputed by `competitions/tasks.py` `do_phase_migrations`
(every 300 s, `settings/base.py` ~232-235), which makes a phase current only between its start and its end;
the upload's statuses and `is_final_phase` are read-only fields of `api/serializers/competitions.py`
`PhaseSerializer`; registration: `api/views/competitions.py` `register`; the reveal: `competitions/models.py`
`Competition.apply_phase_migration`; who may submit: `api/serializers/submissions.py`
`SubmissionCreationSerializer.validate` (approved participants only) and `create` (scored at once only with
`auto_run_submissions`). Details: the agrieval docs, `docs/organizers.md` and
`docs/platform_checks.md`.
"""
