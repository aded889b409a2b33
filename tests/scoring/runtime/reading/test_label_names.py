"""A label written as a species name (``label_cells._looks_like_name``, which adds the hint to find its
integer id) is told apart as a loop over its characters tells it: letters and `` .-'×`` only, at least two
letters, once blanks and quotes around it are stripped. The reader tests it with string methods in C (a
19,000-character cell took 20 ms a character at a time)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.reading._label_cells import _looks_like_name


def _by_character(text: str) -> bool:
    t = text.strip().strip("'\"").strip()
    return sum(c.isalpha() for c in t) >= 2 and all(c.isalpha() or c in " .-'×" for c in t)


@settings(max_examples=2000)
@given(st.text(alphabet=st.sampled_from(list(" .-'×\"\taZéß1,;\u0301\u00aa\u2160")) | st.characters(), max_size=10))
def test_a_name_is_told_apart_as_a_loop_over_its_characters_tells_it(text):
    assert _looks_like_name(text) == _by_character(text)


def test_names_and_numbers():
    assert _looks_like_name("Poa annua") and _looks_like_name(" 'Festuca rubra L.' ")
    assert _looks_like_name("Mentha × piperita")
    assert not _looks_like_name("1355868") and not _looks_like_name("P") and not _looks_like_name("Poa 2")
