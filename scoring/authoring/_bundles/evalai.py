"""EvalAI bundle: an ``evaluation_script/`` package, the annotation file and a challenge_config.yaml snippet.

What EvalAI does (``docs/facts/platforms.md``: Cloud-CV/EvalAI
``scripts/workers/submission_worker.py``, ``apps/challenges/constants.py``):
workers run Python 3.7-3.9 (default 3.9), unzip ``evaluation_script.zip``,
pip-install its ``requirements.txt``, import it as a package and call
``evaluate(annotation_file, user_file, phase_codename, submission_metadata=...)``;
every split codename in ``result`` must be linked to the phase
(``challenge_phase_splits``), and ``submission_result`` is the participant's
"Result file".
"""

from __future__ import annotations

from agrieval.scoring.authoring._bundles.competition_pages import Options, logo_png, pages
from agrieval.scoring.authoring._bundles.files import (
    MIN_NUMPY,
    Bundle,
    Inputs,
    runtime_note,
    sample_submission,
    solution_notes,
    under,
    zip_bytes,
)
from agrieval.scoring.authoring._bundles.starting_kit import VALIDATE_CMD
from agrieval.scoring.authoring._bundles.submission_limits import resolved
from agrieval.scoring.authoring._bundles.yaml_text import dump
from agrieval.scoring.runtime.definition import freeze
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.text import literals as lit
from agrieval.scoring.text.template import fill, join, prose

# A 3.7 worker (EvalAI allows 3.7-3.9: apps/challenges/constants.py) fails the import deep in the runtime; the
# worker saves that traceback as the challenge's evaluation_module_error (submission_worker.py ~486-507): make
# it say what to change.
# Each hole is one Python literal (agrieval.scoring.text.literals.python).
INIT_PY = '''"""EvalAI evaluation script written by `agrieval bundle evalai` for the competition COMPETITION.
Do not edit: rebuild it."""
import sys

COMPETITION = {name}

if sys.version_info < (3, 8):
    raise ImportError("the agrieval evaluation script needs Python 3.8 or newer; this EvalAI worker runs Python "
                      "%d.%d: set the challenge's worker_python_version to 3.9 (EvalAI's default)"
                      % sys.version_info[:2])

from .main import evaluate  # noqa: E402,F401
'''

MAIN_PY = '''"""``evaluate``: the agrieval runtime vendored next to this file, the definition frozen in
competition.json."""
import os

from .agrieval_runtime._platforms.evalai import make_evaluate

evaluate = make_evaluate(os.path.join(os.path.dirname(os.path.abspath(__file__)), "competition.json"))
'''


UPLOAD = "evalai_challenge.zip"


def _phases(d) -> list:
    """(codename, split) of the definition's phases, the public ones first."""
    return sorted(d.split.phases.items(), key=lambda kv: (kv[1] != "public", kv[0]))


def challenge_config(inputs: Inputs, options: Options) -> dict:
    """challenge_config.yaml with every field ``ValidateChallengeConfigUtil`` checks
    (apps/challenges/challenge_config_utils.py, docs/platform_checks.md)."""
    d = inputs.definition
    dev_start, dev_end, final_start, end = options.text_dates()
    phases = _phases(d)
    limits = resolved("evalai", options)
    out_phases, links = [], []
    for i, (codename, split) in enumerate(phases, start=1):
        public = split == "public"
        out_phases.append({
            "id": i, "name": options.dev_name if public else options.final_name,
            "description": f"phase_{codename}.html", "leaderboard_public": True, "is_public": True,
            # A new submission is public unless its author hides it: with false, the public leaderboard lists
            # only the submissions their authors made public one by one, so it stays empty by default
            # (apps/jobs/views.py ~359-361 takes the default from here; apps/jobs/utils.py ~423-427 lists only
            # public submissions on a public split).
            "is_submission_public": True, "start_date": dev_start if public else final_start,
            "end_date": dev_end if public else end, "test_annotation_file": f"annotations/{codename}.csv",
            "codename": codename, "max_submissions_per_day": limits.per_day,
            "max_submissions_per_month": limits.total, "max_submissions": limits.total,
            "allowed_submission_file_types": ".csv, .zip"})
        link = {"challenge_phase_id": i, "leaderboard_id": 1, "leaderboard_decimal_precision": 4,
                "is_leaderboard_order_descending": bool(d.higher_is_better)}
        links.append(dict(link, dataset_split_id=1, visibility=3))
        if not public:
            # Host-only (visibility 1) until the host publishes it.
            links.append(dict(link, dataset_split_id=2, visibility=1))
    return {
        "title": options.title_of(inputs),
        "short_description": (d.title or d.name)[:140],
        "description": "description.html",
        "evaluation_details": "evaluation_details.html",
        "terms_and_conditions": "terms_and_conditions.html",
        "image": "logo.png",
        "submission_guidelines": "submission_guidelines.html",
        "evaluation_script": "evaluation_script.zip",
        "remote_evaluation": False,
        "is_docker_based": False,
        "start_date": dev_start,
        "end_date": end,
        "published": False,
        "leaderboard": [{"id": 1, "schema": {"labels": list(inputs.keys), "default_order_by": inputs.keys[0]}}],
        "challenge_phases": out_phases,
        "dataset_splits": [{"id": 1, "name": "Public", "codename": "public"},
                           {"id": 2, "name": "Private", "codename": "private"}],
        "challenge_phase_splits": links,
    }


