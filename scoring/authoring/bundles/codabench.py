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

from scoring.authoring.bundles.files import Bundle, Inputs, runtime_note, sorting
from scoring.runtime.definition import freeze

IMAGE = "codalab/codalab-legacy:py39"
COMMAND = "python3 $program/score.py $input $output"
PRECISION = 4

# score.py, written into the bundle: a version check first (the default images are Python 3.7), then the runtime.
SCORE_PY = '''"""Scoring program written by `agrieval bundle {platform}` for {name} ({split} split). Do not edit: rebuild it."""
import sys

HOST_FAILURE = ("the scoring program failed on the organizers' side; this is not your submission's fault "
                "(the organizers have been given the code below)")

if sys.version_info < (3, 8):
    sys.stderr.write(HOST_FAILURE + ": [internal_error] the docker image runs Python %d.%d; this program needs "
                     "3.8 or newer (organizers: set docker_image to {image})\\n" % sys.version_info[:2])
    sys.exit(3)

from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import numpy  # noqa: F401
    from agrieval_runtime.platforms.codabench import main
except Exception as exc:  # noqa: BLE001 - the participant must see a clean line, not a traceback
    sys.stderr.write(HOST_FAILURE + ": [internal_error] the scoring program cannot start (%s: %s); organizers: "
                     "use docker_image {image} or an image with numpy >= 1.21\\n" % (type(exc).__name__, exc))
    sys.exit(3)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:3] + ["--split", {split!r}] + sys.argv[3:], competition=str(HERE / "competition.json")))
'''


def program_files(bundle: Bundle, inputs: Inputs, split: str, metadata_name: str, command: str) -> None:
    """``scoring_program/`` and ``reference_data/``, shared with the CodaLab bundle."""
    d = inputs.definition
    bundle.add_runtime("scoring_program")
    bundle.add("scoring_program/competition.json", freeze(d))
    bundle.add("scoring_program/score.py", SCORE_PY.format(platform=bundle.platform, name=d.name, split=split,
                                                            image=IMAGE))
    bundle.add(f"scoring_program/{metadata_name}", f"command: {command}\n"
               f"description: agrieval scoring program for {d.name} ({split} split)\n")
    bundle.add("reference_data/solution.csv", inputs.solution_path.read_bytes())


def competition_yaml(inputs: Inputs, split: str) -> str:
    d = inputs.definition
    columns = "".join(f"      - title: {k}\n        key: {k}\n        index: {i}\n        sorting: {sorting(d)}\n"
                      f"        precision: {PRECISION}\n" for i, k in enumerate(inputs.keys))
    return (f"# Merge into your competition.yaml (Codabench, version 2).\n"
            f"version: 2\n"
            f"docker_image: {IMAGE}\n"
            f"tasks:\n"
            f"  - index: 0\n"
            f"    name: {d.name} ({split} split)\n"
            f"    scoring_program: scoring_program\n"
            f"    reference_data: reference_data\n"
            f"leaderboards:\n"
            f"  - index: 0\n"
            f"    title: {d.name} ({split})\n"
            f"    key: main\n"
            f"    columns:\n{columns}")


def build(inputs: Inputs, *, split: str = "public") -> Bundle:
    bundle = Bundle("codabench", inputs.definition)
    program_files(bundle, inputs, split, "metadata.yaml", COMMAND)
    snippet = competition_yaml(inputs, split)
    bundle.add("competition.yaml", snippet)
    bundle.add("README.md", _readme(inputs, split, snippet))
    bundle.next_steps = ["zip scoring_program/ and reference_data/ (or keep them as folders in your bundle)",
                         "merge competition.yaml into yours (docker_image, tasks, leaderboards)"]
    return bundle


def _readme(inputs: Inputs, split: str, snippet: str) -> str:
    d = inputs.definition
    return f"""# Codabench scoring program for `{d.name}` ({split} split)

Written by `agrieval bundle codabench`. {runtime_note()}

1. Put `scoring_program/` and `reference_data/` into your competition bundle (folders, or zip each from
   inside it: `(cd scoring_program && zip -r ../scoring_program.zip .)`).
2. Merge `competition.yaml` (below) into yours: `docker_image` must have Python >= 3.8 and numpy; the default
   `codalab/codalab-legacy:py37` does not (the program then fails with a clear host-side message).
3. The leaderboard columns are the keys of `scores.json`, `{inputs.keys[0]}` first; Codabench stores only keys that
   are columns, and shows them with `precision` decimals.
4. For a phase whose results must stay hidden (the private split), also set `hide_output: true` on the phase:
   the program prints no score unless run with `--show-scores`, but Codabench shows stdout/stderr otherwise.

What participants see: a rejected submission fails with the reason on stderr (stable codes such as
`[missing_column]`, line and column; no label of the solution, nothing about which ids are private). A failure
on the organizers' side says "this is not your submission's fault" and names only the problem's code; rerun
`agrieval grade SUBMISSION --solution reference_data/solution.csv --competition scoring_program/competition.json`
to see its cause.

Try it locally as the worker lays it out: `input/ref/solution.csv`, `input/res/<participant files>`, then
`python3 scoring_program/score.py input output --show-scores`.

```yaml
{snippet}```
"""
