"""Run codalab/competitions-v1-compute-worker's own ``worker.py`` ``run()`` (the scoring step) on an agrieval bundle.

    python codalab_v1_worker.py WORKER_REPO BUNDLE_DIR IMAGE_PYTHON SUBMISSION [SUBMISSION ...]

WORKER_REPO is the fetched repository (bare git dir or checkout); BUNDLE_DIR is what ``agrieval bundle codalab``
wrote; IMAGE_PYTHON stands for the competition's docker image; each SUBMISSION is a CSV (zipped at the root of a
results zip) or a ready .zip. Run it under a Python 3 with ``requests``, ``psutil`` and PyYAML < 6 (the worker
calls ``yaml.load`` without a Loader). Prints one JSON report.

The worker's ``run`` and ``get_bundle`` run as written. What the site sends is modelled on
codalab/codalab-competitions ``codalab/apps/web/tasks.py``: ``bundle_url`` is ``run.txt`` with ``program:`` and
``input:`` (~496-508), ``input.txt`` has ``ref:`` and ``res:``, ``res`` being the raw upload of a results
submission (~463-493); the other lines of those files (history, scores, output URLs...) are left out. The site
reads back only ``scores.txt`` of output.zip, line by line, ``label, value = line.split(":")`` (~591-611).
Stubbed: ``urllib.urlretrieve`` (serves the zips from memory; the worker calls this Python 2 name, absent from
Python 3, while its HEAD also holds an f-string that Python 2.7 of its Dockerfile cannot parse), ``celery``
(``Celery``, ``task``: the status updates are recorded), ``billiard``, ``check_output`` (``docker pull``), ``Popen``
(``docker run ... -w DIR IMAGE CMD``: CMD runs as a local process in DIR, ``python3`` being IMAGE_PYTHON; the
worker mounts each folder at its own path, so paths need no translation) and ``requests.put`` (recorded).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import urllib
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetched  # noqa: E402
from codabench_worker import results_zip, zip_folder  # noqa: E402

STORE: dict = {}
PUT: dict = {}
UPDATES: list = []


class FakeApp:
    def __init__(self, *a, **kw):
        pass

    def config_from_object(self, _name):
        pass

    @contextlib.contextmanager
    def connection(self):
        yield types.SimpleNamespace(virtual_host="/")

    def send_task(self, name, args, **kw):
        UPDATES.append({"status": args[1]["status"], "extra": args[1].get("extra", {})})


def stub_modules():
    sys.modules["celery"] = types.SimpleNamespace(Celery=FakeApp, task=lambda **kw: (lambda f: f))
    sys.modules["billiard"] = types.SimpleNamespace(SoftTimeLimitExceeded=type("SoftTimeLimitExceeded",
                                                                                (Exception,), {}))

    def urlretrieve(url, dest):
        Path(dest).write_bytes(STORE[url])

    urllib.urlretrieve = urlretrieve


def fake_popen(image_python):
    def popen(cmd, stdout=None, stderr=None, **kw):
        assert cmd[:2] == ["docker", "run"], cmd
        i, cwd, env = 2, None, {"PATH": os.environ["PATH"]}
        while cmd[i].startswith("-"):
            flag = cmd[i]
            if flag in ("-v", "--memory", "-e", "-w"):
                value = cmd[i + 1]
                if flag == "-w":
                    cwd = value
                elif flag == "-e":
                    k, v = value.split("=", 1)
                    env[k] = v
                i += 2
            else:
                i += 1
        argv = cmd[i + 1:]  # after the image
        if argv and argv[0] in ("python", "python3"):
            argv = [image_python, *argv[1:]]
        return subprocess.Popen(argv, cwd=cwd, env=env, stdout=stdout, stderr=stderr)
    return popen


def main(argv: list) -> int:
    repo, bundle, image_python, *uploads = argv
    bundle, image_python = Path(bundle), os.path.abspath(image_python)  # the program runs in another folder
    scratch = Path(tempfile.mkdtemp(prefix="codalab_v1_check_"))
    stub_modules()
    src = fetched.copy_to(repo, ["worker.py"], scratch / "src")
    temp_dir = scratch / "submissions"  # the worker empties this folder before each run
    temp_dir.mkdir()
    os.environ["SUBMISSION_TEMP_DIR"] = str(temp_dir)
    sys.path.insert(0, str(src))
    here = os.getcwd()
    real_stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        import requests
        import worker

        worker.check_output = lambda cmd: b""
        worker.Popen = fake_popen(image_python)
        requests.put = lambda url, data=None, headers=None: PUT.__setitem__(url, data.read())
        STORE["http://store/scoring_program.zip"] = zip_folder(bundle / "scoring_program")
        STORE["http://store/reference_data.zip"] = zip_folder(bundle / "reference_data")
        STORE["http://store/run.txt"] = b"program: http://store/scoring_program.zip\ninput: http://store/input.txt"
        report = {"repo_commit": fetched.commit(repo), "image_python": image_python, "submissions": []}
        for n, upload in enumerate(map(Path, uploads), start=1):
            STORE["http://store/res.zip"] = results_zip(upload)
            STORE["http://store/input.txt"] = b"ref: http://store/reference_data.zip\nres: http://store/res.zip"
            UPDATES.clear()
            PUT.clear()
            urls = {k: f"http://store/{n}/{k}" for k in ("stdout_url", "stderr_url", "output_url",
                                                         "private_output_url", "ingestion_program_output_url",
                                                         "ingestion_program_stderr_url")}
            worker.run(n, {"docker_image": "codalab/codalab-legacy:py39", "bundle_url": "http://store/run.txt",
                           "ingestion_program_docker_image": "codalab/codalab-legacy:py39", "secret": "s",
                           "execution_time_limit": 120, "predict": False, **urls})
            os.chdir(here)
            out = {"upload": upload.name, "statuses": [u["status"] for u in UPDATES],
                   "traceback": next((u["extra"].get("traceback") for u in UPDATES if u["status"] == "failed"), None),
                   "stderr": PUT.get(urls["stderr_url"], b"").decode(),
                   "stdout": PUT.get(urls["stdout_url"], b"").decode()}
            if urls["output_url"] in PUT:
                with zipfile.ZipFile(io.BytesIO(PUT[urls["output_url"]])) as zf:
                    out["output_files"] = sorted(zf.namelist())
                    if "scores.txt" in zf.namelist():
                        scores = {}
                        for line in zf.read("scores.txt").decode().split("\n"):  # tasks.py ~602-609
                            if len(line) > 0:
                                label, value = line.split(":")
                                scores[label.strip()] = float(value)
                        out["scores_read_by_site"] = scores
            report["submissions"].append(out)
    finally:
        sys.stdout = real_stdout
        os.chdir(here)
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
