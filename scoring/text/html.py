"""HTML from untrusted text: ``text`` for element content and attribute values (quotes escaped too).

Characters that HTML cannot carry or that act on a reader (control characters, lone surrogates, which no
UTF-8 writer accepts, bidi overrides) are first written ``%XX`` (``agrieval.scoring.text.terminal``); newlines are
kept unless ``one_line``.
"""

from __future__ import annotations

import html as _html

from agrieval.scoring.text.terminal import one_line as _one_line


def text(value: object, *, one_line: bool = True) -> str:
    s = "" if value is None else str(value)
    if one_line:
        s = _one_line(s)
    else:
        s = "\n".join(_one_line(part) for part in s.split("\n"))
    return _html.escape(s, quote=True)
