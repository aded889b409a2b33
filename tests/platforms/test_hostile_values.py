"""Issue 43, item 2 (the quoting boundary): every bundle built from names, titles, URLs and phase names drawn from
a hostile alphabet is the same program, the same config and the same pages as with plain values.

The competition's name is a slug at the definition boundary (tests/scoring/authoring/test_names_are_names.py);
here it is forced past that rule (set on the frozen dataclass after its checks), so that the quoting of every
generated file is tested on its own: were the name rule ever loosened, no bundle would change shape.

For each platform and each file of the bundle (zips opened, nested zips too):
- Python: compiles, and its AST is the plain build's with every string constant blanked (no value became code,
  a comment or part of a docstring that ends early);
- YAML (pyyaml, two equal keys refused) and JSON: load, with the plain build's keys and value types at every
  level, and in YAML every value that no input made unchanged;
- HTML pages, and Markdown rendered by GitHub's own parser (cmarkgfm, raw HTML allowed): the plain build's
  elements (links aside), no ``on*`` attribute, and every link ``http(s)``;
- the participant's command line: shell-split, the same words, the name one word.
"""

from __future__ import annotations

import ast
import functools
import html.parser
import json
import shlex
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring._bundles import PLATFORMS
from agrieval.scoring.authoring._bundles.competition_pages import Options
from agrieval.scoring.authoring._bundles.files import check_inputs, validate_command
from agrieval.scoring.runtime.definition import load_definition, shipped_competitions
from agrieval.scoring.text import literals as lit
from tests.platforms.platform_loaders import opened

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "reference_submissions" / "agrichallenge2024" / "solution.csv"
HOSTILE = ["'", '"', "'''", '"""', "\\", "\n", "\r", "\r\n", "$(id)", "`id`", "#", "\u2028", "\u2029", "\x00",
           "{}", "{0}", "%s", "<script>alert(1)</script>", "javascript:alert(1)", "[x](javascript:alert(1))",
           "<a href=javascript:x>", "&amp;", "*", "_", "|", ": ", "- ", "---", "\t", "\x85", "\ufeff", "'; rm -rf ~; '"]
values = st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=3)), min_size=1,
                  max_size=8).map("".join)
PLAIN = {"name": "plainname", "title": "Plain title", "url": "https://example.org/c", "key": "plainkey",
         "option_title": "Plain", "dev": "Dev", "final": "Final", "reveal": "Reveal", "description": "About."}


@pytest.fixture(scope="module")
def inputs():
    return check_inputs(load_definition("agrichallenge2024"), SOLUTION, splits=("public", "private"))


def build(inputs, v: dict) -> dict:
    """``{platform: {path: bytes}}`` of every bundle built from the values ``v``, zips opened."""
    d = replace(inputs.definition, title=v["title"], url=v["url"])
    object.__setattr__(d, "name", v["name"])  # past check_name: the quoting alone is under test
    made = replace(inputs, definition=d, order_key=v["key"])
    options = Options(title=v["option_title"], dev_name=v["dev"], final_name=v["final"], reveal_name=v["reveal"],
                      description=v["description"])
    out = {}
    for platform, builder in sorted(PLATFORMS.items()):
        kwargs = {"split": "public"} if platform in ("codabench", "codalab") else {}
        out[platform] = dict(opened(builder(made, options=options, **kwargs).files))
    return out


class _Blank(ast.NodeTransformer):
    def visit_Constant(self, node):
        return ast.Constant("S") if isinstance(node.value, str) else node


def py_shape(data: bytes) -> str:
    return ast.dump(_Blank().visit(ast.parse(data.decode("utf-8"))))


class _Plain:
    """A value made from one of the plain build's values: the hostile build may hold any text there."""

    def __eq__(self, other):
        return isinstance(other, (str, _Plain))

    def __repr__(self):
        return "<value>"


