"""CodaLab (legacy) bundle: the Codabench program, run by the v1 worker, plus the legacy leaderboard YAML.

What CodaLab reads (``docs/facts/platforms.md``: codalab/competitions-v1-compute-worker
``worker.py``, codalab/codalab-competitions ``tasks.py`` and ``models.py``): the
program's ``metadata`` ``command:`` with ``$program $input $output``; only
``output/scores.txt`` (``key: value`` lines), which the program writes next to
``scores.json``; the leaderboard as ``leaderboard: {leaderboards, columns}``.
"""

from __future__ import annotations

from scoring.authoring.bundles.codabench import COMMAND, IMAGE, program_files
from scoring.authoring.bundles.files import Bundle, Inputs, runtime_note

NUMERIC_FORMAT = 4


def competition_yaml(inputs: Inputs, split: str) -> str:
    d = inputs.definition
    columns = "".join(f"    {k}:\n      leaderboard: *RESULTS\n      label: {k}\n      rank: {i + 1}\n"
                      f"      numeric_format: {NUMERIC_FORMAT}\n" + ("      sort: asc\n" if not d.higher_is_better else "")
                      for i, k in enumerate(inputs.keys))
    return (f"# Merge into your competition.yaml (CodaLab competitions v1).\n"
            f"phases:\n"
            f"  1:\n"
            f"    phasenumber: 1\n"
            f"    label: {d.name} ({split} split)\n"
            f"    color: blue\n"
            f"    scoring_program: scoring_program.zip\n"
            f"    reference_data: reference_data.zip\n"
            f"leaderboard:\n"
            f"  leaderboards:\n"
            f"    RESULTS: &RESULTS\n"
            f"      label: Results\n"
            f"      rank: 1\n"
            f"  columns:\n{columns}")


def build(inputs: Inputs, *, split: str = "public") -> Bundle:
    bundle = Bundle("codalab", inputs.definition)
    program_files(bundle, inputs, split, "metadata", COMMAND)
    snippet = competition_yaml(inputs, split)
    bundle.add("competition.yaml", snippet)
    bundle.add("README.md", f"""# CodaLab (legacy) scoring program for `{inputs.definition.name}` ({split} split)

Written by `agrieval bundle codalab`. {runtime_note()}

1. Zip each folder from inside it: `(cd scoring_program && zip -r ../scoring_program.zip .)` and
   `(cd reference_data && zip -r ../reference_data.zip .)`; put both zips in your competition bundle.
2. Merge `competition.yaml` (below) into yours; the competition's docker image must have Python >= 3.8 and numpy
   (`{IMAGE}` has both).
3. The program writes `scores.txt` (`key: value` lines: the only file CodaLab reads) and `scores.json`.
   A rejected submission exits 1 with the reason in `stderr.txt`; a failure on the organizers' side exits 3
   and says it is not the participant's fault.

```yaml
{snippet}```
""")
    bundle.next_steps = ["zip scoring_program/ and reference_data/", "merge competition.yaml into yours"]
    return bundle
