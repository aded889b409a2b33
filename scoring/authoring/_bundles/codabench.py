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

from agrieval.scoring.authoring._bundles.competition_pages import Options, logo_png, pages
from agrieval.scoring.authoring._bundles.files import (
    Bundle,
    Inputs,
    runtime_note,
    sample_submission,
    solution_notes,
    sorting,
    under,
    zip_bytes,
)
from agrieval.scoring.authoring._bundles.starting_kit import VALIDATE_CMD, validator_py
from agrieval.scoring.authoring._bundles.submission_limits import resolved
from agrieval.scoring.authoring._bundles.yaml_text import dump
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.text import literals as lit
from agrieval.scoring.text.template import Filled, fill, prose

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
    from agrieval_runtime._platforms.codabench import main
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
               page_folder: str, kit_readme: str, sample_note: str, upload_how: Filled) -> bytes:
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
                                  kit_readme=fill(__file__, "codabench_starting_kit.md", name=d.name,
                                                  validate=VALIDATE_CMD, note=note),
                                  sample_note=note,
                                  upload_how=prose("Codabench takes a zip: put the CSV alone in a zip "
                                                   "(<code>zip submission.zip submission.csv</code>) and upload "
                                                   "the zip.")))
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



# The README's step 3 (templates/codabench_approval.md.tmpl, codabench_auto_approval.md.tmpl): who may submit.
# Codabench keeps a registration "pending" without auto-approval, and a pending participant cannot submit
# (api/views/competitions.py register ~351-375; api/serializers/submissions.py
# SubmissionCreationSerializer.validate ~157-163).
# Its end-of-competition steps (templates/codabench_after_the_end.md.tmpl), each one checked against Codabench's
# code (codalab/codabench c7dbc756; docs/platform_checks.md). Codabench has no setting that closes one phase to
# uploads: its upload page offers only the phase that is Current, but its API checks no dates, and a phase limit
# of 0 means no limit.


def _readme(inputs: Inputs, options: Options, split: str, note: str) -> str:
    d = inputs.definition
    dev_start, dev_end, final_start, end = options.text_dates()
    reveal, reveal_end = options.reveal_text(), options.reveal_end_text()
    approval = fill(__file__, "codabench_approval.md" if options.require_approval else "codabench_auto_approval.md")
    after_end = fill(__file__, "codabench_after_the_end.md", reveal=reveal, reveal_name=options.reveal_name,
                     final_name=options.final_name)
    return fill(__file__, "codabench_readme.md", name=d.name, runtime=runtime_note(), notes=solution_notes(inputs),
                upload=UPLOAD, title=options.title_of(inputs), image=IMAGE, primary=inputs.keys[0],
                precision=PRECISION, dev_name=options.dev_name, final_name=options.final_name,
                reveal_name=options.reveal_name, dev_start=dev_start, dev_end=dev_end, final_start=final_start,
                end=end, reveal=reveal, reveal_end=reveal_end, approval=approval, after_end=after_end, note=note,
                split=split)
