"""Markdown (CommonMark and GitHub's dialect) from untrusted text: ``text`` is shown as written, never
read as markup.

Every character that can start markup inside a line is backslash-escaped (CommonMark lets any ASCII
punctuation be escaped): ``\\ ` * _ [ ] < > | ~ # & $``: no emphasis, code, link, image, raw HTML,
entity, table cell break, strikethrough, heading close or math (GitHub's ``$``); and the ``:`` of
``scheme://``, ``mailto:`` and ``xmpp:`` and the dot of ``www.``, where GitHub would start an autolink.
An ``_`` between two letters or digits is left alone: CommonMark never reads it as emphasis
(``swin_base`` stays readable).
Line breaks and other control characters become ``%XX`` first (``agrieval.scoring.text.terminal``), so a value
cannot end the line and start a block (a heading, a table row, an image line).

The one element GitHub still makes of escaped text is a ``mailto:`` link for a literal e-mail address
(its autolinker runs after escapes are resolved); its address is the shown text, nothing else.

``Markdown`` marks text that *is* markup (our own ``**Mean**``); ``markdown_table`` cells that are not
``Markdown`` are escaped with ``text``.
"""

from __future__ import annotations

import re

from agrieval.scoring.text.terminal import one_line

# ":" only where an autolink could start (``http://``, ``mailto:``, ``xmpp:``): messages keep their colons
_SPECIAL = re.compile(r"[\\`*\[\]<>|~#&$]|_|(?<=www)\.|:(?=/)|(?<=mailto):|(?<=xmpp):", re.IGNORECASE)


class Markdown(str):
    """Text that is already Markdown (written by us): ``text`` and ``markdown_table`` leave it as is."""


def _escape(match: re.Match) -> str:
    c = match.group(0)
    if c == "_":
        s, i = match.string, match.start()
        if 0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum():
            return c  # intraword: never emphasis
    return "\\" + c


def text(value: object) -> Markdown:
    """``value`` as inline Markdown that renders as exactly its (one-line) text."""
    if isinstance(value, Markdown):
        return value
    return Markdown(_SPECIAL.sub(_escape, one_line(value)))


def code(value: object) -> Markdown:
    """``value`` as a code span (outside tables: a code span keeps ``\\|`` as two characters).

    The fence is one backtick longer than the longest run inside, and a space pads text that starts or
    ends with a backtick or a space, as CommonMark specifies; nothing inside a code span is markup.
    """
    s = one_line(value)
    runs = [len(r) for r in re.findall("`+", s)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if not s or s[:1] in ("`", " ") or s[-1:] in ("`", " ") else ""  # (an empty span is no span)
    return Markdown(f"{fence}{pad}{s}{pad}{fence}")


def heading(level: int, value: object) -> Markdown:
    """A heading line (no line end) of escaped text."""
    return Markdown("#" * level + " " + text(value))
