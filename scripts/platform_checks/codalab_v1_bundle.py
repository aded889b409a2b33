"""What CodaLab v1's ``CompetitionDefBundle.unpack`` reads, checked on a `agrieval bundle codalab` upload.

Usage: python codalab_v1_bundle.py CODALAB_COMPETITIONS_REPO codalab_competition.zip

``unpack`` (codalab/codalab-competitions ``codalab/apps/web/models.py`` ~1875-2340) is a Django model method that
writes to the database at every step, so it is not run whole. Run from their code: the YAML reading, with the
ordered-mapping constructor of lines ~1897-1909 (``yaml.full_load``), the field lists of ``Competition`` and
``CompetitionPhase`` read from models.py by its syntax tree (``Competition(**comp_base)`` and
``CompetitionPhase.objects.get_or_create(**phase_spec)`` take the YAML keys as field names: an unknown one is a
TypeError), Django's ``parse_datetime`` for the dates (``localize_datetime`` ~1856-1868), and
``LeaderboardManagementMode.is_valid`` (~850-862). Restated from the lines cited: the first ``*.yaml`` of the
zip (~1893), the html pages read with ``zf.read`` (~1979-2012: overview, evaluation, terms, data required), every
phase's ``.zip`` files read with ``zf.read`` (~2076-2206), reference data required (~2122), and the leaderboard
(~2245-2311: each column's ``leaderboard.label`` names a leaderboard).

Stubbed: Django settings (defaults only); no model is imported.
"""

from __future__ import annotations

import ast
import datetime
import io
import json
import sys
import zipfile
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetched import commit, read  # noqa: E402


def model_fields(source: str, class_name: str) -> set:
    """Names assigned in the class body of ``class_name`` (its fields), and the ForeignKey ``_id`` forms."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            names = set()
            for item in node.body:
                if isinstance(item, ast.Assign):
                    names.update(t.id for t in item.targets if isinstance(t, ast.Name))
            return names
    raise KeyError(class_name)


def main(repo: str, upload: str) -> dict:
    import django
    import yaml
    from django.conf import settings

    settings.configure(USE_TZ=True)
    django.setup()
    from django.utils.dateparse import parse_datetime

    models_src = read(repo, "codalab/apps/web/models.py")
    comp_fields = model_fields(models_src, "Competition")
    phase_fields = model_fields(models_src, "CompetitionPhase")
    errors = []
    zf = zipfile.ZipFile(upload)
    comp_spec_file = [x for x in zf.namelist() if ".yaml" in x][0]
    yaml_contents = zf.open(comp_spec_file).read()
    _mapping_tag = yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG

    def dict_constructor(loader, node):
        return OrderedDict(loader.construct_pairs(node))

    yaml.add_constructor(_mapping_tag, dict_constructor)
    comp_spec = yaml.full_load(yaml_contents)
    comp_base = {k: v for k, v in comp_spec.items() if k not in ("html", "phases", "leaderboard")}
    unknown = sorted(set(comp_base) - comp_fields - {"admin_names"})
    if unknown:
        errors.append(f"Competition(**comp_base): unknown fields {unknown}")

    def localize(dt):
        if type(dt) is str:
            dt = parse_datetime(dt)
        if type(dt) is datetime.date:
            dt = datetime.datetime.combine(dt, datetime.time())
        if type(dt) is not datetime.datetime:
            raise ValueError("Expected a DateTime object but got %s" % dt)
        return dt

    if comp_base.get("end_date") is not None:
        localize(comp_base["end_date"])
    if "image" in comp_base:
        zf.read(comp_base["image"])
    html = comp_spec.get("html") or {}
    for page in ("overview", "evaluation", "terms", "data"):
        if page not in html:
            errors.append(f"html: no {page} (KeyError in unpack)")
        else:
            zf.read(html[page]).decode("utf-8")
    namespace = {}
    mode_src = ast.get_source_segment(models_src, next(
        n for n in ast.parse(models_src).body
        if isinstance(n, ast.ClassDef) and n.name == "_LeaderboardManagementMode"))
    exec(mode_src + "\nLeaderboardManagementMode = _LeaderboardManagementMode()\n", namespace)  # noqa: S102
    modes = namespace["LeaderboardManagementMode"]
    phases = []
    for p_num, spec in comp_spec["phases"].items():
        unknown = sorted(set(spec) - phase_fields - {"datasets"})
        if unknown:
            errors.append(f"phase {p_num}: CompetitionPhase(**phase_spec): unknown fields {unknown}")
        if "leaderboard_management_mode" in spec and not modes.is_valid(spec["leaderboard_management_mode"]):
            errors.append(f"phase {p_num}: invalid leaderboard_management_mode (reverted to default)")
        start = localize(spec["start_date"])
        if not spec.get("reference_data"):
            errors.append(f"phase {p_num}: no reference data")
        for kind in ("scoring_program", "reference_data", "starting_kit", "public_data", "input_data"):
            if spec.get(kind):
                if not spec[kind].endswith(".zip"):
                    errors.append(f"phase {p_num}: {kind} is no .zip (looked up as a dataset key)")
                else:
                    zipfile.ZipFile(io.BytesIO(zf.read(spec[kind]))).namelist()
        phases.append({"phasenumber": spec["phasenumber"], "label": spec.get("label"), "start": str(start),
                       "scoring_program": spec.get("scoring_program"),
                       "blind": spec.get("leaderboard_management_mode") == modes.HIDE_RESULTS,
                       # CompetitionPhase fields (models.py ~887-898), passed as they are by create_competition
                       **{k: spec.get(k) for k in ("max_submissions", "max_submissions_per_day",
                                                   "execution_time_limit")}})
    board = comp_spec.get("leaderboard") or {}
    labels = {v["label"].strip() for v in (board.get("leaderboards") or {}).values()}
    columns = list((board.get("columns") or {}).keys())
    for key, vals in (board.get("columns") or {}).items():
        if vals["leaderboard"]["label"] not in labels:
            errors.append(f"column {key}: leaderboard {vals['leaderboard']['label']!r} not defined (KeyError)")
    return {"repository": "codalab/codalab-competitions", "commit": commit(repo), "upload": upload,
            "ok": not errors, "errors": errors, "yaml": comp_spec_file, "title": comp_base.get("title"),
            "docker_image": comp_base.get("competition_docker_image"), "pages": sorted(html), "phases": phases,
            "columns": columns}


if __name__ == "__main__":
    out = main(sys.argv[1], sys.argv[2])
    print(json.dumps(out, indent=2, default=str))
    sys.exit(0 if out["ok"] else 1)
