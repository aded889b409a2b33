"""EvalAI's own challenge-zip validator on a `agrieval bundle evalai` upload: ``validate_challenge_config_util``.

Usage: python evalai_config.py EVALAI_REPO evalai_challenge.zip

What runs is theirs (copied from the fetched repository into a scratch folder):
``apps/challenges/challenge_config_utils.py`` whole (``ValidateChallengeConfigUtil`` and
``validate_challenge_config_util``: title, logo, description, evaluation details, terms, submission guidelines,
evaluation script, dates, leaderboards, phases and their annotation files, dataset splits, phase splits, tags,
domain, prizes), ``apps/base/zip_utils.py`` (the zip is extracted with their ``extract_zip_file`` into
``BASE/UNIQUE/``, as the validator then looks for it), and ``get_file_content``, ``read_file_data_as_content_file``
and ``get_missing_keys_from_dict`` taken from ``apps/challenges/utils.py`` by their source (that module's other
imports, boto and moto among them, are not loaded).

Stubbed (no database): Django settings (defaults only); ``challenges.models`` (names only: a new challenge, so
no ``current_challenge`` query runs); ``challenges.serializers``: every serializer's ``is_valid()`` answers True
and records the data it was given (the DRF field checks are not run; ``docs/platform_checks.md`` lists what the
model serializers would check); the request (``data["GITHUB_REPOSITORY"] = ""``).
"""

from __future__ import annotations

import ast
import json
import sys
import tempfile
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetched import commit, copy_to, read  # noqa: E402

SERIALIZED = []


class _Serializer:
    def __init__(self, data=None, context=None, **_kw):
        self.data, self.errors = data, {}
        SERIALIZED.append((type(self).__name__, sorted((data or {}).keys())))

    def is_valid(self, *a, **kw):
        return True


def _functions_of(source: str, names: set) -> str:
    tree = ast.parse(source)
    return "\n\n".join(ast.get_source_segment(source, node) for node in tree.body
                       if isinstance(node, ast.FunctionDef) and node.name in names)


def main(repo: str, upload: str) -> dict:
    import django
    from django.conf import settings

    settings.configure()
    django.setup()
    scratch = Path(tempfile.mkdtemp(prefix="evalai-config-"))
    copy_to(repo, ["apps/challenges/challenge_config_utils.py", "apps/base/zip_utils.py"], scratch)
    (scratch / "apps/challenges/__init__.py").write_text("")
    (scratch / "apps/base/__init__.py").write_text("")
    utils_src = read(repo, "apps/challenges/utils.py")
    (scratch / "apps/challenges/utils.py").write_text(
        "import os\nfrom django.core.files.base import ContentFile\n\n" + _functions_of(
            utils_src, {"get_file_content", "read_file_data_as_content_file", "get_missing_keys_from_dict"}))
    models = types.ModuleType("challenges.models")
    for name in ("Challenge", "ChallengePhase", "ChallengePhaseSplit", "DatasetSplit", "Leaderboard"):
        setattr(models, name, type(name, (), {}))
    serializers = types.ModuleType("challenges.serializers")
    for name in ("ChallengePhaseCreateSerializer", "DatasetSplitSerializer", "LeaderboardSerializer",
                 "ZipChallengePhaseSplitSerializer", "ZipChallengeSerializer"):
        setattr(serializers, name, type(name, (_Serializer,), {}))
    sys.path.insert(0, str(scratch / "apps"))
    import challenges  # noqa: F401

    sys.modules["challenges.models"] = models
    sys.modules["challenges.serializers"] = serializers
    from challenges import challenge_config_utils as ccu

    base = Path(tempfile.mkdtemp(prefix="evalai-base-"))
    unique = "challenge_zip"
    zip_ref = ccu.extract_zip_file(upload, "r", str(base / unique))
    request = types.SimpleNamespace(data={"GITHUB_REPOSITORY": ""}, user=None)
    errors, data, files = ccu.validate_challenge_config_util(request, 1, str(base), unique, zip_ref, None)
    report = {"repository": "Cloud-CV/EvalAI", "commit": commit(repo), "upload": upload, "ok": not errors,
              "error_messages": errors}
    if data:
        report.update(title=data.get("title"), description_chars=len(data.get("description") or ""),
                      phases=[{"codename": p.get("codename"), "annotation": p.get("test_annotation_file"),
                               "description_chars": len(p.get("description") or ""),
                               # the default visibility of a new submission (apps/jobs/views.py ~359-361)
                               "is_submission_public": p.get("is_submission_public"),
                               # ChallengePhase fields (apps/challenges/models.py ~1000-1008)
                               **{k: p.get(k) for k in ("max_submissions_per_day", "max_submissions_per_month",
                                                        "max_submissions")}}
                              for p in data.get("challenge_phases", [])],
                      dataset_splits=[s.get("codename") for s in data.get("dataset_splits", [])],
                      phase_splits=[(s["challenge_phase_id"], s["dataset_split_id"], s["visibility"])
                                    for s in data.get("challenge_phase_splits", [])],
                      files={k: (None if v is None else [getattr(x, "name", None) for x in v]
                                 if isinstance(v, list) else getattr(v, "name", None)) for k, v in files.items()},
                      serializers_called=SERIALIZED)
    return report


if __name__ == "__main__":
    out = main(sys.argv[1], sys.argv[2])
    print(json.dumps(out, indent=2, default=str))
    sys.exit(0 if out["ok"] else 1)
