"""The shipped frozen definitions are the TOML sources, validated and frozen (regenerate with
`agrieval competitions freeze scoring/competitions/NAME.toml -o scoring/runtime/competitions/NAME.json`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.authoring.definitions import TOML_DIR, load_toml
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.definition import _FROZEN_DIR as FROZEN_DIR
from agrieval.scoring.runtime.definition import freeze, load_definition

NAMES = sorted(p.stem for p in TOML_DIR.glob("*.toml"))


@pytest.mark.parametrize("name", NAMES)
def test_frozen_file_equals_the_frozen_toml(name):
    assert (FROZEN_DIR / f"{name}.json").read_text() == freeze(load_toml(TOML_DIR / f"{name}.toml"))


def test_every_toml_has_its_frozen_twin_and_nothing_else_is_shipped():
    assert sorted(p.stem for p in FROZEN_DIR.glob("*.json")) == NAMES


def test_freeze_command_writes_a_definition_the_runtime_reads(tmp_path):
    out = tmp_path / "pc.json"
    res = CliRunner().invoke(cli, ["competitions", "freeze", str(TOML_DIR / "plantclef2025.toml"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert load_definition(out).labels == load_definition("plantclef2025").labels
    again = CliRunner().invoke(cli, ["competitions", "freeze", str(TOML_DIR / "plantclef2025.toml"), "-o", str(out)])
    assert again.exit_code == 2 and "error [output_exists]" in again.stderr and "--overwrite" in again.stderr
    replaced = CliRunner().invoke(cli, ["competitions", "freeze", str(TOML_DIR / "plantclef2025.toml"), "-o", str(out),
                                        "--overwrite"])
    assert replaced.exit_code == 0 and load_definition(out).name == "plantclef2025"
    bad = tmp_path / "bad.toml"
    bad.write_text(Path(TOML_DIR / "plantclef2025.toml").read_text().replace("max_rows = 100_000", "max_rows = 'many'")
                   .replace('vocabulary_file = "plantclef_species.txt"', ""))
    res = CliRunner().invoke(cli, ["competitions", "freeze", str(bad), "-o", str(tmp_path / "b.json")])
    assert res.exit_code == 3 and "limits.max_rows" in res.stderr
