"""The cache of validated TOML definitions: one validation per content, never trusted across a change."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from scoring.authoring import definition_cache, definitions
from scoring.authoring.definitions import TOML_DIR, load_toml
from scoring.runtime.problems import HostError


@pytest.fixture()
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(definition_cache.CACHE_ENV, str(folder))
    return folder


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


def entries(cache: Path) -> list[Path]:
    return sorted((cache / "definitions").iterdir()) if (cache / "definitions").exists() else []


def test_validated_once_then_read_back_equal(cache, validations, toml):
    first = load_toml(toml)
    second = load_toml(toml)
    assert len(validations) == 1
    assert second == first == load_toml(toml, cached=False)
    assert second.source_path == first.source_path == str(toml.resolve())
    assert [p.suffix for p in entries(cache)] == [".json"]  # one entry, no temporary file left


def test_a_cached_run_imports_no_pydantic(cache, toml, repo):
    import subprocess
    import sys

    code = ("import sys; from scoring.authoring.definitions import load_competition; "
            f"d = load_competition({str(toml)!r}); print('pydantic' in sys.modules, d.limits.max_rows)")
    env = {**os.environ, "PYTHONPATH": str(repo)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
            for _ in range(2)]
    assert runs == ["True 100000\n", "False 100000\n"]


def test_an_edited_toml_is_validated_again(cache, validations, toml):
    load_toml(toml)
    toml.write_text(toml.read_text().replace("max_rows = 100_000", "max_rows = 123_456"))
    assert load_toml(toml).limits.max_rows == 123_456
    assert len(validations) == 2
    toml.write_text(toml.read_text().replace("max_rows = 123_456", "max_rows = \"many\""))
    with pytest.raises(HostError, match="max_rows"):
        load_toml(toml)


def test_an_edited_vocabulary_file_is_read_again(cache, validations, toml):
    assert 1395807 in load_toml(toml).labels
    vocab = toml.with_name("plantclef_species.txt")
    vocab.write_text(vocab.read_text() + "99999999\n")
    assert 99999999 in load_toml(toml).labels
    vocab.write_text("1\n2\n")
    assert load_toml(toml).labels == {1, 2}
    assert len(validations) == 3


def test_the_same_bytes_elsewhere_or_named_otherwise_are_another_entry(cache, validations, toml, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "yours.toml").write_bytes(toml.read_bytes())
    (other / "plantclef_species.txt").write_text("7\n")
    mine, yours = load_toml(toml), load_toml(other / "yours.toml")
    assert yours.labels == {7} and mine.labels != {7}
    assert len(validations) == 2 and len(entries(cache)) == 2


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],                     # cut short
    lambda text: "\x00garbage",                               # not JSON
    lambda text: json.dumps({"format": "agrieval-definition-cache"}),
    lambda text: text.replace("100000", "100001", 1),         # the frozen definition edited: its fingerprint fails
    lambda text: text.replace('"version": 1', '"version": 99', 1),
])
def test_a_damaged_entry_is_ignored_and_rewritten(cache, validations, toml, damage):
    good = load_toml(toml)
    [entry] = entries(cache)
    entry.write_text(damage(entry.read_text()))
    again = load_toml(toml)
    assert again == good and len(validations) == 2
    assert [entry] == entries(cache)
    assert load_toml(toml) == good and len(validations) == 2  # rewritten: read back now


def test_an_entry_under_another_key_is_not_trusted(cache, validations, toml, tmp_path):
    load_toml(toml)
    [entry] = entries(cache)
    doc = json.loads(entry.read_text())
    # an entry of another TOML copied under this one's name: its recorded key differs
    doc["key"] = "0" * 64
    entry.write_text(json.dumps(doc))
    load_toml(toml)
    assert len(validations) == 2


def test_an_invalid_toml_is_never_cached(cache, validations, toml):
    toml.write_text(toml.read_text().replace("task = \"multilabel\"", "task = \"regression\""))
    for _ in range(2):
        with pytest.raises(HostError, match="task"):
            load_toml(toml)
    assert len(validations) == 2 and entries(cache) == []


def test_a_cache_that_cannot_be_written_only_costs_the_validation(tmp_path, monkeypatch, validations, toml):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(definition_cache.CACHE_ENV, str(blocker / "cache"))
    assert load_toml(toml) == load_toml(toml, cached=False)
    load_toml(toml)
    assert len(validations) == 3


def test_where_the_cache_lies(monkeypatch, tmp_path):
    monkeypatch.delenv(definition_cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert definition_cache.cache_dir() == tmp_path / "xdg" / "agrieval"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: a relative path is ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert definition_cache.cache_dir() == tmp_path / "home" / ".cache" / "agrieval"
    monkeypatch.setenv(definition_cache.CACHE_ENV, str(tmp_path / "mine"))
    assert definition_cache.cache_dir() == tmp_path / "mine"
