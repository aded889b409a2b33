"""Find what follows a closing quote in a CSV record the ``csv`` module refused.

Python's strict reader stops a file at the first closing quote followed by
anything but the delimiter or a line end, with no column. The usual culprit is
a space typed (or left by an editor) after the quote: this finds it, so that the
reader can name its line and column and read the rest of the file.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

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


class MendedRecord(NamedTuple):
    """What ``mend_record`` found in one record: its lines with every blank after a closing quote taken out,
    how many such blanks it found (each handed to ``on_space`` as found), and the first other character
    after a closing quote (line index, character in the mended line, the trouble) or None."""
    lines: list
    spaces: int
    text: Optional[tuple]  # (k, offset, QuoteTrouble("text", ...))


def mend_record(lines: list, pull, delimiter: str, max_field: int, on_space, quote: str = '"') -> MendedRecord:
    """Every blank after a closing quote in the record that starts at ``lines[0]``, found in one pass.

    ``after_closing_quote`` finds the first such trouble; reading a record again after removing each one
    is quadratic in the troubles of one record (40 KB of ``"a" ,`` took 28 s). This walks the record once,
    by the same grammar, as if each blank had been removed before the next was looked for: the offsets
    are those of the mended line, as a reader would see them one after the other. ``pull()`` appends the
    record's next line to ``lines`` (a quoted field may run over several), False at the end of the file.
    The walk stops at the first field longer than ``max_field`` characters, where the csv module stops
    too, so that the troubles named are those a record-by-record reading would have reached. Each blank
    is handed to ``on_space(k, offset, trouble)`` as it is found (line index in the record, character in
    the mended line, 0-based), never kept: one record may hold millions.
    """
    mended, spaces = [], 0
    k, i, field = 0, 0, 1
    line = lines[0]
    pieces, seg, removed = [], 0, 0  # the current line's mended parts, where its unmended rest starts, blanks out

    def body_end(s: str) -> int:
        return len(s) - (2 if s.endswith("\r\n") else 1 if s.endswith(("\n", "\r")) else 0)

    def finish(text=None) -> MendedRecord:
        mended.append("".join(pieces) + line[seg:])
        return MendedRecord(mended, spaces, text)

    end = body_end(line)
    while True:  # at the start of a field, character i of line k
        if i >= end:
            return finish()  # the record ends (an empty last field, or no field)
        if line[i] != quote:  # unquoted: up to the next delimiter or the line end
            j = line.find(delimiter, i, end)
            j = end if j < 0 else j
            if j - i > max_field:
                return finish()
            if j == end:
                return finish()
            field += 1
            i = j + 1
            continue
        i += 1
        length = 0
        while True:  # inside a quoted field, which may run over several lines
            j = line.find(quote, i)
            if j < 0:
                length += len(line) - i
                if length > max_field or (k + 1 >= len(lines) and not pull()):
                    return finish()  # too long, or never closed: not this kind of problem
                mended.append("".join(pieces) + line[seg:])
                k += 1
                line, i, pieces, seg, removed = lines[k], 0, [], 0, 0
                end = body_end(line)
                continue
            length += j - i
            if line[j + 1:j + 2] == quote:
                length += 1  # a doubled quote stands for one quote
                i = j + 2
                continue
            i = j + 1
            break
        if length > max_field:
            return finish()
        n = len(line)
        if i < n and line[i] != delimiter and line[i] not in "\r\n":  # (the grammar of after_closing_quote)
            b = i
            while b < n and line[b] in _BLANKS:
                b += 1
            if not (b > i and (b >= n or line[b] == delimiter or line[b] in "\r\n")):
                return finish((k, i - removed, QuoteTrouble("text", i - removed, 0, field)))
            on_space(k, i - removed, QuoteTrouble("space", i - removed, b - i, field))
            spaces += 1
            pieces.append(line[seg:i])
            seg, removed = b, removed + b - i
            i = b
        if i >= n or line[i] != delimiter:
            return finish()  # the record ends
        field += 1
        i += 1
