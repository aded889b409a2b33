"""The escaping functions over every Unicode code point and every way a Markdown line can start, rather than
the random draws of the property tests (which rarely meet U+2028, or '+' at the start of a line):
``terminal.one_line`` against ``unicodedata``'s categories and bidirectional classes, ``literals.yaml`` read
back by PyYAML, ``literals.markdown`` rendered by GitHub's own parser (scripts/mutation_check.py:
``one_line_keeps_line_separators``, ``yaml_keeps_line_separators``, ``markdown_leading_plus``,
``markdown_paren_list_item``)."""

from __future__ import annotations

import string
import unicodedata

import pytest
import yaml

from agrieval.scoring.text import literals, terminal
from tests.scoring.text.test_text_escaping import gfm, parse

# Every code point but the surrogates (a lone surrogate is its own case in one_line, and cannot be YAML)
EVERY = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
# what reorders a line (Trojan source): the bidirectional embeddings, overrides, isolates and marks
BIDI_CONTROLS = {"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"}
BIDI_MARKS = {"\u200e", "\u200f", "\u061c"}


def test_one_line_leaves_no_code_point_a_terminal_acts_on():
    out = terminal.one_line(EVERY)
    assert out.splitlines() == [out]  # no line break of any kind (str.splitlines knows U+2028, U+2029, NEL...)
    left = {c for c in set(out)
            if unicodedata.category(c) in ("Cc", "Zl", "Zp") or unicodedata.bidirectional(c) in BIDI_CONTROLS
            or c in BIDI_MARKS}
    assert not left, sorted(map(hex, map(ord, left)))
    assert terminal.one_line("a\u2028b\u2029c") == "a%E2%80%A8b%E2%80%A9c"  # their UTF-8 bytes


def test_yaml_reads_back_every_code_point():
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert yaml.load(literals.yaml(EVERY), Loader=loader) == EVERY
    # a raw line or paragraph separator is a line break to PyYAML: the blanks around it would be folded away
    for text in ("a \u2028 b", "a \u2029 b", "a \x85 b", "a\u2028b\u2029c\x85d"):
        for loader in (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            assert yaml.load(literals.yaml(text), Loader=loader) == text


LINE_STARTS = sorted({c + tail for c in string.printable.strip() for tail in (" x", "", "x", "  ")}
                     | {f"{n}{m}{tail}" for n in ("1", "12", "123456789", "1234567890") for m in ".)"
                        for tail in ("", " x")}
                     | {"***", "---", "___", "===", "+++", "- - -", "* * *", "# x", "```", "~~~", "> x", "    x",
                        "<div>", "<!-- x", "[x]: /u", "| a |", "+ item", "1) item", " + x", "-\tx"})


@pytest.mark.parametrize("s", LINE_STARTS)
def test_markdown_renders_as_its_text_where_it_starts_a_line(s):
    shown = terminal.one_line(s)
    page = parse(gfm(literals.markdown(s) + "\n"))
    assert set(page.tags) <= {"p"}, page.tags  # no list item, rule, heading, code block, quote or HTML
    assert "".join(page.data).strip("\n") == shown  # leading and trailing blanks kept too (&#32;)
