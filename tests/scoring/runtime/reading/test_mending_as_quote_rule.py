"""Property: the reader names the blanks after closing quotes of an irregular file as the per-record quote rule
names them, one at a time.

``quote_trouble.after_closing_quote`` is the rule that words these problems (the header's too): the first closing
quote of a record followed by something other than the delimiter or the line end. Applied again and again to a
record, each blank run taken out before the next is looked for, it says which blanks a reader must name, where
(line of the record, character of the mended line, field) and where the reading stops. ``mend_record`` finds
them all in one pass (issue 43: one at a time was quadratic); hypothesis draws records from a hostile alphabet to
compare the two. The whole files below, with every problem written out by hand, check what the csv-module path
makes of it: the lines of a record over several lines, the stop at a field too long or an unclosed quote.
"""

from __future__ import annotations

import dataclasses
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.reading import _quote_trouble as quote_trouble
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.runtime.reading.strict_reading import strict_reading

PIECES = ['"', '""', " ", "\t", "  ", ",", ";", "\n", "\r", "\r\n", "a", "Q-1", "[1]", '"[1, 2]"', '"Q-2" ',
          '"x" ,', '"y"\t,', '"z" \n', "\x00", "é", "x" * 13]


def _lines(text: str) -> list[str]:
    return list(io.StringIO(text, newline=""))  # the lines as the csv module splits them


def _where(text: str, at: int) -> tuple[int, int]:
    """(line of ``text``, character of that line) of position ``at``."""
    k = 0
    for line in _lines(text):
        if at < len(line):
            return k, at
        at -= len(line)
        k += 1
    return k, at


def one_at_a_time(text: str, delimiter: str) -> tuple[list[tuple], tuple | None, str]:
    """The blanks of the record at the start of ``text`` by the quote rule alone: each as (line, character of the
    mended line, field, length); the text after a closing quote that stops the reading (line, character, field)
    or None; and ``text`` with those blanks taken out."""
    blanks = []
    while True:
        trouble = quote_trouble.after_closing_quote(text, delimiter)
        if trouble is None:
            return blanks, None, text
        k, character = _where(text, trouble.start)
        if trouble.kind == "text":
            return blanks, (k, character, trouble.field), text
        blanks.append((k, character, trouble.field, trouble.length))
        text = text[:trouble.start] + text[trouble.start + trouble.length:]


def one_pass(text: str, delimiter: str) -> tuple[list[tuple], tuple | None, str]:
    """The same from ``mend_record``, the record's lines pulled one by one as the reader pulls them."""
    rest = _lines(text)
    lines = [rest.pop(0)] if rest else [""]
    blanks = []

    def pull() -> bool:
        if not rest:
            return False
        lines.append(rest.pop(0))
        return True

    def on_space(k, offset, trouble):
        blanks.append((k, offset, trouble.field, trouble.length))

    found = quote_trouble.mend_record(lines, pull, delimiter, 10**9, on_space)
    assert found.spaces == len(blanks)
    stop = (found.text[0], found.text[1], found.text[2].field) if found.text else None
    return blanks, stop, "".join(found.lines) + "".join(rest)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.sampled_from([",", ";"]))
def test_one_pass_finds_the_blanks_the_quote_rule_finds_one_at_a_time(pieces, delimiter):
    text = "".join(pieces)
    assert one_pass(text, delimiter) == one_at_a_time(text, delimiter)


PLANTCLEF = load_competition("plantclef2025")
# a small cell limit, so that the field-limit stop is reached by a short file
SMALL = dataclasses.replace(PLANTCLEF, limits=dataclasses.replace(PLANTCLEF.limits, max_cell_chars=12))
HEAD = b"quadrat_id,species_ids\n"


def _blank(line: int, field: int, character: int, n: int = 1) -> tuple:
    blanks = "a space" if n == 1 else f"{n} blanks (spaces or tabs)"
    return ("space_after_quote", line, field,
            f"{blanks} after the closing quote of field {field} (character {character} of the line)")


# Each file with what a reader must say of it, worked out by hand: (code, line, column, the message's start), and
# the ids read. Line 1 is the header; a character counts on the line as mended so far (its earlier blanks out).
SHAPES = {
    "two rows": (PLANTCLEF, HEAD + b'"Q-1" ,"[1]" \n"Q-2"  ,  "[2]"\t\n', ["Q-1", "Q-2"], [
        _blank(2, 1, 6), _blank(2, 2, 12),
        _blank(3, 1, 6, 2),  # then a blank before an opening quote: the quotes are text (list_syntax)
    ]),
    # a record over lines 2-4 (quoted fields holding a LF and a CRLF): each blank on its own line, the row ragged
    "one record over three lines": (PLANTCLEF, HEAD + b'"Q-1" ,"a\n b" ,"c\r\nd"  ,"[1]"\n"Q-2","[2]"\n', ["Q-2"], [
        _blank(2, 1, 6), ("ragged_row", 2, 3, "this row has 4 fields but the header has 2"),
        _blank(3, 2, 4), _blank(4, 3, 3, 2),
    ]),
    "text after a quote after a blank": (PLANTCLEF, HEAD + b'"Q-1" ,"[1]" x\n', [], [
        _blank(2, 1, 6),
        ("malformed_csv", 2, 2, "' x' follows the closing quote of field 2 (character 12 of the line)"),
    ]),
    "a quote left open": (PLANTCLEF, HEAD + b'"Q-1" ,"open\n' + b'"x" ,' * 3, [], [
        ("malformed_csv", 2, None, "a double quote on this line is never closed on it: the quoted field runs on to "
                                   "line 3, where 'x\" ,\"x\" ,\"x\" ,' follows its closing quote"),
        _blank(2, 1, 6),
    ]),
    "text after a quote on a record's second line": (PLANTCLEF, HEAD + b'"Q-1","a\nb" x,"[1]"\n', [], [
        ("malformed_csv", 2, None, "a double quote on this line is never closed on it: the quoted field runs on to "
                                   "line 3, where ' x,\"[1]\"' follows its closing quote"),
    ]),
    "a field past the cell limit": (SMALL, HEAD + b'"Q-1" ,"[1]"\n"Q-2","' + b"1" * 13 + b'"\n', [], [
        _blank(2, 1, 6), ("malformed_csv", 3, None, "a field is longer than 12 characters"),
    ]),
    "semicolons": (PLANTCLEF, HEAD.replace(b",", b";") + b'"Q-1" ;"[1]"\n', ["Q-1"], [
        ("wrong_delimiter", 1, None, "columns are separated by ';' (semicolon) but this competition expects ','"),
        _blank(2, 1, 6),
    ]),
}


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("strict", [False, True], ids=["shipped", "strict"])
def test_irregular_files_read_as_worked_out_by_hand(monkeypatch, name, strict):
    definition, data, ids, expected = SHAPES[name]
    if strict:
        strict_reading(monkeypatch)
    sub = read_submission(data, definition)
    said = [(p.code, p.line, p.column, p.message) for p in sub.problems
            if p.code in ("space_after_quote", "malformed_csv", "ragged_row", "wrong_delimiter")]
    assert [s[:3] for s in said] == [e[:3] for e in expected]
    for (_, _, _, message), (_, _, _, start) in zip(said, expected):
        assert message.startswith(start), (message, start)
    assert list(sub.ids) == ids
