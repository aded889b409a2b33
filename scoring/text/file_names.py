"""File names that are not valid UTF-8, as text that survives CSV, Parquet and JSON.

On POSIX a file name is bytes; Python decodes the bytes that are not UTF-8 to
lone surrogates (U+DC80..U+DCFF, PEP 383), which no UTF-8 writer accepts.
``escape_name`` writes each such byte as ``%XX``, as well as control
characters (a carriage return in a name splits a CSV row) and a literal ``%``
(``%25``), so every name has one printable text form and ``unescape_name``
gives the exact name back; names without ``%`` or control characters and with
valid UTF-8 are unchanged. ``display_name`` is for messages only: the same
``%XX`` for undecodable bytes and control characters (but tab and newline),
``%`` left alone, not reversible (``agrieval.scoring.text.terminal``, which also writes line separators and bidi
overrides so). Stdlib only.
"""

from __future__ import annotations

import re

from agrieval.scoring.text.terminal import is_safe, printable

_ESCAPED = re.compile("[\udc80-\udcff\x00-\x1f\x7f]")
_ESCAPE = re.compile("%(25|[01][0-9A-Fa-f]|7[Ff]|[89A-Fa-f][0-9A-Fa-f])")


def _byte(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"%{code - 0xDC00 if code >= 0xDC00 else code:02X}"


def escape_name(name: str) -> str:
    """``%`` -> ``%25``; each undecodable byte and control character -> ``%XX`` (upper-case hex)."""
    return _ESCAPED.sub(_byte, name.replace("%", "%25"))


def unescape_name(text: str) -> str:
    """The inverse of ``escape_name``; other ``%`` sequences (a hand-written ``100%.jpg``) stay as they are."""
    if "%" not in text:
        return text

    def one(match: re.Match) -> str:
        code = int(match.group(1), 16)
        return chr(code) if code < 0x80 else chr(0xDC00 + code)

    return _ESCAPE.sub(one, text)


def display_name(text: str) -> str:
    """Undecodable bytes, control characters but tab and newline, line separators and bidi overrides as
    ``%XX``, for a printable message (``agrieval.scoring.text.terminal.printable``); not reversible."""
    return printable(text, keep="\t\n")


def has_undecodable(text: str) -> bool:
    """Text that ``display_name`` changes (a lone surrogate, a control character other than tab/newline...)."""
    return not is_safe(text, keep="\t\n")
