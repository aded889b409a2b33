"""What each platform's loader reads from the organizer's upload, field by field, as plain checks.

CI cannot fetch the platforms' code; ``scripts/platform_checks/`` runs the real loaders (codabench_unpacker.py,
evalai_config.py, hf_competition_info.py, codalab_v1_bundle.py). These functions restate the checks those
loaders make, with the file and line they come from (``docs/platform_checks.md``, "What the loaders read").
Each returns the list of problems the platform would raise (empty: accepted).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile

import yaml


def opened(files: dict, prefix: str = ""):
    """``(path, bytes)`` of every file of a bundle, sorted, each zip opened in place (``a.zip!member``)."""
    for rel, data in sorted(files.items()):
        if rel.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                yield from opened({n: zf.read(n) for n in zf.namelist()}, f"{prefix}{rel}!")
        else:
            yield prefix + rel, data


def _zip(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


def _date(value):
    if isinstance(value, dt.datetime):
        return value
    return dt.datetime.strptime(str(value), "%Y-%m-%d %H:%M:%S")


def _nonempty(zf: zipfile.ZipFile, name) -> bool:
    return isinstance(name, str) and name in zf.namelist() and len(zf.read(name)) > 0


def codabench(upload: bytes) -> list:
    """codalab/codabench src/apps/competitions/tasks.py ~366-392 and unpackers/v2.py, base_unpacker.py."""
    zf = _zip(upload)
    if "competition.yaml" not in zf.namelist():  # tasks.py ~375-378
        return ["competition.yaml is missing from zip"]
    y = yaml.safe_load(zf.read("competition.yaml"))
    errors = []
    if str(y.get("version", "1")) != "2":  # tasks.py ~382-388
        errors.append("not version 2")
    if not y.get("title"):  # v2.py line 12 (a competition without a title fails the serializer)
        errors.append("no title")
    for page in y.get("pages") or []:  # v2.py lines 47-64: each file exists and is not empty
        if not _nonempty(zf, page.get("file")):
            errors.append(f"page {page.get('file')!r} missing or empty")
    if not y.get("pages"):
        errors.append("no pages")
    tasks = {}
    for task in y.get("tasks") or []:  # v2.py lines 66-108: index, no duplicate, a scoring program
        if "index" not in task:
            errors.append("task without index")
            continue
        if task["index"] in tasks:
            errors.append(f"duplicate task index {task['index']}")
        if "scoring_program" not in task:
            errors.append(f"task {task['index']} has no scoring program")
        for kind in ("ingestion_program", "input_data", "scoring_program", "reference_data"):
            # base_unpacker.py ~35-59: a path that is not in the bundle must be the UUID of a dataset
            if kind in task and task[kind] not in zf.namelist():
                errors.append(f"task {task['index']}: cannot find dataset {task[kind]!r}")
        tasks[task["index"]] = task
    if not y.get("tasks"):
        errors.append("no tasks")
    if not _nonempty(zf, y.get("terms")):  # v2.py lines 160-179
        errors.append("terms missing or empty")
    if y.get("image") not in zf.namelist():  # base_unpacker.py lines 61-71, 200-206
        errors.append("image missing")
    phases = sorted(y.get("phases") or [], key=lambda p: p.get("index", 0))  # v2.py lines 181-239
    if not phases:
        errors.append("no phases")
    for i, phase in enumerate(phases):
        if "tasks" not in phase:
            errors.append(f"phase {phase.get('name')} has no tasks")
        elif any(t not in tasks for t in phase["tasks"]):
            errors.append(f"phase {phase.get('name')} names an unknown task")
        for kind in ("public_data", "starting_kit"):
            if kind in phase and phase[kind] not in zf.namelist():
                errors.append(f"phase {phase.get('name')}: cannot find {kind} {phase[kind]!r}")
        if i:  # base_unpacker.py lines 115-135: each phase but the last ends, strictly before the next starts
            before = phases[i - 1]
            if not before.get("end"):
                errors.append(f"phase {before.get('name')} must have an end time")
            elif _date(phase["start"]) <= _date(before["end"]):
                errors.append(f"phase {phase.get('name')} starts before {before.get('name')} has ended")
    boards = y.get("leaderboards")
    if not boards:  # v2.py lines 241-249
        errors.append("no leaderboards")
    for board in boards or []:  # api/serializers/leaderboards.py LeaderboardSerializer.validate_columns
        columns = board.get("columns") or []
        if not columns:
            errors.append("leaderboard without columns")
        if len({c["index"] for c in columns}) != len(columns) or len({c["key"] for c in columns}) != len(columns):
            errors.append("column indexes and keys must be unique")
        if board.get("primary_index", 0) not in {c["index"] for c in columns}:
            errors.append("primary_index names no column")
    return errors


EVALAI_HTML = ("description", "evaluation_details", "terms_and_conditions", "submission_guidelines")
EVALAI_LINK_KEYS = {"is_leaderboard_order_descending", "leaderboard_decimal_precision", "visibility",
                    "dataset_split_id", "leaderboard_id", "challenge_phase_id"}


def evalai(upload: bytes) -> list:
    """Cloud-CV/EvalAI apps/challenges/challenge_config_utils.py (ValidateChallengeConfigUtil)."""
    zf = _zip(upload)
    names = zf.namelist()
    if names.count("challenge_config.yaml") != 1:  # lines 56-80, 411-423
        return ["no challenge_config.yaml at the zip's root"]
    y = yaml.safe_load(zf.read("challenge_config.yaml"))
    errors = []
    if not y.get("title"):  # lines 533-537
        errors.append("missing title")
    for key in EVALAI_HTML:  # lines 115-148, 565-662: a path to an existing .html file
        value = y.get(key)
        if not value or value not in names or not str(value).endswith(".html"):
            errors.append(f"{key}: no HTML file")
    script = y.get("evaluation_script")  # lines 664-704
    if not script or not script.endswith(".zip") or script not in names:
        errors.append("evaluation_script: no zip")
    if not y.get("start_date") or not y.get("end_date"):  # lines 706-718
        errors.append("missing dates")
    elif str(y["start_date"]) > str(y["end_date"]):
        errors.append("start date after end date")
    leaderboard_ids = []
    for board in y.get("leaderboard") or []:  # lines 741-816
        schema = board.get("schema") or {}
        labels = schema.get("labels", [])
        if "id" not in board or "labels" not in schema or schema.get("default_order_by") not in labels:
            errors.append("leaderboard: id, schema.labels and default_order_by (one of the labels) needed")
        else:
            leaderboard_ids.append(board["id"])
    if not y.get("leaderboard"):
        errors.append("missing leaderboard")
    phase_ids, codenames = [], []
    for phase in y.get("challenge_phases") or []:  # lines 818-988
        if "codename" not in phase or phase["codename"] in codenames:
            errors.append("phase codename missing or repeated")
        codenames.append(phase.get("codename"))
        if phase.get("test_annotation_file") not in names:
            errors.append(f"phase {phase.get('name')}: no test annotation file")
        if not phase.get("description"):
            errors.append(f"phase {phase.get('name')}: no description")
        if not phase.get("start_date") or not phase.get("end_date"):
            errors.append(f"phase {phase.get('id')}: missing dates")
        elif str(phase["start_date"]) > str(phase["end_date"]):
            errors.append(f"phase {phase.get('id')}: start after end")
        if phase.get("is_submission_public") and phase.get("is_restricted_to_select_one_submission"):
            errors.append("is_submission_public with is_restricted_to_select_one_submission")
        phase_ids.append(phase.get("id"))
    if not y.get("challenge_phases"):
        errors.append("missing challenge_phases")
    split_ids, split_codenames = [], []
    for split in y.get("dataset_splits") or []:  # lines 1162-1219
        if not split.get("name") or "codename" not in split or split["codename"] in split_codenames:
            errors.append("dataset split: name and unique codename needed")
        split_codenames.append(split.get("codename"))
        split_ids.append(split.get("id"))
    if not y.get("dataset_splits"):
        errors.append("missing dataset_splits")
    links = y.get("challenge_phase_splits") or []
    if not links:  # lines 990-1160
        errors.append("missing challenge_phase_splits")
    triples = [(s.get("leaderboard_id"), s.get("challenge_phase_id"), s.get("dataset_split_id")) for s in links]
    if len(set(triples)) != len(triples):
        errors.append("duplicate phase-split combinations")
    for link in links:
        if not EVALAI_LINK_KEYS <= set(link):
            errors.append(f"phase split: missing {sorted(EVALAI_LINK_KEYS - set(link))}")
            continue
        if (link["leaderboard_id"] not in leaderboard_ids or link["challenge_phase_id"] not in phase_ids
                or link["dataset_split_id"] not in split_ids):  # lines 206-249
            errors.append(f"phase split {link}: unknown id")
    return errors


# huggingface/competitions competitions/info.py lines 74-162: the keys CompetitionInfo's properties read with
# config[...] (a missing one is a KeyError when the Space reads it); HARDWARE, DATASET, SUBMISSION_FILENAMES
# have defaults (config.get).
HF_REQUIRED_KEYS = ("SUBMISSION_LIMIT", "SELECTION_LIMIT", "END_DATE", "EVAL_HIGHER_IS_BETTER", "SUBMISSION_COLUMNS",
                    "LOGO", "COMPETITION_TYPE", "EVAL_METRIC", "SUBMISSION_ID_COLUMN", "SUBMISSION_ROWS", "TIME_LIMIT")
HF_REQUIRED_FILES = ("conf.json", "COMPETITION_DESC.md", "DATASET_DESC.md")  # info.py lines 15-35


def hf(files: dict) -> list:
    """``files``: name -> bytes of the dataset repository."""
    errors = [f"{name} missing" for name in HF_REQUIRED_FILES if name not in files]
    if "conf.json" not in files:
        return errors
    conf = json.loads(files["conf.json"])
    errors += [f"conf.json: no {key}" for key in HF_REQUIRED_KEYS if key not in conf]
    try:
        dt.datetime.strptime(conf.get("END_DATE", ""), "%Y-%m-%d")  # info.py lines 82-85
    except ValueError:
        errors.append("END_DATE is not YYYY-MM-DD")
    try:
        int(conf.get("EVAL_HIGHER_IS_BETTER"))  # info.py lines 87-90
    except (TypeError, ValueError):
        errors.append("EVAL_HIGHER_IS_BETTER is not 0/1")
    if conf.get("EVAL_METRIC") == "custom" and not conf.get("SCORING_METRIC"):  # info.py lines 58-62, 155-161
        errors.append("custom metric without SCORING_METRIC")
    if conf.get("EVAL_METRIC") == "custom" and "metric.py" not in files:  # compute_metrics.py lines 10-20
        errors.append("metric.py missing")
    return errors


# codalab/codalab-competitions codalab/apps/web/models.py: the field names of Competition (~242-300) and
# CompetitionPhase (~868-960) that a bundle may set (Competition(**comp_base) ~1930,
# CompetitionPhase.objects.get_or_create(**phase_spec) ~2067 take the YAML keys as field names).
V1_COMPETITION_FIELDS = {"title", "description", "url_redirect", "image", "image_url_base", "has_registration",
                         "start_date", "end_date", "published", "force_submission_to_leaderboard",
                         "disallow_leaderboard_modifying", "enable_medical_image_viewer", "enable_detailed_results",
                         "show_datasets_from_yaml", "reward", "allow_teams", "enable_per_submission_metadata",
                         "allow_public_submissions", "enable_forum", "anonymous_leaderboard", "enable_teams",
                         "require_team_approval", "hide_top_three", "hide_chart", "allow_organizer_teams",
                         "competition_docker_image", "admin_names"}
V1_PHASE_FIELDS = {"description", "phasenumber", "label", "start_date", "max_submissions", "max_submissions_per_day",
                   "is_scoring_only", "scoring_program", "reference_data", "input_data", "datasets",
                   "leaderboard_management_mode", "force_best_submission_to_leaderboard", "auto_migration",
                   "execution_time_limit", "color", "max_submission_size", "phase_never_ends",
                   "scoring_program_docker_image", "default_docker_image", "disable_custom_docker_image",
                   "starting_kit", "public_data", "ingestion_program"}


def codalab_v1(upload: bytes) -> list:
    """CompetitionDefBundle.unpack (models.py ~1875-2340)."""
    zf = _zip(upload)
    specs = [x for x in zf.namelist() if ".yaml" in x]  # ~1893
    if not specs:
        return ["no yaml in the bundle"]
    y = yaml.safe_load(zf.read(specs[0]))
    errors = []
    base = {k for k in y if k not in ("html", "phases", "leaderboard")}
    if base - V1_COMPETITION_FIELDS:
        errors.append(f"unknown competition fields {sorted(base - V1_COMPETITION_FIELDS)}")
    if y.get("image") and y["image"] not in zf.namelist():  # ~1965-1973
        errors.append("logo missing")
    html = y.get("html") or {}
    for page in ("overview", "evaluation", "terms", "data"):  # ~1979-2012
        if html.get(page) not in zf.namelist():
            errors.append(f"html {page} missing")
    for number, phase in (y.get("phases") or {}).items():  # ~2035-2240
        if set(phase) - V1_PHASE_FIELDS:
            errors.append(f"phase {number}: unknown fields {sorted(set(phase) - V1_PHASE_FIELDS)}")
        if not phase.get("reference_data"):
            errors.append(f"phase {number}: no reference data")  # ~2122
        for kind in ("scoring_program", "reference_data", "starting_kit", "public_data", "input_data"):
            if phase.get(kind) and phase[kind] not in zf.namelist():
                errors.append(f"phase {number}: {kind} not in the bundle")
        if phase.get("leaderboard_management_mode", "default") not in ("default", "hide_results"):  # ~850-862
            errors.append(f"phase {number}: invalid leaderboard mode")
    if not y.get("phases"):
        errors.append("no phases")
    board = y.get("leaderboard") or {}
    labels = {v["label"] for v in (board.get("leaderboards") or {}).values()}
    for key, column in (board.get("columns") or {}).items():  # ~2272-2311
        if column.get("leaderboard", {}).get("label") not in labels:
            errors.append(f"column {key}: unknown leaderboard")
    return errors
