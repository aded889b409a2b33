"""The config files' YAML is written without a YAML library: whatever the organizer's values, PyYAML (what the
platforms read with) gets back exactly the mapping that was written."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring._bundles.competition_pages import Options, pages
from agrieval.scoring.authoring._bundles.yaml_text import dump

# Any text but lone surrogates (not encodable in UTF-8): controls, NEL/LS/PS, BOM, astral characters included.
TEXT = st.text(st.characters(blacklist_categories=("Cs",))
               | st.sampled_from("\n\t\r\x85\u2028\ufeff:#*&!|>'\"%@`{}[],- "), max_size=30)
KEYS = st.one_of(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True), TEXT.filter(bool),
                 st.integers(0, 99))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner.filter(lambda v: not isinstance(v, (list, dict)) or bool(v) and isinstance(v, dict)),
             max_size=4),
    st.dictionaries(KEYS, inner, max_size=4)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=5))
def test_dump_reads_back_as_written(mapping):
    assert yaml.safe_load(dump(mapping)) == mapping


def test_a_title_cannot_change_the_structure_or_the_pages(tmp_path):
    title = 'x"\nleaderboards: []\n<script>alert(1)</script>'
    assert yaml.safe_load(dump({"title": title, "version": 2})) == {"title": title, "version": 2}

    from agrieval.scoring.runtime.definition import Limits
    from agrieval.scoring.text.template import prose

    class _Def:
        name, url, task, list_syntax = "demo", "", "multilabel", "python-list"
        prediction_column, delimiter, expected_columns, primary_metric, higher_is_better = (
            "p", ",", ["id", "p"], "sample_f1", True)
        vocabulary, label_type, quoting, limits, grouping = None, "int", "minimal", Limits(), None

    _Def.title = title

    class _Solution:
        ids = ["q1", "q2"]

    class _Inputs:
        definition, keys, solution = _Def(), ["sample_f1"], _Solution()

    html = pages(_Inputs(), Options(title=title), upload_how=prose(""), validate_cmd="agrieval validate x",
                 sample_note="n", sample_where="w")
    assert all("<script>" not in page for page in html.values())
    assert "&lt;script&gt;" in html["overview"]
