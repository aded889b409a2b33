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
Not run: ``save()`` (the DRF serializers and the database); ``docs/platform_checks.md`` lists what it checks.
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
                             "starting_kit": (p["starting_kit"] or {}).get("file_name")} for p in comp["phases"]],
                    leaderboard_columns=[c["key"] for c in comp["leaderboards"][0]["columns"]],
                    datasets_saved=_Data.saved)


if __name__ == "__main__":
    out = main(sys.argv[1], sys.argv[2])
    print(json.dumps(out, indent=2, default=str))
    sys.exit(0 if out["ok"] else 1)
