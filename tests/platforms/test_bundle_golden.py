"""Every bundle's files, byte for byte, for each platform: PlantCLEF 2025 with the organizer's options (title,
description, --per-day 3 --total 30 --time-limit 120 --selection-limit 3), the AgrI Challenge with the defaults,
and the AgrI Challenge under a name no agrieval ships (its bundles ship the frozen definition) with
--auto-approve. Written when the READMEs and pages moved from f-strings into package-data templates
(scoring/authoring/_bundles/templates/), to show that the move changed no byte.

What the runtime makes is left out, so that a change of the runtime does not move this test: the vendored
``agrieval_runtime/`` files, the embedded runtime in the one-file programs and the runtime's digest in the
READMEs. Zips are opened (nested ones too). The golden file holds one sha256 per file; after a deliberate
change of a bundle, rewrite it with ``AGRIEVAL_REGEN_GOLDEN=1`` and read the diff of the files this test
writes under ``$AGRIEVAL_GOLDEN_DUMP`` (when set) before and after the change."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from agrieval.scoring.authoring import _vendoring as vendoring
from agrieval.scoring.authoring._bundles import PLATFORMS
from agrieval.scoring.authoring._bundles.competition_pages import Options
from agrieval.scoring.authoring._bundles.files import check_inputs
from agrieval.scoring.runtime.definition import load_definition
from tests.platforms.platform_loaders import opened

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden" / "bundles.json"
ORGANIZER = Options(title="PlantCLEF 2025: plants *in* quadrats", description="Find every species in each quadrat.",
                    per_day=3, total=30, time_limit=120, selection_limit=3)
CASES = {"plantclef2025-options": ("plantclef2025", None, ORGANIZER),
         "agrichallenge2024-defaults": ("agrichallenge2024", None, Options()),
         "agrichallenge2024-custom": ("agrichallenge2024", "mycompetition", Options(require_approval=False))}


def normalized(files: dict) -> dict:
    """``{path: bytes}`` of a bundle, zips opened, without what the runtime makes."""
    embedded = vendoring.embedded_runtime().encode()
    digest = vendoring.runtime_digest().encode()
    out = {}
    for path, data in opened(files):
        if "agrieval_runtime/" in path:
            continue
        data = data.replace(embedded, b"<EMBEDDED RUNTIME>\n").replace(digest, b"<RUNTIME DIGEST>")
        # the metric file's size, which the Kaggle README states, is the runtime's size too
        out[path] = re.sub(rb"`agrieval_metric.py` \(\d+ KB", b"`agrieval_metric.py` (<SIZE> KB", data)
    return out


def built() -> dict:
    out = {}
    for case, (competition, rename, options) in CASES.items():
        solution = ROOT / "reference_submissions" / competition / "solution.csv"
        inputs = check_inputs(load_definition(competition), solution, splits=("public", "private"))
        if rename:
            d = replace(inputs.definition)
            object.__setattr__(d, "name", rename)  # (a frozen dataclass; a name not shipped: its definition ships)
            inputs = replace(inputs, definition=d)
        for platform, builder in sorted(PLATFORMS.items()):
            kwargs = {"split": "public"} if platform in ("codabench", "codalab") else {}
            for path, data in normalized(builder(inputs, options=options, **kwargs).files).items():
                out[f"{case}/{platform}/{path}"] = data
    return out


@pytest.fixture(scope="module")
def files() -> dict:
    made = built()
    dump = os.environ.get("AGRIEVAL_GOLDEN_DUMP")
    if dump:
        for path, data in made.items():
            target = Path(dump) / path.replace("!", "/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return made


def test_every_bundle_file_is_the_golden_one(files):
    digests = {path: hashlib.sha256(data).hexdigest() for path, data in sorted(files.items())}
    if os.environ.get("AGRIEVAL_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert sorted(digests) == sorted(golden)
    changed = [path for path in golden if digests[path] != golden[path]]
    assert not changed, "changed bundle files (dump them with AGRIEVAL_GOLDEN_DUMP=DIR):\n" + "\n".join(changed)


def test_the_golden_cases_reach_every_branch_of_the_readmes(files):
    # (the custom name ships its frozen definition; --auto-approve writes the other step 3 of Codabench)
    assert "agrichallenge2024-custom/kaggle/competition.json" in files
    assert "agrichallenge2024-defaults/kaggle/competition.json" not in files
    assert b"you chose `--auto-approve`" in files["agrichallenge2024-custom/codabench/README.md"]
    assert b"**Approve each participant**" in files["agrichallenge2024-defaults/codabench/README.md"]
    assert b"Find every species" in files["plantclef2025-options/hf/COMPETITION_DESC.md"]
