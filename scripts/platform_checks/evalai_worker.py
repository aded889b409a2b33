"""Run Cloud-CV/EvalAI's own submission worker (``scripts/workers/submission_worker.py``) on an agrieval bundle.

    python evalai_worker.py EVALAI_REPO BUNDLE_DIR PHASE:SUBMISSION [PHASE:SUBMISSION ...]

EVALAI_REPO is the fetched repository (bare git dir or checkout); BUNDLE_DIR is what ``agrieval bundle evalai``
wrote; PHASE is a phase codename of its challenge_config.yaml. Run it under a worker Python (3.7-3.9) with
``requests`` and ``pyyaml`` (the worker imports both); the worker itself pip-installs the bundle's
requirements.txt into that interpreter, constrained by ``requirements/worker_py3_X.txt`` (needs the package
index). Prints one JSON report.

The worker's own functions run: ``extract_challenge_data`` (download of evaluation_script.zip and the
annotation file with ``requests.get``, ``safe_extract_zip_file`` from ``apps/base/zip_utils.py``, pip install,
``importlib.import_module("challenge_data.challenge_1")``), ``process_submission_message`` ->
``extract_submission_data`` -> ``run_submission``. Served from a local HTTP server on 127.0.0.1, as the dev
settings' ``return_file_url_per_environment`` builds the URLs. Stubbed (no Django, database, SQS or S3 here):
the Django modules and models it imports; ``ChallengePhaseSplit.objects.get`` answers from the bundle's
``challenge_phase_splits`` (and raises, as the ORM does, for a split not linked to the phase); file fields
record what ``.save`` stores. The upload is stored as ``<uuid4><ext>`` as ``SubmissionArtifactFileName``
(``apps/base/utils.py`` ~95-149) names it.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import types
import uuid
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetched  # noqa: E402

SERVED: dict = {}  # url path -> local file


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        path = SERVED.get(self.path)
        if path is None:
            self.send_response(404)
            self.end_headers()
            return
        data = Path(path).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_a):
        pass


class FileField:
    def __init__(self, name="", url=""):
        self.name, self.url, self.saved = name, url, None

    def save(self, name, content):
        self.name, self.saved = name, content.data


def stub_django(config: dict, port: int):
    """The modules submission_worker.py imports (lines 23-46), with what it uses of them."""
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m

    class ContentFile:
        def __init__(self, data):
            self.data = data.decode() if isinstance(data, bytes) else data

    class DoesNotExist(Exception):
        pass

    phase_splits = config["challenge_phase_splits"]
    splits = {s["id"]: s["codename"] for s in config["dataset_splits"]}

    class PhaseSplitManager:
        def get(self, challenge_phase, dataset_split__codename):
            for link in phase_splits:
                if link["challenge_phase_id"] == challenge_phase.id and \
                        splits[link["dataset_split_id"]] == dataset_split__codename:
                    return types.SimpleNamespace(dataset_split=types.SimpleNamespace(codename=dataset_split__codename),
                                                 leaderboard=link["leaderboard_id"], visibility=link["visibility"])
            raise DoesNotExist("ChallengePhaseSplit matching query does not exist.")

    class LeaderboardData:
        created: list = []

        class objects:  # noqa: N801 - Django's manager name
            @staticmethod
            def filter(**kw):
                return types.SimpleNamespace(update=lambda **k: None)

            @staticmethod
            def bulk_create(rows):
                LeaderboardData.created.extend(rows)

    class Submission:
        RUNNING, FINISHED, FAILED, CANCELLED = "running", "finished", "failed", "cancelled"
        rows: dict = {}

        class objects:  # noqa: N801
            @staticmethod
            def select_related(*_a):
                return types.SimpleNamespace(get=lambda id: Submission.rows[id])

    settings = types.SimpleNamespace(DJANGO_SERVER="127.0.0.1", DJANGO_SERVER_PORT=port, DEBUG=True, TEST=False)
    module("django", setup=lambda: None, db=types.SimpleNamespace(close_old_connections=lambda: None))
    module("django.conf", settings=settings)
    module("django.core")
    module("django.core.files")
    module("django.core.files.base", ContentFile=ContentFile)
    module("django.utils", timezone=types.SimpleNamespace(now=lambda: "now"))
    module("base")
    module("base.utils", get_or_create_sqs_queue=lambda *a: None)
    module("challenges")
    module("challenges.aws_utils", trigger_eks_node_autoscale=lambda *a, **k: None)
    module("challenges.models", Challenge=object, LeaderboardData=LeaderboardData,
           ChallengePhaseSplit=types.SimpleNamespace(objects=PhaseSplitManager()))
    module("jobs")
    module("jobs.models", Submission=Submission)
    module("jobs.s3_retention", enqueue_submission_artifact_retention_tagging=lambda *a, **k: None,
           log_submission_artifact_upload_context=lambda *a, **k: None)
    module("jobs.serializers", SubmissionSerializer=lambda s: types.SimpleNamespace(data={"id": s.id}))
    return Submission, LeaderboardData


def zip_folder(folder: Path, dest: Path) -> Path:
    """As the bundle README says: zipped from inside evaluation_script/ (EVALAI_ZIP_WITH_FOLDER=1: the folder
    itself at the zip's root, to see what the worker makes of that)."""
    prefix = folder.name + "/" if os.environ.get("EVALAI_ZIP_WITH_FOLDER") == "1" else ""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, prefix + str(p.relative_to(folder)))
    return dest


