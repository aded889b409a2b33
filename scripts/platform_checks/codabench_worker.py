"""Run codalab/codabench's own compute worker (``compute_worker/compute_worker.py``, ``run_wrapper``) on a bundle.

    python codabench_worker.py CODABENCH_REPO BUNDLE_DIR IMAGE_PYTHON SUBMISSION [SUBMISSION ...]

CODABENCH_REPO is the fetched repository (bare git dir or checkout); BUNDLE_DIR is what
``agrieval bundle codabench`` wrote; IMAGE_PYTHON is the interpreter standing for the competition's docker image;
each SUBMISSION is a CSV (zipped at the root of a results zip, as a participant uploads it) or a ready .zip.
The interpreter running this script needs the worker's packages (``compute_worker/pyproject.toml``: celery,
docker, requests, websockets, pyyaml, loguru, rich). Prints one JSON report.

Each submission goes through both steps as the site sends them (``src/apps/competitions/tasks.py``
``_send_to_compute_worker``): a prediction run with the upload as ``program_data``, whose ``prediction_result``
zip becomes the scoring run's ``input/res``, then a scoring run with the bundle's zipped ``scoring_program`` and
``reference_data``. Everything of the worker is its own code; stubbed, because there is no docker, network or
site here:
- ``docker.APIClient``: ``create_container`` records the command, binds and working dir; ``start`` runs the
  command (split as docker-py splits a string command, ``shlex.split``) as a local process under IMAGE_PYTHON
  with the container's environment, each ``/app/...`` bind replaced by its host folder (arguments and working
  dir), then ``attach``/``wait`` hand back its stdout, stderr and exit code;
- ``requests.Session`` (PATCH status, PUT files, POST scores: recorded), ``urlretrieve`` (serves the zips from
  memory), ``websockets.connect`` (accepts and drops log lines).
The site's ``upload_submission_scores`` (``src/apps/api/views/submissions.py`` ~578-582: keys that are not
leaderboard column keys are skipped) is modelled on the bundle's competition.yaml.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetched  # noqa: E402

STORE: dict = {}  # url -> bytes: the site's storage
CALLS: list = []  # (method, url, payload) in order


class FakeResponse:
    status_code = 200
    content = b"{}"


class FakeSession:
    def mount(self, *_a):
        pass

    def patch(self, url, data, timeout=None):
        CALLS.append(("PATCH", url, {k: v for k, v in data.items() if k != "secret"}))
        return FakeResponse()

    def put(self, url, data=None, headers=None):
        body = data.read() if hasattr(data, "read") else data
        STORE[url] = body if isinstance(body, bytes) else str(body).encode()
        CALLS.append(("PUT", url, len(STORE[url])))
        return FakeResponse()

    def post(self, url, json=None):
        CALLS.append(("POST", url, {k: v for k, v in json.items() if k != "secret"}))
        return FakeResponse()


class FakeDocker:
    """The part of docker-py's APIClient the worker calls, running each container as a local process."""

    image_python = sys.executable

    def __init__(self, *a, **kw):
        self.containers = {}
        self.seen = []  # what each run saw: command, cwd, input/res listing

    def pull(self, image, stream=True, decode=True):
        return iter([{"status": "Status: Image is up to date for " + image}])

    def create_host_config(self, **kw):
        return kw

    def create_container(self, image, name, host_config, command, working_dir, environment, **kw):
        self.containers[name] = {"image": image, "binds": host_config["binds"], "command": command,
                                 "working_dir": working_dir, "environment": environment}
        return {"Id": name}

    def _host(self, binds, arg):
        for host, spec in sorted(binds.items(), key=lambda kv: -len(kv[1]["bind"])):
            inside = spec["bind"]
            if arg == inside or arg.startswith(inside + "/"):
                return host.rstrip("/") + arg[len(inside):]
        return arg

    def _get(self, container):
        return self.containers[container["Id"] if isinstance(container, dict) else container]

    def start(self, container):
        c = self._get(container)
        argv = shlex.split(c["command"])  # docker-py: a str command goes through split_command (shlex.split)
        if argv[0] in ("python", "python3"):
            argv[0] = self.image_python
        argv = [self._host(c["binds"], a) for a in argv]
        env = {"PATH": os.environ["PATH"], **dict(e.split("=", 1) for e in c["environment"])}
        cwd = self._host(c["binds"], c["working_dir"])
        res_dir = self._host(c["binds"], "/app/input/res")
        listing = sorted(str(p.relative_to(res_dir)) for p in Path(res_dir).rglob("*")) if Path(res_dir).is_dir() \
            else None
        out_dir = self._host(c["binds"], "/app/output")
        before = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else None
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=300)
        c["result"] = proc
        self.seen.append({"command": c["command"], "working_dir": c["working_dir"], "input_res": listing,
                          "output_before": before, "returncode": proc.returncode})

    def attach(self, container, stream=False, logs=False, demux=False, **kw):
        proc = self._get(container)["result"]
        if stream:
            return iter([])
        return (proc.stdout or None, proc.stderr or None)

    def inspect_container(self, container):
        return {"State": {"Status": "exited"}}

    def wait(self, container):
        return {"StatusCode": self._get(container)["result"].returncode}

    def remove_container(self, *a, **kw):
        pass

    def kill(self, *a, **kw):
        pass


class FakeWebSocket:
    async def send(self, _message):
        pass

    async def close(self):
        pass


async def fake_connect(_url, *a, **kw):
    return FakeWebSocket()


