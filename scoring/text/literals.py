"""Values as literals of the language a generated file is written in: one quoting function per language.

Whatever the kit generates for someone else to run or read (the platforms' ``score.py``/``metric.py``/
``evaluate`` packages, ``metadata.yaml``/``competition.yaml``/``challenge_config.yaml``, README and page files
in Markdown and HTML, command lines) receives a value from a definition, a solution or an option only through
one of these functions, never by formatting raw text into code, a comment or a docstring (DESIGN.md, trust
rules: "values are literals"). A template holds code; each hole of it is one literal made here.

=============  =======================  ==============================================================
language       function                 what comes out
=============  =======================  ==============================================================
Python         ``python``               ``repr`` of a str, int, float, bool or None: an expression that
                                        evaluates to the value (newlines, quotes, NUL, U+2028 escaped)
YAML           ``yaml``                 a double-quoted scalar that reads back as the text
POSIX shell    ``shell_word``           ``shlex.quote``: one word, nothing expanded
               ``shell_line``           words quoted and joined by spaces
HTML           ``html``                 text or attribute value, ``& < > " '`` escaped, control
                                        characters ``%XX`` (``agrieval.scoring.text.html``)
               ``html_block``           the same with line breaks kept: the content of a ``<pre>``
               ``html_link``            ``<a href>`` only for ``http``/``https`` URLs, else the text alone
Markdown       ``markdown``             inline text that is never markup (``agrieval.scoring.text.markdown``)
               ``markdown_code``        a code span that holds the text as it is
               ``markdown_block``       an indented code block: the text's lines, each shown as written
=============  =======================  ==============================================================

``#SBATCH`` lines are not a shell: sbatch reads their values without shell quoting, so a value must hold no line
break (a generated job script refuses such a value, then writes the rest of the script's lines with
``shell_word``/``shell_line``).
"""

from __future__ import annotations

import json
import re
import shlex
from urllib.parse import urlsplit

from agrieval.scoring.text import html as _html
from agrieval.scoring.text import markdown as _markdown
from agrieval.scoring.text.terminal import one_line as _one_line

__all__ = ["LINK_SCHEMES", "html", "html_block", "html_link", "markdown", "markdown_block", "markdown_code", "python", "shell_line", "shell_word",
           "yaml"]

LINK_SCHEMES = ("http", "https")

# What a YAML reader refuses in a stream (PyYAML's reader.py NON_PRINTABLE), plus the line breaks that a
# double-quoted scalar folds into a space (NEL, LS, PS): written as escapes instead.
_YAML_ESCAPE = re.compile("[^\x09\x0a\x0d\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ORDERED = re.compile(r"[0-9]{1,9}[.)]")  # an ordered list item's marker, where a line starts
_URL_UNSAFE = re.compile("[\x00-\x20\x7f-\x9f\u2028\u2029]")


def python(value) -> str:
    """A Python expression that evaluates to ``value`` (``repr``; only plain values, whose ``repr`` is one)."""
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise TypeError(f"no Python literal for a {type(value).__name__}")
    if isinstance(value, float) and not abs(value) < float("inf"):
        raise ValueError("nan and infinities have no Python literal")
    return repr(value)


def yaml(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that reads back as ``text`` (JSON's string syntax is YAML's)."""
    return _YAML_ESCAPE.sub(lambda m: "\\u%04x" % ord(m.group()), json.dumps(str(text), ensure_ascii=False))


def shell_word(text: str) -> str:
    """``text`` as one POSIX shell word that expands to nothing else (``shlex.quote``)."""
    return shlex.quote(str(text))


def shell_line(*words: str) -> str:
    """A command line of ``words``, each one shell word (``shell_word``), joined by spaces. A word may hold a
    line break (legal inside quotes): where the line lands in Markdown or HTML, show it with ``markdown_code``
    or ``html``, which write a line break as ``%0A``, never as an indented block that a break would end."""
    return " ".join(shell_word(w) for w in words)


def html(text) -> str:
    """``text`` as HTML element content or a quoted attribute value (one line)."""
    return _html.text(text)


def html_block(text) -> str:
    """``text`` as the content of a ``<pre>`` element: ``html`` with its line breaks kept (each line's control
    characters still ``%XX``)."""
    return _html.text(text, one_line=False)


def html_link(url: str, label: str | None = None) -> str:
    """``<a href="url">label</a>`` when ``url`` is an absolute ``http(s)`` URL; otherwise the escaped text
    alone, never a link (a ``javascript:``, ``data:`` or relative URL from a definition runs or misleads)."""
    shown = html(url if label is None else label)
    if _URL_UNSAFE.search(str(url)):  # browsers drop tabs and line breaks from a URL ("java\nscript:")
        return shown
    try:
        parts = urlsplit(str(url))
    except ValueError:
        return shown
    if parts.scheme.lower() not in LINK_SCHEMES or not parts.netloc:
        return shown
    return f'<a href="{html(url)}" rel="nofollow noopener">{shown}</a>'


def markdown(text) -> str:
    """``text`` as inline Markdown that renders as exactly its (one-line) text, also where it starts or ends a
    line: a leading ``-``, ``+``, ``=`` or ``1.`` is escaped (no list item, rule or setext heading), a leading
    BOM is written ``&#65279;`` (cmark drops one that starts a document, and the rest would start the line),
    and leading or trailing spaces are written ``&#32;`` (no indented code block, no hard line break)."""
    s = str(_markdown.text(text))
    body = s.strip(" ")
    head, tail = s[:len(s) - len(s.lstrip(" "))], s[len(s.rstrip(" ")):] if body else ""
    if body[:1] == "\ufeff":  # cmark drops a BOM that starts the input, and what follows it starts the line
        body = "&#65279;" + body[1:]
    elif body[:1] in ("-", "+", "="):
        body = "\\" + body
    else:
        number = _ORDERED.match(body)
        if number:
            body = body[:number.end() - 1] + "\\" + body[number.end() - 1:]
    return "&#32;" * len(head) + body + "&#32;" * len(tail)


def markdown_block(text) -> str:
    """``text`` as an indented Markdown code block (each line after four blanks, its control characters
    ``%XX``): no line can end the block or become markup, since every one of them is indented. Blank lines
    inside are kept (they do not end an indented block); the block is preceded and followed by a blank line."""
    lines = str(text).rstrip("\n").split("\n")
    return "\n" + "\n".join(("    " + _one_line(line)) if line else "" for line in lines) + "\n\n"


def markdown_code(text) -> str:
    """``text`` as a Markdown code span (one line; the fence longer than any run of backticks inside). Text
    holding two backticks in a row gets an HTML ``<code>`` element around its ``markdown`` text instead (a fence
    of three backticks would open a fenced code block where the span starts a line): still a code element, its
    backticks and markup escaped."""
    if "``" in str(text):
        return f"<code>{markdown(text)}</code>"
    return str(_markdown.code(text))
