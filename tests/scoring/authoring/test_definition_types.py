"""A TOML definition's types are checked without pydantic (``definitions.validate``), the way pydantic's strict
JSON mode checks them: pydantic, which reads the same annotations for docs/definition.schema.json, is the
oracle here. Hostile values in every field and unknown keys: both accept the same data and build the same
definition, and both reject the same data naming the same keys."""

from __future__ import annotations

import datetime
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.definitions import TOML_DIR, _toml_module, validate
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.problems import HostError

pydantic = pytest.importorskip("pydantic")


def _shipped(name: str) -> dict:
    data = _toml_module().loads((TOML_DIR / f"{name}.toml").read_text(encoding="utf-8"))
    data.setdefault("name", name)
    data.pop("vocabulary_file", None)  # (resolved from a file, not a type question)
    return data


BASES = [_shipped(n) for n in ("plantclef2024", "plantclef2025", "agrichallenge2024")]

# What a TOML file can hold, and a little more: every TOML type, wrong types for every field, edge values.
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(allow_nan=False),
    st.sampled_from([0.0, 1.0, 0.5, 2.0, 5.0, 1e300]),
    st.sampled_from(["", "5", "true", ",", ";", "|", "\t", "a", "Usage", "Public", "Private", "transect",
                     "multilabel", "multiclass", "all", "minimal", "none", "python-list", "space-separated",
                     "single", "int", "str", "strip-date", "first-n-parts", "regex", "whole-id", "column-only",
                     "transect_f1", "sample_f1", "accuracy", "macro_f1", "public", "private", "(x)-", "[", "(\\d+)"]),
    st.text(max_size=6),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.sampled_from(["a", "public", "x", "max_rows",
                                                                                          "n_parts", "rule"]),
                                                                         inner, max_size=3)), max_leaves=6)
KEY_NAMES = ["name", "task", "id_column", "prediction_column", "primary_metric", "title", "url",
                        "delimiter", "quoting", "list_syntax", "label_type", "vocabulary", "id_pattern",
                        "higher_is_better", "empty_both_score", "public_decimals", "unknown_key",
                        "limits.max_rows", "limits.max_seconds", "limits.max_bytes", "limits.typo",
                        "split.column", "split.public", "split.ignored", "split.phases", "split.phases.dev",
                        "grouping", "grouping.rule", "grouping.n_parts", "grouping.patterns",
                        "grouping.solution_column", "grouping.name", "grouping.typo"]
KEYS = st.sampled_from(KEY_NAMES)
# One of each JSON/TOML type (and the edges of each): every key gets every one in the grid test.
GRID = [None, True, False, 0, 1, 3, -1, 2.5, 1.0, "", "x", "1", "public", "regex", [], ["1", "2"], [1], {},
        {"a": "public"}]


def _set(data: dict, key: str, value) -> None:
    *parents, last = key.split(".")
    for p in parents:
        if not isinstance(data.get(p), dict):
            data[p] = {}
        data = data[p]
    data[last] = value


def _delete(data: dict, key: str) -> None:
    *parents, last = key.split(".")
    for p in parents:
        data = data.get(p)
        if not isinstance(data, dict):
            return
    data.pop(last, None)


ADAPTER = pydantic.TypeAdapter(CompetitionDefinition)


def _oracle(data: dict):
    """pydantic's verdict: the definition, or the set of key paths it names."""
    try:
        return ADAPTER.validate_json(json.dumps(data), strict=True), None
    except pydantic.ValidationError as exc:
        return None, {".".join(str(x) for x in err["loc"]) for err in exc.errors()}


def _ours(data: dict):
    try:
        return validate(data, "mine.toml"), None
    except HostError as exc:
        lines = str(exc).splitlines()[1:]
        return None, {line.strip().split(": ", 1)[0].replace("(top level)", "") for line in lines}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(range(len(BASES))),
       edits=st.lists(st.tuples(KEYS, VALUES), max_size=3),
       deletions=st.lists(KEYS, max_size=2))
def test_the_types_are_checked_as_pydantic_checks_them(base, edits, deletions):
    data = json.loads(json.dumps(BASES[base]))
    for key in deletions:
        _delete(data, key)
    for key, value in edits:
        _set(data, key, value)
    _agree(data)


def _agree(data: dict) -> None:
    theirs, their_keys = _oracle(data)
    ours, our_keys = _ours(data)
    assert (ours is None) == (theirs is None), (data, our_keys, their_keys)
    if ours is not None:
        assert ours == theirs and ours.limits == theirs.limits and ours.split == theirs.split
        assert ours.grouping == theirs.grouping and ours.vocabulary == theirs.vocabulary
    else:
        assert our_keys == their_keys, data


@pytest.mark.parametrize("base", range(len(BASES)))
@pytest.mark.parametrize("key", KEY_NAMES)
def test_every_key_with_every_type(base, key):
    for value in GRID:
        data = json.loads(json.dumps(BASES[base]))
        _set(data, key, value)
        _agree(data)


def test_each_problem_is_named_by_its_key_path_in_one_error():
    data = json.loads(json.dumps(BASES[1]))
    data["limits"]["max_rows"] = "many"
    data["split"]["typo"] = 1
    data["higher_is_better"] = 1
    with pytest.raises(HostError) as info:
        validate(data, "mine.toml")
    text = str(info.value)
    assert info.value.code == "definition_invalid" and text.startswith("mine.toml: invalid competition definition")
    assert "limits.max_rows: Input should be a valid integer" in text
    assert "split.typo: unknown key" in text and "higher_is_better: Input should be a valid boolean" in text


def test_a_toml_date_is_a_type_error_not_a_crash():
    data = json.loads(json.dumps(BASES[1]))
    data["title"] = datetime.date(2025, 3, 1)
    with pytest.raises(HostError, match="title: Input should be a valid string"):
        validate(data, "mine.toml")
