"""Find what follows a closing quote in a CSV record the ``csv`` module refused.

Python's strict reader stops a file at the first closing quote followed by
anything but the delimiter or a line end, with no column. The usual culprit is
a space typed (or left by an editor) after the quote: this finds it, so that the
reader can name its line and column and read the rest of the file.
"""

from __future__ import annotations

from typing import NamedTuple

_BLANKS = " \t"


class QuoteTrouble(NamedTuple):
    kind: str  # "space": only blanks then a delimiter or line end; "text": other characters
    start: int  # offset in the record's text of the first character after the closing quote
    length: int  # how many blanks (kind "space"); 0 for "text"
    field: int  # the field (1-based) that the quote closes: the column, as the other problems count columns


def after_closing_quote(record: str, delimiter: str, quote: str = '"') -> QuoteTrouble | None:
    """The first closing quote of ``record`` (one CSV record, as the csv module reads it: doubled quotes
    inside a quoted field, quotes inside an unquoted field kept as text) followed by something other than
    the delimiter or a line end; None if there is none."""
    i, n = 0, len(record)
    start_of_field = True
    field = 1
    while i < n:
        c = record[i]
        if start_of_field and c == quote:
            i += 1
            while True:  # inside a quoted field
                j = record.find(quote, i)
                if j < 0:
                    return None  # never closed: not this kind of problem
                if record[j + 1:j + 2] == quote:
                    i = j + 2  # a doubled quote stands for one quote
                    continue
                i = j + 1
                break
            if i >= n or record[i] == delimiter or record[i] in "\r\n":
                start_of_field = record[i:i + 1] == delimiter
                if i < n and record[i] in "\r\n":
                    return None  # the record ends here
                field += 1
                i += 1
                continue
            k = i
            while k < n and record[k] in _BLANKS:
                k += 1
            if k > i and (k >= n or record[k] == delimiter or record[k] in "\r\n"):
                return QuoteTrouble("space", i, k - i, field)
            return QuoteTrouble("text", i, 0, field)
        if c == delimiter:
            start_of_field = True
            field += 1
        elif c in "\r\n":
            return None
        else:
            start_of_field = False
        i += 1
    return None


def space_message(trouble: QuoteTrouble, character: int) -> str:
    """The message of ``space_after_quote``; ``character``: where the first blank is on its line (1-based)."""
    blanks = "a space" if trouble.length == 1 else f"{trouble.length} blanks (spaces or tabs)"
    return (f"{blanks} after the closing quote of field {trouble.field} (character {character} of the line); "
            "remove the space after the closing quote: the delimiter or the line end must follow it at once")
