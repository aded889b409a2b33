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

from scoring.authoring.bundles.files import MIN_NUMPY, Bundle, Inputs, runtime_note
from scoring.runtime.definition import freeze

# A 3.7 worker (EvalAI allows 3.7-3.9: apps/challenges/constants.py) fails the import deep in the runtime; the
# worker saves that traceback as the challenge's evaluation_module_error (submission_worker.py ~486-507): make
# it say what to change.
INIT_PY = '''"""EvalAI evaluation script written by `agrieval bundle evalai` for {name}. Do not edit: rebuild it."""
import sys

if sys.version_info < (3, 8):
    raise ImportError("the agrieval evaluation script needs Python 3.8 or newer; this EvalAI worker runs Python "
                      "%d.%d: set the challenge's worker_python_version to 3.9 (EvalAI's default)"
                      % sys.version_info[:2])

from .main import evaluate  # noqa: E402,F401
'''

MAIN_PY = '''"""``evaluate`` for {name}: the agrieval runtime vendored next to this file, the definition frozen in it."""
import os

from .agrieval_runtime.platforms.evalai import make_evaluate

evaluate = make_evaluate(os.path.join(os.path.dirname(os.path.abspath(__file__)), "competition.json"))
'''


def challenge_config(inputs: Inputs) -> str:
    d = inputs.definition
    phases = sorted(d.split.phases.items(), key=lambda kv: (kv[1] != "public", kv[0]))
    labels = ", ".join(f'"{k}"' for k in inputs.keys)
    out = ["# Merge into your challenge_config.yaml (EvalAI).",
           "dataset_splits:",
           "  - id: 1", "    name: Public", "    codename: public",
           "  - id: 2", "    name: Private", "    codename: private",
           "leaderboard:",
           "  - id: 1",
           f'    schema: {{"labels": [{labels}], "default_order_by": "{inputs.keys[0]}"}}',
           "challenge_phases:"]
    for i, (codename, _split) in enumerate(phases, start=1):
        out += [f"  - id: {i}", f"    name: {codename}", f"    codename: {codename}",
                "    test_annotation_file: annotations/solution.csv"]
    out.append("challenge_phase_splits:")
    for i, (_codename, split) in enumerate(phases, start=1):
        out += [f"  - challenge_phase_id: {i}", "    leaderboard_id: 1", "    dataset_split_id: 1",
                "    visibility: 3", "    leaderboard_decimal_precision: 4",
                f"    is_leaderboard_order_descending: {str(d.higher_is_better).lower()}"]
        if split == "private":
            # Host-only until the host publishes it (visibility 1).
            out += [f"  - challenge_phase_id: {i}", "    leaderboard_id: 1", "    dataset_split_id: 2",
                    "    visibility: 1", "    leaderboard_decimal_precision: 4",
                    f"    is_leaderboard_order_descending: {str(d.higher_is_better).lower()}"]
    return "\n".join(out) + "\n"


def build(inputs: Inputs, **_options) -> Bundle:
    d = inputs.definition
    if not d.split.phases:
        from scoring.runtime.problems import HostError

        raise HostError("definition_invalid", f"{d.name}: EvalAI needs [split] phases (phase codename -> public or "
                        "private) in the competition definition")
    bundle = Bundle("evalai", d)
    bundle.add_runtime("evaluation_script")
    bundle.add("evaluation_script/__init__.py", INIT_PY.format(name=d.name))
    bundle.add("evaluation_script/main.py", MAIN_PY.format(name=d.name))
    bundle.add("evaluation_script/competition.json", freeze(d))
    bundle.add("evaluation_script/requirements.txt", f"numpy>={MIN_NUMPY}\n")
    bundle.add("annotations/solution.csv", inputs.solution_path.read_bytes())
    snippet = challenge_config(inputs)
    bundle.add("challenge_config.yaml", snippet)
    phases = ", ".join(f"`{k}` -> {v}" for k, v in sorted(d.split.phases.items()))
    bundle.add("README.md", f"""# EvalAI evaluation script for `{d.name}`

Written by `agrieval bundle evalai`. {runtime_note()} EvalAI workers run Python 3.7-3.9 (the challenge's
`worker_python_version`, default 3.9); use 3.8 or 3.9: under 3.7 the import stops with a message naming that setting.

1. Zip the package from inside it: `(cd evaluation_script && zip -r ../evaluation_script.zip .)`; put
   `evaluation_script.zip` and `annotations/solution.csv` in your challenge configuration.
2. Merge `challenge_config.yaml` (below): the dataset split codenames must be `public` and `private`, and the
   phase codenames those of the definition ({phases}). A private phase returns both splits; the private one is
   linked with host-only visibility (1) until you publish it.
3. `submission_result` (the participant's "Result file") holds the public split only.

A rejected submission fails with the participant-safe reason written first to the submission's stderr, then the
exception; a failure on your side says it is not the participant's fault and names only the problem's code.

```yaml
{snippet}```
""")
    bundle.next_steps = ["zip evaluation_script/", "merge challenge_config.yaml into yours"]
    return bundle
