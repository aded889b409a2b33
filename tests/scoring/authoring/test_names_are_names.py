"""Issue 43, item 2 (the definition boundary): a competition's name is a slug, and a crafted one is refused with
the same stable code (``name_invalid``) at every way in: TOML, frozen JSON, the pydantic schema, the runtime
loader and the command line; the exported JSON Schema states the same rule.

Before issue 43 the name had no rule: ``it's "final"`` or a name holding a newline and code was frozen as it
was and pasted into every platform's program.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.definitions import load_competition, load_toml, validate
from agrieval.scoring.authoring.schemas import definition_schema
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.definition import (
    _NAME_CODE as NAME_CODE,
)
from agrieval.scoring.runtime.definition import (
    _from_plain as from_plain,
)
from agrieval.scoring.runtime.definition import (
    _NameInvalid as NameInvalid,
)
from agrieval.scoring.runtime.definition import (
    check_name,
    fingerprint,
    freeze,
    load_definition,
    shipped_competitions,
    thaw,
    to_plain,
)
from agrieval.scoring.runtime.problems import CODES, HostError

CRAFTED = ['it\'s "final"', 'x"""\nimport os; os.system("id")\n"""', "a\nb", "a b", "$(id)", "`id`", "a#b", "-rf",
           ".hidden", "../up", "a/b", "a\u2028b", "a\x00b", "", "é", "x" * 65, "name\n", "a;b", "a'b", "a\\b",
           "a\rb", "\ufeffa", "ａ"]
PLAIN = ["plantclef2025", "agrichallenge2024", "a", "A.b-c_9", "x" * 64, "9lives"]

MINIMAL = {"task": "multiclass", "id_column": "id", "prediction_column": "label", "primary_metric": "accuracy",
           "list_syntax": "single", "label_type": "str", "vocabulary": ["a", "b"]}


def _toml_text(name: str) -> str:
    return "name = " + json.dumps(name) + "\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in MINIMAL.items())


def _frozen(name: str) -> str:
    """A frozen definition with ``name``, fingerprint and all, as a careful forger would write it."""
    plain = to_plain(load_definition("agrichallenge2024"))
    plain["name"] = name
    return json.dumps({"format": "agrieval-definition", "format_version": 1, "fingerprint": fingerprint(plain),
                       "definition": plain})


def test_the_code_is_catalogued():
    assert NAME_CODE == "name_invalid" and NAME_CODE in CODES


@pytest.mark.parametrize("name", PLAIN + shipped_competitions())
def test_slugs_pass_every_entry_point(tmp_path, name):
    assert check_name(name) == name
    path = tmp_path / "mine.toml"
    path.write_text(_toml_text(name), encoding="utf-8")
    assert load_toml(path).name == name
    assert thaw(_frozen(name), "forged.json").name == name


@pytest.mark.parametrize("name", CRAFTED)
def test_a_crafted_name_is_refused_with_its_code_at_every_entry_point(tmp_path, name):
    with pytest.raises(NameInvalid):
        check_name(name)
    # TOML (authoring), through the pydantic schema
    path = tmp_path / "mine.toml"
    path.write_text(_toml_text(name), encoding="utf-8")
    with pytest.raises(HostError) as err:
        load_toml(path)
    assert err.value.code == NAME_CODE, err.value.message
    with pytest.raises(HostError) as err:
        validate(dict(MINIMAL, name=name), "data")
    assert err.value.code == NAME_CODE
    # frozen JSON (the runtime's loader), fingerprint correct
    forged = tmp_path / "forged.json"
    forged.write_text(_frozen(name), encoding="utf-8")
    for load in (load_definition, load_competition):
        with pytest.raises(HostError) as err:
            load(str(forged))
        assert err.value.code == NAME_CODE
    with pytest.raises(NameInvalid):
        from_plain(dict(to_plain(load_definition("agrichallenge2024")), name=name))
    # the dataclass itself: no way round it
    with pytest.raises(NameInvalid):
        replace(load_definition("agrichallenge2024"), name=name)
    # the command line: exit 3, the code, and nothing written
    out = tmp_path / "frozen.json"
    for args in (["competitions", "freeze", str(path), "-o", str(out)], ["competitions", "show", str(forged)]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 3 and f"[{NAME_CODE}]" in res.output, (args, res.output)
    assert not out.exists()


def test_a_toml_named_by_its_file_needs_a_slug_file_name(tmp_path):
    path = tmp_path / "my competition.toml"  # no `name` key: the file's stem is the name
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in MINIMAL.items()), encoding="utf-8")
    with pytest.raises(HostError) as err:
        load_toml(path)
    assert err.value.code == NAME_CODE and "'my competition'" in err.value.message


def test_an_evalai_phase_codename_is_a_name_too(tmp_path):
    text = _toml_text("ok") + '[split]\nphases = { "../../x" = "public" }\n'
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(HostError) as err:
        load_toml(path)
    assert err.value.code == NAME_CODE and "split.phases" in err.value.message


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ09_.-/ \n'\"$`#\\\u2028é") + ["\x00"]), max_size=70))
def test_the_exported_schema_and_the_runtime_agree_on_every_name(name):
    schema = definition_schema()["properties"]["name"]
    by_schema = (schema["minLength"] <= len(name) <= schema["maxLength"]
                 and re.search(schema["pattern"], name) is not None and "\n" not in name)
    try:
        check_name(name)
        by_runtime = True
    except NameInvalid:
        by_runtime = False
    assert by_schema == by_runtime, name
    if by_runtime:  # and a slug survives freezing unchanged
        assert thaw(freeze(replace(load_definition("agrichallenge2024"), name=name)), "x").name == name
