"""One printable line from any text: what a name may hold never moves the cursor, splits a line or turns
the text around.

``one_line`` writes as ``%XX`` (the UTF-8 bytes, upper-case hex) every character that a terminal or a
line-based reader would act on: C0 and C1 control characters (newline, carriage return, tab, escape),
DEL, the Unicode line and paragraph separators, the bidirectional overrides and isolates ("Trojan
source" reordering), and a lone surrogate (an undecodable byte of a POSIX file name, PEP 383: its byte).
Everything else is kept. ``cell`` is the column of a fixed-width table: the same line, clipped and padded, so
that a name printed in a table (a team, a run, a file) can neither move the cursor over the columns next to it
nor hide a mark such as the audit's ``FLAGGED``. Every padded text cell of the kit's terminal tables is one
(``tests/newcomer/test_trust_rule_homes.py`` reads the modules for a bypass). Not reversible (a literal ``%`` stays), like ``agrieval.scoring.text.file_names.display_name``,
which keeps tabs and newlines for multi-line messages.
"""

from __future__ import annotations

import re

__all__ = ["cell", "is_safe", "one_line", "printable"]

# C0, DEL, C1; U+2028/2029; bidi marks, embeddings, overrides and isolates; lone surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _percent(match: re.Match) -> str:
    c = match.group(0)
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape): that byte
        return f"%{code - 0xDC00:02X}"
    if 0xD800 <= code <= 0xDFFF:  # any other lone surrogate cannot be encoded: its code point
        return f"%u{code:04X}"
    return "".join(f"%{b:02X}" for b in c.encode("utf-8"))


def one_line(text: object) -> str:
    """``text`` as one printable line: each unsafe character as ``%XX``."""
    return _UNSAFE.sub(_percent, "" if text is None else str(text))


def cell(text: object, width: int, align: str = "<", clip: bool = False) -> str:
    """``one_line(text)`` as a table column of ``width`` characters (``align``: ``<``, ``>`` or ``^``); ``clip``:
    cut to ``width`` (after escaping, so no cut leaves half an escape sequence behind)."""
    if align not in ("<", ">", "^"):
        raise ValueError(f"align must be '<', '>' or '^', not {align!r}")
    s = one_line(text)
    return format(s[:width] if clip else s, f"{align}{width}")


def printable(text: object, keep: str = "") -> str:
    """``one_line`` but the characters of ``keep`` (``"\\t\\n"``: a message of several lines) left as they are."""
    s = "" if text is None else str(text)
    if not keep:
        return one_line(s)
    return _UNSAFE.sub(lambda m: m.group(0) if m.group(0) in keep else _percent(m), s)


def is_safe(text: str, keep: str = "") -> bool:
    """Whether ``printable(text, keep)`` leaves ``text`` unchanged."""
    return all(m.group(0) in keep for m in _UNSAFE.finditer(text))
