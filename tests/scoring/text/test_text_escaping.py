"""Properties of agrieval.scoring.text: for any text, the escaped form is that text and never markup.

Markdown is rendered by GitHub's own parser (cmarkgfm, raw HTML and any URL allowed, so nothing is
hidden by a sanitizer) and by the report's HTML step; HTML is parsed by html.parser; in every case the
elements and attributes are those of the frame around the text, and the text reads back unchanged.
"""

from __future__ import annotations

import html.parser
import io
import unicodedata
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.text import html as html_text
from agrieval.scoring.text import markdown, plot, terminal
from agrieval.scoring.text.markdown_html import to_html
from agrieval.scoring.text.tables import markdown_table

# Text a name can hold: any code point (surrogates too: an undecodable file name byte), markup favoured.
MARKUP = list("\\`*_[]()<>|~#&:$!@.=+-{}\"' \t\n\r") + ["www.", "http://", "javascript:", "<img src=x>", "&lt;",
                                                       "**", "```", "![x](/etc/passwd)", "\u202e", "\x1c", "\x00"]
names = st.lists(st.one_of(st.sampled_from(MARKUP), st.text(min_size=1, max_size=3)), max_size=12).map("".join)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.data = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.data.append(data)


def parse(page: str) -> Page:
    p = Page()
    p.feed(page)
    p.close()
    return p


def gfm(md: str) -> str:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    return cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)


def _blank_stripped(s: str) -> str:
    return s.strip(" ")


def _only_mailto(page: Page, shown: str) -> None:
    """GitHub links a literal e-mail address after escapes are resolved: the only element text can make.

    Its href is ``mailto:`` + an address that is in the text, the text itself when it already reads
    ``...mailto:address`` (the scheme then ends in ``mailto``/``xmpp``: never ``javascript:`` or ``data:``),
    or, after a bare ``xmpp:``, a relative link made of the text's own characters (no scheme at all).
    """
    for name, value in page.attrs:
        if name == "align" and value in ("left", "right"):  # the table's own column alignment
            continue
        assert name == "href" and "@" in value, (name, value)
        scheme, colon, address = value.partition(":")
        assert not colon or scheme.lower().endswith(("mailto", "xmpp")), value  # no other scheme, ever
        assert (address if colon else value) in shown.replace("\\", ""), (value, shown)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names)
def test_markdown_text_is_text_to_github_in_a_paragraph_a_heading_and_a_table(s):
    shown = terminal.one_line(s)
    para = parse(gfm(f"before {markdown.text(s)} after\n"))
    assert set(para.tags) <= {"p", "a"}
    _only_mailto(para, shown)
    assert "".join(para.data).strip("\n") == f"before {shown} after"

    head = parse(gfm(markdown.heading(3, s) + "\n"))
    assert set(head.tags) <= {"h3", "a"}
    _only_mailto(head, shown)
    assert "".join(head.data).strip("\n") == _blank_stripped(shown)

    table = parse(gfm(markdown_table(["name", "score"], [[s, "0.5000"]])))
    assert set(table.tags) <= {"table", "thead", "tbody", "tr", "th", "td", "a"} and table.tags.count("td") == 2
    _only_mailto(table, shown)
    cells = [d for d in table.data if d.strip("\n")]
    assert cells[:2] == ["name", "score"] and cells[-1] == "0.5000"
    assert "".join(cells[2:-1]) == _blank_stripped(terminal.one_line(s))


@settings(max_examples=300, deadline=None)
@given(names, names)
def test_the_reports_html_step_makes_no_element_of_escaped_text(s, t):
    md = (f"# {markdown.text(s)}\n\nread from {markdown.code(t)} and {markdown.text(t)}\n\n"
          + markdown_table([s, "n"], [[t, "1"], [markdown.Markdown("**Mean**"), "2"]])
          + f"\n![{markdown.text(s)} heatmap](plots/a.png)\n\n> {markdown.text(t)}\n")
    page = parse(to_html(md, s, images={"plots/a.png": Path("/no/such/a.png")}))  # missing: a note
    assert page.tags == ["html", "head", "meta", "title", "style", "body", "h1", "p", "code", "table", "tr", "th",
                         "th", "tr", "td", "td", "tr", "td", "strong", "td", "p", "em", "blockquote"]
    assert page.attrs == [("lang", "en"), ("charset", "utf-8")] + [("class", c) for c in "lrlrlr"]
    text = "".join(page.data)
    for shown in (terminal.one_line(s), terminal.one_line(t)):
        assert shown.strip(" ") in text


@settings(max_examples=300, deadline=None)
@given(names)
def test_html_text_is_text_in_content_and_in_an_attribute(s):
    page = parse(f"<p title=\"{html_text.text(s)}\">{html_text.text(s)}</p>")
    assert page.tags == ["p"] and page.attrs == [("title", terminal.one_line(s))]
    assert "".join(page.data) == terminal.one_line(s)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_one_line_has_no_character_a_terminal_acts_on(s):
    out = terminal.one_line(s)
    assert len(out.splitlines()) <= 1 and "\r" not in out
    assert not [c for c in out if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp")]
    assert not [c for c in out if unicodedata.bidirectional(c) in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI",
                                                                    "FSI", "PDI")]
    out.encode("utf-8")  # writable to any UTF-8 file
    if terminal.is_safe(s):
        assert out == s


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names)
def test_matplotlib_draws_any_name_as_text(s):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would reach stderr: it fails here
        with plot.drawing():
            fig, ax = plt.subplots(figsize=(2, 2))
            ax.set_title(plot.label(s))
            ax.set_xticks([0], [plot.label(s)])
            ax.annotate(plot.label(s), (0, 0))
            ax.plot([0], [0], label=plot.label(s))
            ax.legend()
            fig.savefig(io.BytesIO(), format="png", bbox_inches="tight")
            plt.close(fig)


def test_a_long_name_is_cut_on_a_figure():
    assert len(plot.label("x" * 100_000)) == plot.MAX_LABEL


def test_a_name_starting_with_an_underscore_keeps_its_legend_entry():
    assert plot.label("_nolegend_") == " _nolegend_"