def load_worker(repo: Path, scratch: Path):
    src = fetched.copy_to(repo, ["compute_worker/compute_worker.py", "compute_worker/celery_config.py",
                                 "src/settings/logs_loguru.py"], scratch / "codabench")
    sys.path[:0] = [str(src / "compute_worker"), str(src / "src" / "settings")]
    import docker

    docker.APIClient = FakeDocker  # before import: the worker builds its client at import time
    import requests
    import websockets

    requests.Session = FakeSession
    websockets.connect = fake_connect
    import compute_worker as cw

    base = str(scratch / "worker") + "/"
    os.makedirs(base)
    cw.BASE_DIR = cw.HOST_DIRECTORY = base  # host path == worker path: the binds point at real folders
    cw.CACHE_DIR = os.path.join(base, "cache")
    cw.urlretrieve = lambda url, dest: Path(dest).write_bytes(STORE[url])
    return cw


def zip_folder(folder: Path) -> bytes:
    """As the organizer zips it: from inside the folder (the bundle README's command)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, str(p.relative_to(folder)))
    return buf.getvalue()


def results_zip(upload: Path) -> bytes:
    if upload.suffix == ".zip":
        return upload.read_bytes()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(upload, upload.name)
    return buf.getvalue()


def run_args(sub_id: int, is_scoring: bool, **urls) -> dict:
    names = ("scoring_stdout", "scoring_stderr", "scoring_ingestion_stdout", "scoring_ingestion_stderr") \
        if is_scoring else ("prediction_stdout", "prediction_stderr", "prediction_ingestion_stdout",
                            "prediction_ingestion_stderr")
    args = {"user_pk": 7, "id": sub_id, "submissions_api_url": "http://site/api", "secret": "0" * 32,
            "docker_image": "codalab/codalab-legacy:py39", "execution_time_limit": 600, "is_scoring": is_scoring,
            "ingestion_only_during_scoring": False, "program_data": urls["program_data"],
            "prediction_result": f"http://store/{sub_id}/prediction_result.zip"}
    if is_scoring:
        args["scoring_result"] = f"http://store/{sub_id}/scoring_result.zip"
        args["reference_data"] = urls["reference_data"]
    args.update({n: f"http://store/{sub_id}/{n}.txt" for n in names})
    return args


def submit(cw, bundle: Path, upload: Path, sub_id: int) -> dict:
    import yaml

    STORE[f"http://store/{sub_id}/upload.zip"] = results_zip(upload)
    CALLS.clear()
    cw.run_wrapper(run_args(sub_id, False, program_data=f"http://store/{sub_id}/upload.zip"))
    prediction_calls = list(CALLS)
    prediction_statuses = [c[2]["status"] for c in prediction_calls if c[0] == "PATCH" and "status" in c[2]]
    if f"http://store/{sub_id}/prediction_result.zip" not in STORE:  # the prediction step failed: no scoring
        return {"upload": upload.name, "prediction_statuses": prediction_statuses,
                "prediction_details": [c[2].get("status_details") for c in prediction_calls if c[0] == "PATCH"]}
    with zipfile.ZipFile(io.BytesIO(STORE[f"http://store/{sub_id}/prediction_result.zip"])) as zf:
        prediction_files = sorted(zf.namelist())
        prediction_metadata = zf.read("metadata").decode() if "metadata" in prediction_files else None
    CALLS.clear()
    cw.client.seen.clear()
    cw.run_wrapper(run_args(sub_id, True, program_data="http://store/scoring_program.zip",
                            reference_data="http://store/reference_data.zip"))
    statuses = [c[2]["status"] for c in CALLS if c[0] == "PATCH" and "status" in c[2]]
    posted = [c[2]["scores"] for c in CALLS if c[0] == "POST"]
    columns = {c["key"] for lb in yaml.safe_load((bundle / "competition.yaml").read_text())["leaderboards"]
               for c in lb["columns"]}
    out = {"upload": upload.name,
           "prediction_statuses": prediction_statuses,
           "prediction_result_files": prediction_files, "prediction_result_metadata": prediction_metadata,
           "scoring_statuses": statuses, "scoring_runs": list(cw.client.seen),
           "scores_posted": posted[0] if posted else None,
           "scores_stored": {k: v for k, v in posted[0].items() if k in columns} if posted else None,
           "scores_skipped": sorted(set(posted[0]) - columns) if posted else None,
           "scoring_stdout": STORE.get(f"http://store/{sub_id}/scoring_stdout.txt", b"").decode(),
           "scoring_stderr": STORE.get(f"http://store/{sub_id}/scoring_stderr.txt", b"").decode()}
    result = STORE.get(f"http://store/{sub_id}/scoring_result.zip")
    if result:
        with zipfile.ZipFile(io.BytesIO(result)) as zf:
            out["scoring_result_files"] = sorted(zf.namelist())
            if "metadata" in zf.namelist():
                out["scoring_result_metadata"] = yaml.safe_load(zf.read("metadata"))
    return out


def main(argv: list) -> int:
    repo, bundle, image_python, *uploads = argv
    bundle = Path(bundle)
    FakeDocker.image_python = image_python = os.path.abspath(image_python)  # containers run elsewhere
    scratch = Path(tempfile.mkdtemp(prefix="codabench_check_"))
    sys.stdout = sys.stderr  # the worker's own prints (rich's pprint of the binds) stay off the report
    try:
        cw = load_worker(Path(repo), scratch)
        STORE["http://store/scoring_program.zip"] = zip_folder(bundle / "scoring_program")
        STORE["http://store/reference_data.zip"] = zip_folder(bundle / "reference_data")
        report = {"repo_commit": fetched.commit(repo), "image_python": image_python,
                  "submissions": [submit(cw, bundle, Path(u), i) for i, u in enumerate(uploads, start=1)]}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.__stdout__.write(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
