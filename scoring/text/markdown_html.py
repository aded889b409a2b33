"""HTML for the small Markdown subset the reports are written in: headings,
pipe tables, images on their own line, ``>`` notes, bold and code spans, and
paragraphs, read as CommonMark reads them (backslash escapes, code spans of
any fence length, ``\\|`` inside a table cell), so that text escaped by
``agrieval.scoring.text.markdown`` is text here too. Every text is HTML-escaped.

Images: only those in ``images`` (the report's own figures: the name the
Markdown uses -> the file the report wrote) are embedded, as data URIs, so
that report.html is one self-contained file. An image line naming anything
else is shown as text; a figure that is missing, not a regular file or
larger than ``MAX_IMAGE_BYTES`` is a one-line note. No path from the Markdown
text is ever opened.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from pathlib import Path

from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes
from agrieval.scoring.text import literals as lit

MAX_IMAGE_BYTES = 32 * 1024 * 1024  # our figures are well under 1 MB
_IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}

_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_IMAGE = re.compile(r"^!\[((?:\\.|[^\]\\])*)\]\(([^()\s]+)\)$")


def _tokens(text: str) -> list[tuple[str, str]]:
    """('text', s), ('code', s) and ('strong', '**') tokens, as CommonMark scans a line."""
    out: list[tuple[str, str]] = []
    buf: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in _PUNCT:
            buf.append(text[i + 1])
            i += 2
        elif c == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            close = _closing_fence(text, j, j - i)
            if close < 0:
                buf.append(text[i:j])
                i = j
                continue
            content = text[j:close]
            if len(content) >= 2 and content[0] == content[-1] == " " and content.strip(" "):
                content = content[1:-1]
            out += [("text", "".join(buf)), ("code", content)]
            buf = []
            i = close + (j - i)
        elif text.startswith("**", i):
            out += [("text", "".join(buf)), ("strong", "**")]
            buf = []
            i += 2
        else:
            buf.append(c)
            i += 1
    out.append(("text", "".join(buf)))
    return [t for t in out if t[1]]


def _closing_fence(text: str, start: int, length: int) -> int:
    k, n = start, len(text)
    while k < n:
        if text[k] == "`":
            m = k
            while m < n and text[m] == "`":
                m += 1
            if m - k == length:
                return k
            k = m
        else:
            k += 1
    return -1


def _inline(text: str) -> str:
    tokens = _tokens(text)
    stars = [k for k, (kind, _) in enumerate(tokens) if kind == "strong"]
    opening = set(stars[0:len(stars) // 2 * 2:2])
    closing = set(stars[1:len(stars) // 2 * 2:2])
    out = []
    for k, (kind, value) in enumerate(tokens):
        if kind == "code":
            out.append(f"<code>{lit.html(value)}</code>")
        elif k in opening:
            out.append("<strong>")
        elif k in closing:
            out.append("</strong>")
        else:  # text, or an unpaired ** shown as written
            out.append(lit.html(value))
    return "".join(out)


def _cells(line: str) -> list[str]:
    """The cells of a table row: split at pipes that no backslash escapes, then ``\\|`` -> ``|`` (GFM)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    cells, buf, i = [], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            buf.append(body[i:i + 2])
            i += 2
        elif body[i] == "|":
            cells.append("".join(buf))
            buf = []
            i += 1
        else:
            buf.append(body[i])
            i += 1
    if "".join(buf).strip():
        cells.append("".join(buf))
    return [c.strip().replace("\\|", "|") for c in cells]


def _figure(alt: str, name: str, images: Mapping[str, Path]) -> str:
    path = images.get(name)
    if path is None:  # not one of ours: text, never a file
        return f"<p>{_inline(f'![{alt}]({name})')}</p>"
    plain = "".join(value for kind, value in _tokens(alt) if kind != "strong")  # an attribute holds text only
    kind = _IMAGE_TYPES.get(Path(name).suffix.lower())
    if kind is None:  # a PDF figure (one of ours, by name): no browser shows it inline; linked, next to the report
        return f"<p><a href=\"{lit.html(name)}\">{lit.html(plain)} (PDF)</a></p>"
    data = _read_figure(Path(path))
    if data is None:
        return f"<p><em>(figure {lit.html(name)} is not available)</em></p>"
    return (f"<p><img alt=\"{lit.html(plain)}\" "
            f"src=\"data:{kind};base64,{base64.b64encode(data).decode('ascii')}\"></p>")


def _read_figure(path: Path) -> bytes | None:
    """A figure's bytes, by the one opening rule (``scoring/runtime/untrusted.py``): a regular file of at most
    ``MAX_IMAGE_BYTES``, and not a link (the report's figures are files it wrote); None otherwise."""
    try:
        return read_bytes(path, max_bytes=MAX_IMAGE_BYTES, what="figure", follow_links=False)
    except (UntrustedFileError, OSError):
        return None


def to_html(markdown: str, title: str, images: Mapping[str, Path] | None = None) -> str:
    """The page for ``markdown``; ``images`` maps each figure name the Markdown may use to its file."""
    images = dict(images or {})
    out = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{lit.html(title)}</title>",
           "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 7px}"
           "td.r,th.r{text-align:right}blockquote{color:#8a4b00}img{max-width:100%}</style></head><body>"]
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif m := re.match(r"^(#{1,4}) (.*)$", line):
            n = len(m.group(1))
            out.append(f"<h{n}>{_inline(m.group(2))}</h{n}>")
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[ :\-|]+\|$", lines[i + 1]):
            header = _cells(line)
            align = ["r" if c.endswith(":") and not c.startswith(":") else "l" for c in _cells(lines[i + 1])]
            rows = ["<tr>" + "".join(f"<th class=\"{a}\">{_inline(c)}</th>" for c, a in zip(header, align)) + "</tr>"]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append("<tr>" + "".join(f"<td class=\"{a}\">{_inline(c)}</td>"
                                             for c, a in zip(_cells(lines[i]), align)) + "</tr>")
                i += 1
            out.append("<table>" + "".join(rows) + "</table>")
        elif m := _IMAGE.match(line.strip()):
            out.append(_figure(m.group(1), m.group(2), images))
            i += 1
        elif line.startswith(">"):
            out.append(f"<blockquote>{_inline(line[1:].lstrip(' '))}</blockquote>")
            i += 1
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", ">", "![")):
                para.append(lines[i])
                i += 1
            if not para:  # a line that looks like a block start but is none: text
                para, i = [lines[i]], i + 1
            out.append(f"<p>{_inline(' '.join(para))}</p>")
    out.append("</body></html>\n")
    return "\n".join(out)