def main(argv: list) -> int:
    import yaml

    repo, bundle, *cases = argv
    bundle = Path(bundle)
    scratch = Path(tempfile.mkdtemp(prefix="evalai_check_"))
    config = yaml.safe_load((bundle / "challenge_config.yaml").read_text())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Submission, LeaderboardData = stub_django(config, server.server_address[1])
    src = fetched.copy_to(repo, ["scripts/workers/submission_worker.py", "apps/base/zip_utils.py",
                                 f"requirements/worker_py{sys.version_info[0]}_{sys.version_info[1]}.txt"],
                          scratch / "evalai")
    sys.path.insert(0, str(src / "scripts" / "workers"))
    sys.path.insert(0, str(src / "apps"))
    import base  # the stub package: give it the real zip_utils module

    base.__path__ = [str(src / "apps" / "base")]
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # the worker logs to stdout; the report goes to the real one
    try:
        import submission_worker as w

        SERVED["/media/evaluation_script.zip"] = str(zip_folder(bundle / "evaluation_script", scratch / "es.zip"))
        SERVED["/media/annotations/solution.csv"] = str(bundle / "annotations" / "solution.csv")
        phases = [types.SimpleNamespace(id=p["id"], codename=p["codename"], disable_logs=False,
                                        test_annotation=FileField("annotations/solution.csv",
                                                                  "/media/annotations/solution.csv"))
                  for p in config["challenge_phases"]]
        challenge = types.SimpleNamespace(id=1, evaluation_script=FileField("evaluation_script.zip",
                                                                            "/media/evaluation_script.zip"),
                                          remote_evaluation=False, is_static_dataset_code_upload=False,
                                          save=lambda: None,
                                          challengephase_set=types.SimpleNamespace(all=lambda: phases))
        for p in phases:
            p.challenge, p.challenge_id = challenge, 1
        w.create_dir_as_python_package(w.COMPUTE_DIRECTORY_PATH)  # main(), lines ~1044-1045
        sys.path.append(w.COMPUTE_DIRECTORY_PATH)
        try:
            w.load_challenge(challenge)
        except Exception:  # noqa: BLE001 - the worker re-raises after storing evaluation_module_error
            cases = []
        report = {"repo_commit": fetched.commit(repo), "python": sys.version.split()[0],
                  "evaluation_module_error": getattr(challenge, "evaluation_module_error", None),
                  "pip_constraint": os.environ.get("PIP_CONSTRAINT", "").split("/")[-1], "submissions": []}
        for sub_id, case in enumerate(cases, start=1):
            codename, upload = case.split(":", 1)
            phase = next(p for p in phases if p.codename == codename)
            stored = f"submission_files/challenge_1/phase_{phase.id}/submission_{sub_id}/{uuid.uuid4()}" \
                     f"{os.path.splitext(upload)[1]}"
            SERVED["/media/" + stored] = upload
            sub = types.SimpleNamespace(id=sub_id, status="submitted", challenge_phase=phase,
                                        input_file=FileField(stored, "/media/" + stored), save=lambda: None,
                                        refresh_from_db=lambda: None, stdout_file=FileField(),
                                        stderr_file=FileField(), submission_result_file=FileField(),
                                        submission_metadata_file=FileField())
            Submission.rows[sub_id] = sub
            LeaderboardData.created.clear()
            w.process_submission_message({"challenge_pk": 1, "phase_pk": phase.id, "submission_pk": sub_id})
            report["submissions"].append({
                "phase": codename, "upload": os.path.basename(upload), "stored_as": os.path.basename(stored),
                "status": sub.status, "stdout_file": sub.stdout_file.saved, "stderr_file": sub.stderr_file.saved,
                "submission_result_file": sub.submission_result_file.saved,
                "leaderboard": [{"split": r.challenge_phase_split.dataset_split.codename,
                                 "visibility": r.challenge_phase_split.visibility, "result": r.result}
                                for r in LeaderboardData.created]})
    finally:
        sys.stdout = real_stdout
        server.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)
        if "submission_worker" in sys.modules:
            shutil.rmtree(sys.modules["submission_worker"].BASE_TEMP_DIR, ignore_errors=True)
    print(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
