"""A person's TOML definition is validated on every run, and no run writes outside the paths it was given."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agrieval.scoring.authoring import definitions
from agrieval.scoring.authoring.definitions import TOML_DIR, load_toml
from agrieval.scoring.runtime.problems import HostError


@pytest.fixture()
def validations(monkeypatch) -> list:
    """Each call of the pydantic validation, counted."""
    calls = []
    real = definitions.validate

    def counting(data, where):
        calls.append(where)
        return real(data, where)

    monkeypatch.setattr(definitions, "validate", counting)
    return calls


@pytest.fixture()
def toml(tmp_path) -> Path:
    """A copy of the shipped PlantCLEF 2025 definition with its vocabulary file beside it."""
    folder = tmp_path / "defs"
    folder.mkdir()
    shutil.copy(TOML_DIR / "plantclef2025.toml", folder / "mine.toml")
    shutil.copy(TOML_DIR / "plantclef_species.txt", folder / "plantclef_species.txt")
    return folder / "mine.toml"


def test_every_load_validates(validations, toml):
    first, second = load_toml(toml), load_toml(toml)
    assert first == second and len(validations) == 2
    assert first.source_path == str(toml.resolve())


def test_an_edited_toml_or_vocabulary_is_what_the_next_load_sees(validations, toml):
    toml.write_text(toml.read_text().replace("max_rows = 100_000", "max_rows = 123_456"))
    assert load_toml(toml).limits.max_rows == 123_456
    toml.with_name("plantclef_species.txt").write_text("1\n2\n")
    assert load_toml(toml).labels == {1, 2}
    toml.write_text(toml.read_text().replace("max_rows = 123_456", 'max_rows = "many"'))
    for _ in range(2):
        with pytest.raises(HostError, match="max_rows"):
            load_toml(toml)
    assert len(validations) == 4


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_score_validate_grade_write_nothing_in_home_or_cache_folders(tmp_path, toml, repo):
    """HOME, XDG_CACHE_HOME and the working folder are as they were after each command on a custom TOML."""
    home, xdg, cwd = tmp_path / "home", tmp_path / "xdg-cache", tmp_path / "cwd"
    for folder in (home, xdg, cwd):
        folder.mkdir()
    (home / ".cache").mkdir()
    pc = repo / "reference_submissions" / "plantclef2025"
    sub, sol = pc / "submissions" / "partial.csv", pc / "solution.csv"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGRIEVAL")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(repo))
    env.pop("PYTHONPYCACHEPREFIX", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # (Python's own bytecode cache is not ours to test)
    commands = [["score", str(sub), "-s", str(sol), "-c", str(toml)],
                ["score", str(sub), "-s", str(sol), "-c", str(toml), "--json"],
                ["validate", str(sub), "-c", str(toml), "--solution", str(sol)],
                ["grade", str(sub), "-s", str(sol), "-c", str(toml)]]
    before = _tree(toml.parent)
    for argv in commands * 2:  # a second run is where a cache would be read
        done = subprocess.run([sys.executable, "-m", "agrieval.scoring.cli.main", *argv], capture_output=True, text=True,
                              env=env, cwd=cwd)
        assert done.returncode == 0, done.stderr
        assert (_tree(home), _tree(xdg), _tree(cwd)) == ([".cache"], [], []), argv
    assert _tree(toml.parent) == before


@pytest.mark.parametrize("where", ["../outside.txt", "/etc/hostname", "sub/../../outside.txt", "link.txt"])
def test_the_vocabulary_file_stays_inside_the_definitions_folder(toml, where):
    """``vocabulary_file`` is data: the one rule for paths read from files (table_paths.inside) joins it, so a
    definition cannot read a file outside its folder, directly, through '..' or through a link."""
    (toml.parent.parent / "outside.txt").write_text("1\n2\n")
    (toml.parent / "link.txt").symlink_to(toml.parent.parent / "outside.txt")
    toml.write_text(toml.read_text().replace('"plantclef_species.txt"', f'"{where}"'))
    with pytest.raises(HostError) as err:
        load_toml(toml)
    assert err.value.code == "definition_invalid" and "vocabulary_file" in str(err.value)


@pytest.mark.parametrize("name", ["mine.toml", "plantclef_species.txt"])
def test_a_fifo_named_as_a_definition_or_its_vocabulary_is_refused_not_waited_on(toml, name):
    """Both files are opened by the one opening rule (scoring/runtime/untrusted.py): a FIFO would block a plain
    read for ever; here it is refused at once."""
    fifo = toml.parent / "fifo"
    os.mkfifo(fifo)
    if name == "mine.toml":
        target = fifo
    else:
        toml.write_text(toml.read_text().replace('"plantclef_species.txt"', '"fifo"'))
        target = toml
    with pytest.raises(HostError) as err:
        load_toml(target)
    assert err.value.code == "definition_invalid" and "FIFO" in str(err.value)
