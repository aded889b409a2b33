"""Codabench's own competition loader on a `agrieval bundle codabench` upload: ``V2Unpacker.unpack()``.

Usage: python codabench_unpacker.py CODABENCH_REPO codabench_competition.zip

What runs is theirs (copied from the fetched repository into a scratch folder): ``competitions/unpackers/v2.py``,
``base_unpacker.py`` and ``utils.py`` (page, task, solution, terms, image, queue, phase and leaderboard reading,
phase ordering and statuses), then ``BaseUnpacker._get_data_key`` for every file a task or phase names (it zips a
folder with their ``zip_if_directory``; a name that is no file must be a UUID of an existing dataset). The zip
is read as ``src/apps/competitions/tasks.py`` ``unpack_competition`` reads it (lines ~366-392: ``extractall``,
``competition.yaml`` at the root, ``yaml.safe_load``, version '2' -> V2Unpacker), those lines restated here.

Stubbed (no database): Django settings (``USE_TZ=True`` only); the modules the unpackers import for saving:
``api.serializers.*`` (never called by ``unpack``), ``competitions.models.Phase`` (the status constants),
``datasets.models.Data`` (records what would be saved), ``queues.models``, ``tasks.models``, ``utils.storage``.
Not run: ``save()`` itself: it writes through the DRF serializers to PostgreSQL (``settings/base.py`` ~187:
``postgresql_psycopg2``, and ``django.contrib.postgres`` among the apps), a network service. What it keeps of a
phase is taken from their code instead (``save_keeps``): the fields ``PhaseSerializer`` declares and lists in
``Meta.fields`` (``api/serializers/competitions.py``, read from its syntax tree), each declared field built with
the real Django REST framework to ask it whether it is read-only (DRF leaves read-only fields out of
``validated_data``, so ``serializer.save()`` never stores them). Then the statuses the site stores later
(``statuses``): ``competitions/tasks.py`` ``do_phase_migrations`` (~672-700), restated over the saved phases at
chosen instants. ``docs/platform_checks.md`` lists what it checks.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import types
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetched import commit, copy_to  # noqa: E402

FILES = ["src/apps/competitions/unpackers/__init__.py", "src/apps/competitions/unpackers/v2.py",
         "src/apps/competitions/unpackers/base_unpacker.py", "src/apps/competitions/unpackers/utils.py"]


def _stub(name: str, **attrs) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


class _Data:
    saved = []

    def __init__(self, **kw):
        self.kw = kw
        self.key = f"data-{len(_Data.saved)}"
        owner = self

        class _File:
            def save(self, name, _file):
                _Data.saved.append({"type": owner.kw.get("type"), "name": name})

        self.data_file = _File()


def main(repo: str, upload: str) -> dict:
    import django
    from django.conf import settings

    settings.configure(USE_TZ=True, TIME_ZONE="UTC")
    django.setup()
    scratch = Path(tempfile.mkdtemp(prefix="cb-unpack-"))
    copy_to(repo, FILES, scratch)
    # `competitions/unpackers/__init__.py` imports v1 and v2; only v2 is exercised: an empty package instead.
    (scratch / "src/apps/competitions/unpackers/__init__.py").write_text("")
    (scratch / "src/apps/competitions/__init__.py").write_text("")
    sys.path.insert(0, str(scratch / "src/apps"))
    for name in ("api", "api.serializers"):
        _stub(name)
    _stub("api.serializers.competitions", CompetitionSerializer=object)
    _stub("api.serializers.leaderboards", LeaderboardSerializer=object)
    _stub("api.serializers.tasks", TaskSerializer=object, SolutionSerializer=object)
    _stub("competitions.models", Phase=types.SimpleNamespace(CURRENT="Current", NEXT="Next", PREVIOUS="Previous"))
    _stub("datasets")
    _stub("datasets.models", Data=_Data)
    _stub("queues")
    _stub("queues.models", Queue=object)
    _stub("tasks")
    _stub("tasks.models", Task=object, Solution=object)
    _stub("utils")
    _stub("utils.storage", md5=lambda path: "")
    import yaml
    from competitions.unpackers.utils import CompetitionUnpackingException
    from competitions.unpackers.v2 import V2Unpacker

    report = {"repository": "codalab/codabench", "commit": commit(repo), "upload": upload}
    with tempfile.TemporaryDirectory() as temp_directory:
        with zipfile.ZipFile(upload) as zf:
            zf.extractall(temp_directory)
        yaml_path = os.path.join(temp_directory, "competition.yaml")
        if not os.path.exists(yaml_path):
            return dict(report, ok=False, error="competition.yaml is missing from zip")
        with open(yaml_path) as f:
            competition_yaml = yaml.safe_load(f.read())
        if str(competition_yaml.get("version", "1")) != "2":
            return dict(report, ok=False, error="not version 2")
        unpacker = V2Unpacker(competition_yaml=competition_yaml, temp_directory=temp_directory,
                              creator=types.SimpleNamespace(id=1, username="organizer"))
        try:
            unpacker.unpack()
            for task in unpacker.competition["tasks"].values():
                for file_type in ("ingestion_program", "input_data", "scoring_program", "reference_data"):
                    if file_type in task:
                        unpacker._get_data_key(**task[file_type])
            for phase in unpacker.competition["phases"]:
                for kind in ("public_data", "starting_kit"):
                    if phase[kind] is not None:
                        unpacker._get_data_key(**phase[kind])
        except CompetitionUnpackingException as exc:
            return dict(report, ok=False, error=str(exc))
        comp = unpacker.competition
        return dict(report, ok=True, title=comp["title"], docker_image=comp["docker_image"],
                    pages=[(p["title"], len(p["content"])) for p in comp["pages"]], terms_chars=len(comp["terms"]),
                    logo=json.loads(comp["logo"])["file_name"],
                    tasks={i: {k: (v["file_name"] if isinstance(v, dict) else v) for k, v in t.items()
                               if k in ("name", "scoring_program", "reference_data")}
                           for i, t in comp["tasks"].items()},
                    phases=[{"name": p["name"], "start": str(p["start"]), "end": str(p["end"]), "tasks": p["tasks"],
                             "status": p.get("status"), "is_final_phase": p.get("is_final_phase", False),
                             "auto_migrate_to_this_phase": p["auto_migrate_to_this_phase"],
                             "max_submissions_per_person": p["max_submissions_per_person"],
                             # the limits `agrieval bundle --per-day/--total/--time-limit` set, as unpacked
                             "max_submissions_per_day": p["max_submissions_per_day"],
                             "execution_time_limit": p.get("execution_time_limit"),
                             "has_max_submissions": p.get("has_max_submissions", False),
                             "starting_kit": (p["starting_kit"] or {}).get("file_name")} for p in comp["phases"]],
                    leaderboard_columns=[c["key"] for c in comp["leaderboards"][0]["columns"]],
                    registration_auto_approve=comp.get("registration_auto_approve"),
                    datasets_saved=_Data.saved, save=saved_phases(repo, comp))


SERIALIZERS = "src/apps/api/serializers/competitions.py"


def save_keeps(repo: str) -> dict:
    """``{"fields": [...], "read_only": [...]}`` of their ``PhaseSerializer``: ``Meta.fields`` from the syntax
    tree; each field declared in the class body built by the real DRF (``rest_framework.serializers``) when it
    needs no database (``SerializerMethodField``...), and asked ``read_only``."""
    import ast

    from fetched import read
    from rest_framework import serializers

    tree = ast.parse(read(repo, SERIALIZERS))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "PhaseSerializer")
    fields, read_only, unbuilt = [], [], []
    for node in cls.body:
        if isinstance(node, ast.ClassDef) and node.name == "Meta":
            for item in node.body:
                if isinstance(item, ast.Assign) and item.targets[0].id == "fields":
                    fields = list(ast.literal_eval(item.value))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            name = node.targets[0].id
            call = node.value
            if not (isinstance(call.func, ast.Attribute) and getattr(call.func.value, "id", "") == "serializers"):
                unbuilt.append(name)
                continue
            try:  # their declaration, evaluated against DRF itself
                field = eval(compile(ast.Expression(call), SERIALIZERS, "eval"), {"serializers": serializers})
            except Exception:  # noqa: BLE001 - a field that needs a queryset: not built here
                unbuilt.append(name)
                continue
            if field.read_only:
                read_only.append(name)
    return {"fields": fields, "read_only": read_only, "not_built": unbuilt}


def statuses(phases: list, instants: list) -> dict:
    """The status ``do_phase_migrations`` stores for each phase at each instant (restated, tasks.py ~672-700):
    previous = the highest index with ``end <= now``; current = one with ``start <= now < end`` (SQL: a null
    ``end`` compares false); next = the lowest index with ``start > now``; any other phase: None."""
    out = {}
    for now in instants:
        ended = [p for p in phases if p["end"] is not None and p["end"] <= now]
        current = [p for p in phases if p["start"] <= now and p["end"] is not None and p["end"] > now]
        future = [p for p in phases if p["start"] > now]
        previous_i = max((p["index"] for p in ended), default=None)
        current_i = current[0]["index"] if current else None
        next_i = min((p["index"] for p in future), default=None)
        out[str(now)] = {p["name"]: ("Previous" if p["index"] == previous_i else "Current" if p["index"] == current_i
                                     else "Next" if p["index"] == next_i else None) for p in phases}
    return out


def saved_phases(repo: str, comp: dict) -> dict:
    """What ``save()`` keeps of each unpacked phase, and the statuses the site then stores over time."""
    import datetime as dt

    keeps = save_keeps(repo)
    kept = [{k: v for k, v in p.items() if k in keeps["fields"] and k not in keeps["read_only"]}
            for p in comp["phases"]]
    dropped = sorted({k for p in comp["phases"] for k in p if k in keeps["read_only"]})
    for phase, unpacked in zip(kept, comp["phases"]):
        phase.setdefault("index", unpacked["index"])
        phase.setdefault("end", None)
    instants = sorted({p["start"] + dt.timedelta(hours=1) for p in kept})
    return {"phase_serializer": keeps, "dropped_on_save": dropped,
            "stored_status_on_save": {p["name"]: p.get("status") for p in kept},
            "stored_status_later": statuses(kept, instants)}


if __name__ == "__main__":
    out = main(sys.argv[1], sys.argv[2])
    print(json.dumps(out, indent=2, default=str))
    sys.exit(0 if out["ok"] else 1)