# The README's step 2 (templates/evalai_latest_step.md.tmpl). EvalAI ranks each team's best private score unless
# the phase split ranks by the latest submission, and its challenge creation drops that key from
# challenge_config.yaml (apps/challenges/views.py create_challenge_using_zip_file ~2149-2156 and
# create_or_update_github_challenge ~4675-4682 copy six keys of each challenge_phase_splits entry), so the host
# sets it through the API the site's own page calls (challengeCtrl.js toggleShowLeaderboardByLatest ~1543-1548),
# once, before the end.


def build(inputs: Inputs, *, options: Options | None = None, **_options) -> Bundle:
    options = options or Options()
    d = inputs.definition
    if not d.split.phases:
        raise HostError("definition_invalid", f"{d.name}: EvalAI needs [split] phases (phase codename -> public or "
                        "private) in the competition definition")
    bundle = Bundle("evalai", d)
    bundle.add_runtime("evaluation_script")
    bundle.add("evaluation_script/__init__.py", INIT_PY.format(name=lit.python(d.name)))
    bundle.add("evaluation_script/main.py", MAIN_PY)
    bundle.add("evaluation_script/competition.json", freeze(d))
    bundle.add("evaluation_script/requirements.txt", f"numpy>={MIN_NUMPY}\n")
    bundle.add("annotations/solution.csv", inputs.solution_path.read_bytes())
    sample, note = sample_submission(inputs)
    bundle.add("sample_submission.csv", sample)
    config = challenge_config(inputs, options)
    config_text = "# EvalAI challenge configuration, written by `agrieval bundle evalai`.\n" + dump(config)
    bundle.add("challenge_config.yaml", config_text)
    validate_cmd = VALIDATE_CMD  # the starting kit's validate.py: Python and numpy, nothing to install
    page = pages(inputs, options, validate_cmd=validate_cmd, sample_note=note,
                      sample_where="published with the test data",
                 upload_how=prose("Upload the CSV itself (a zip holding it is read too)."))
    upload = {"challenge_config.yaml": config_text.encode(), "logo.png": logo_png(),
              "evaluation_script.zip": zip_bytes(under(bundle, "evaluation_script")),
              "description.html": page["overview"].encode(), "evaluation_details.html": page["evaluation"].encode(),
              "terms_and_conditions.html": page["terms"].encode(),
              "submission_guidelines.html": page["data"].encode()}
    # The package as a folder too: EvalAI-Starters' GitHub action rebuilds evaluation_script.zip from the folder
    # evaluation_script/ of the repository before sending the challenge (github/utils.py
    # create_challenge_zip_file), so the content of this zip can be that repository's root.
    upload.update({f"evaluation_script/{rel}": data for rel, data in under(bundle, "evaluation_script").items()})
    for codename, split in _phases(d):
        upload[f"annotations/{codename}.csv"] = inputs.solution_path.read_bytes()
        host_only = prose(" (host-only until published)") if split == "private" else prose("")
        upload[f"phase_{codename}.html"] = fill(__file__, "evalai_phase.html", codename=codename, split=split,
                                                host_only=host_only).encode()
    bundle.add(UPLOAD, zip_bytes(upload))
    phases = join([fill(__file__, "evalai_phase.md", codename=k, split=v) for k, v in sorted(d.split.phases.items())],
                  ", ")
    dev_start, dev_end, final_start, end = options.text_dates()
    bundle.add("README.md", fill(__file__, "evalai_readme.md", name=d.name, runtime=runtime_note(),
                                 notes=solution_notes(inputs), upload=UPLOAD, title=options.title_of(inputs),
                                 primary=inputs.keys[0], phases=phases, dev_name=options.dev_name,
                                 final_name=options.final_name, dev_start=dev_start, dev_end=dev_end,
                                 final_start=final_start, end=end, note=note,
                                 latest_step=fill(__file__, "evalai_latest_step.md", final_name=options.final_name)))

    bundle.next_steps = [f"put the content of {UPLOAD} in an EvalAI-Starters repository, push to `challenge`",
                         "once approved, before the end: rank the final phase's private split by each team's "
                         "latest submission (README step 2: show_leaderboard_by_latest_submission)",
                         "after the end: make that split public (README step 4)"]
    return bundle

