"""File names that are not valid UTF-8, as text that survives CSV, Parquet and JSON.

On POSIX a file name is bytes; Python decodes the bytes that are not UTF-8 to
lone surrogates (U+DC80..U+DCFF, PEP 383), which no UTF-8 writer accepts.
``escape_name`` writes each such byte as ``%XX`` and a literal ``%`` as
``%25``, so every name has one text form and ``unescape_name`` gives the exact
name back; names without ``%`` and with valid UTF-8 are unchanged.
``display_name`` is for messages only: undecodable bytes as ``%XX``, nothing
else touched. Stdlib only.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPE = re.compile("%(25|[89A-Fa-f][0-9A-Fa-f])")


def _byte(match: re.Match) -> str:
    return f"%{ord(match.group(0)) - 0xDC00:02X}"


def escape_name(name: str) -> str:
    """``%`` -> ``%25``, each undecodable byte -> ``%XX`` (upper-case hex)."""
    return _SURROGATE.sub(_byte, name.replace("%", "%25"))


def unescape_name(text: str) -> str:
    """The inverse of ``escape_name``; other ``%`` sequences (a hand-written ``100%.jpg``) stay as they are."""
    if "%" not in text:
        return text

    def one(match: re.Match) -> str:
        code = int(match.group(1), 16)
        return "%" if code == 0x25 else chr(0xDC00 + code)

    return _ESCAPE.sub(one, text)


def display_name(text: str) -> str:
    """Undecodable bytes as ``%XX``, for a message that must be printable; not reversible."""
    return _SURROGATE.sub(_byte, text)


def has_undecodable(text: str) -> bool:
    return _SURROGATE.search(text) is not None
