"""HTML for the small Markdown subset the reports are written in: headings,
pipe tables, images on their own line, ``>`` notes, bold and code spans, and
paragraphs. Every text is HTML-escaped; images are embedded as data URIs so
that report.html is one self-contained file.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]+)\)$")
_IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _inline(text: str) -> str:
    text = html.escape(text, quote=False).replace("\\|", "|")
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)


def _cells(line: str) -> list[str]:
    parts = re.split(r"(?<!\\)\|", line.strip()[1:-1])
    return [p.strip() for p in parts]


def to_html(markdown: str, base_dir: Path, title: str) -> str:
    out = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>",
           "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 7px}"
           "td.r,th.r{text-align:right}blockquote{color:#8a4b00}img{max-width:100%}</style></head><body>"]
    lines = markdown.splitlines()
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
            src = base_dir / m.group(2)
            kind = _IMAGE_TYPES.get(src.suffix.lower())
            if kind is None:  # a PDF figure: no browser shows it inline; linked, next to the report
                out.append(f"<p><a href=\"{html.escape(m.group(2))}\">{html.escape(m.group(1))} (PDF)</a></p>")
            else:
                data = base64.b64encode(src.read_bytes()).decode("ascii")
                out.append(f"<p><img alt=\"{html.escape(m.group(1))}\" src=\"data:{kind};base64,{data}\"></p>")
            i += 1
        elif line.startswith(">"):
            out.append(f"<blockquote>{_inline(line.lstrip('> '))}</blockquote>")
            i += 1
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", ">", "![")):
                para.append(lines[i])
                i += 1
            out.append(f"<p>{_inline(' '.join(para))}</p>")
    out.append("</body></html>\n")
    return "\n".join(out)