def data_shape(value, exact: bool = False):
    """Keys, list lengths and value types at every level; with ``exact``, every value the inputs did not make
    as it is (a line break in a value must not add a ``command:`` that overrides the program's own)."""
    if isinstance(value, dict):
        return {k: data_shape(v, exact) for k, v in value.items()}
    if isinstance(value, list):
        return [data_shape(v, exact) for v in value]
    if not exact:
        return type(value).__name__
    if isinstance(value, str) and any(p in value for p in PLAIN.values()):
        return _Plain()
    return value


class _UniqueKeys(yaml.SafeLoader):
    """PyYAML keeps the last of two equal keys; a generated file has none."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(k, deep=deep) for k, _ in node.value]
        assert len(keys) == len(set(keys)), f"duplicate YAML key in {keys}"
        return super().construct_mapping(node, deep=deep)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.links, self.handlers = Counter(), [], []

    def handle_starttag(self, tag, attrs):
        if tag != "a":  # (links are checked one by one: a hostile URL is rightly no link)
            self.tags[tag] += 1
        for name, value in attrs:
            if name in ("href", "src", "action", "formaction"):
                self.links.append(value or "")
            if name.startswith("on"):
                self.handlers.append(name)

    handle_startendtag = handle_starttag


def page(text: str) -> Page:
    p = Page()
    p.feed(text)
    p.close()
    return p


def gfm(md: str) -> str:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options as CmarkOptions

    return cmarkgfm.github_flavored_markdown_to_html(md, options=CmarkOptions.CMARK_OPT_UNSAFE)


def shape(path: str, data: bytes):
    """What must not depend on the values, for one file of a bundle (None: a file with no structure to check)."""
    return _shape(path.rsplit("!", 1)[-1].rsplit("/", 1)[-1], data)


@functools.lru_cache(maxsize=4096)  # the vendored runtime's files are the same bytes in every build
def _shape(name: str, data: bytes):
    if name.endswith(".py"):
        return py_shape(data)
    if name.endswith(".yaml") or name == "metadata":
        return data_shape(yaml.load(data.decode("utf-8"), Loader=_UniqueKeys), exact=True)  # noqa: S506 - safe
    if name.endswith(".json"):
        return data_shape(json.loads(data))
    if name.endswith((".html", ".md")):
        text = data.decode("utf-8")
        p = page(gfm(text) if name.endswith(".md") else text)
        return ("page", dict(p.tags))
    return None


def links(path: str, data: bytes) -> list:
    name = path.rsplit("/", 1)[-1]
    if not name.endswith((".html", ".md")):
        return []
    text = data.decode("utf-8")
    p = page(gfm(text) if name.endswith(".md") else text)
    assert not p.handlers, (path, p.handlers)
    return p.links


def _allowed(link: str) -> bool:
    """http(s); or the ``mailto:`` link GitHub's autolinker makes of a literal e-mail address in escaped text
    (the one element text can make: agrieval.scoring.text.markdown)."""
    return link.split(":", 1)[0].lower() in ("http", "https") or link.startswith("mailto:")


@pytest.fixture(scope="module")
def plain(inputs):
    built = build(inputs, PLAIN)
    return {platform: {p: shape(p, d) for p, d in files.items()} for platform, files in built.items()}


def check(inputs, plain, v: dict) -> None:
    built = build(inputs, v)
    assert built.keys() == plain.keys()
    for platform, files in built.items():
        assert files.keys() == plain[platform].keys(), platform
        for path, data in files.items():
            same = shape(path, data) == plain[platform][path]  # (a bool: the shapes are too long to print)
            assert same, (platform, path)
            for link in links(path, data):
                assert _allowed(link), (platform, path, link)
    d = replace(inputs.definition)
    object.__setattr__(d, "name", v["name"])
    if "\x00" not in v["name"]:  # (no shell word holds NUL: a C string ends there)
        # (a name the participant's agrieval does not ship: the bundle's frozen definition)
        which = v["name"] if v["name"] in shipped_competitions() else "competition.json"
        assert shlex.split(validate_command(d)) == ["agrieval", "validate", "submission.csv", "--competition", which]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])
@given(name=values, title=values, url=values, key=values, option_title=values, dev=values, final=values,
       reveal=values, description=values)
@example(name='x"""\nimport os\nos.system("id")\n"""', title="it's \"final\"", url="javascript:alert(1)",
         key="`id`", option_title="a\nb: c", dev="x\ncommand: evil", final="$(id)", reveal="'''",
         description="<img src=x onerror=alert(1)>")
@example(name="a\u2028b\\", title="#", url="java\nscript:alert(1)", key="\\n", option_title="<script>",
         dev="{}", final="%s", reveal="\r", description="</p><script>x</script>\n# h")
def test_hostile_values_change_no_generated_file_shape(inputs, plain, name, title, url, key, option_title, dev,
                                                        final, reveal, description):
    # The overview shows the definition's title under the page's title only where the two differ (never the
    # title twice): equal titles drop a paragraph by design, whatever the text, so the plain build's shape is
    # that of two different titles.
    assume(title != option_title)
    check(inputs, plain, {"name": name, "title": title, "url": url, "key": key, "option_title": option_title,
                          "dev": dev, "final": final, "reveal": reveal, "description": description})


def test_a_plain_https_url_is_a_link_and_a_javascript_url_is_text(inputs):
    for url, linked in (("https://example.org/c", True), ("javascript:alert(1)", False), ("JavaScript:x", False),
                        ("data:text/html,<script>", False), ("//evil.example", False), ("http:x", False)):
        built = build(inputs, dict(PLAIN, url=url))
        html_pages = [d for p, d in built["codabench"].items() if p.endswith("overview.html")]
        assert html_pages
        for data in html_pages:
            found = page(data.decode()).links
            assert found == ([url] if linked else []), (url, found)


# --- the quoting functions themselves: each reads back as the value, whatever the value ---------------------------

texts = st.one_of(values, st.text())


@settings(max_examples=300, deadline=None)
@given(texts)
def test_each_literal_reads_back_as_its_value(text):
    assert ast.literal_eval(lit.python(text)) == text
    assert yaml.safe_load("key: " + lit.yaml(text) + "\n") == {"key": text}
    if "\x00" not in text:
        assert shlex.split(lit.shell_line("cmd", text, "--flag")) == ["cmd", text, "--flag"]
    assert "\n" not in lit.html(text) and "<" not in lit.html(text) and '"' not in lit.html(text)
    block = lit.html_block(text)  # a <pre>'s content: the same lines, each inert
    assert block.count("\n") == text.count("\n") and "<" not in block and "\r" not in block
    assert [lit.html(line) for line in text.split("\n")] == block.split("\n")
    md = lit.markdown_block(text)  # an indented code block: no line of it can leave the block
    inside = md.strip("\n").split("\n")
    assert md.startswith("\n") and md.endswith("\n\n")
    assert all(line.startswith("    ") or line == "" for line in inside) and "\r" not in md


@settings(max_examples=300, deadline=None)
@given(values)
@example("\ufeff- '")  # found by hypothesis: a BOM that starts the document is dropped, the list marker was not escaped
def test_markdown_text_is_inert_even_where_it_starts_or_ends_a_line(text):
    # (a value never starts a generated file: cmark drops a BOM there, which would empty a paragraph)
    for frame in ("intro\n\n{}", "# {}", "intro\n\n{}\n\nafter", "before\n{}", "- item {}", "intro\n\n{}\n---",
                  "{} ends\n"):
        for make in (lit.markdown, lit.markdown_code):
            plain = page(gfm(frame.format("plain")))
            hostile = page(gfm(frame.format(make(text))))
            assert hostile.tags - Counter({"code": 1}) == plain.tags - Counter({"code": 1}), (frame, make, text)
            assert all(link.startswith("mailto:") for link in hostile.links) and not hostile.handlers
