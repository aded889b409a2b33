"""Kaggle calls the metric once with the public rows and once with the private rows: no message may tell which.

Planted attack: distinct bad values on chosen rows (a float label on one, an
unknown species on another, a negative label, an empty cell...). If any message
said a line, a count, a cell or even which code fired, the participant would
learn which split each planted row is in. Every message must be one of the
split-independent texts, whichever rows a call holds.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime._platforms.kaggle import ParticipantVisibleError, score
from agrieval.scoring.runtime._split_safe import ROWS_INVALID_MESSAGE
from tests.platforms.hook_drivers import SOLUTION

PERFECT = SOLUTION.parent / "submissions" / "perfect.csv"
# Each kind makes a distinct problem code in the strict reader.
BAD_VALUES = {"float": "[1355868.0]", "unknown": "[9999999]", "negative": "[-5]", "empty": "",
              "syntax": "1355868, 1355869", "nested": "[[1355868]]", "too_large": "[1234567890123456789012]"}
ALLOWED = {f"error [rows_invalid] {ROWS_INVALID_MESSAGE.format(competition='plantclef2025')}"}


def _frames():
    solution = pd.read_csv(SOLUTION, dtype=str, keep_default_na=False)
    submission = pd.read_csv(PERFECT, dtype=str, keep_default_na=False)
    return solution, submission


SOLUTION_FRAME, PERFECT_FRAME = _frames()
N = len(PERFECT_FRAME)


def _calls(submission: pd.DataFrame) -> dict[str, str]:
    """What each of Kaggle's two calls says: 'scored' or the participant-visible message."""
    out = {}
    for usage in ("Public", "Private"):
        part = SOLUTION_FRAME[SOLUTION_FRAME.Usage == usage].drop(columns="Usage").reset_index(drop=True)
        rows = submission[submission.quadrat_id.isin(part.quadrat_id)].reset_index(drop=True)
        try:
            score(part, rows, "quadrat_id")
            out[usage] = "scored"
        except ParticipantVisibleError as exc:
            out[usage] = str(exc)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.integers(0, N - 1), st.sampled_from(sorted(BAD_VALUES)), min_size=1, max_size=6))
def test_planted_bad_rows_reveal_nothing_about_the_split(planted):
    submission = PERFECT_FRAME.copy()
    for row, kind in planted.items():
        submission.loc[row, "species_ids"] = BAD_VALUES[kind]
    calls = _calls(submission)
    messages = {m for m in calls.values() if m != "scored"}
    assert messages, calls  # some call saw a planted row
    assert messages <= ALLOWED, messages  # the same constant text, whatever rows and kinds each call held


def test_header_problems_are_named_the_same_in_both_calls():
    submission = PERFECT_FRAME.rename(columns={"species_ids": "species"})
    calls = _calls(submission)
    assert calls["Public"] == calls["Private"]
    assert calls["Public"].startswith("error [missing_column]") and "line" not in calls["Public"]


def test_frames_wider_than_the_limit_are_refused_before_conversion():
    extra = pd.DataFrame("", index=PERFECT_FRAME.index, columns=[f"extra{i}" for i in range(20_000)])
    wide = pd.concat([PERFECT_FRAME, extra], axis=1)
    part = SOLUTION_FRAME[SOLUTION_FRAME.Usage == "Public"].drop(columns="Usage")
    with pytest.raises(ParticipantVisibleError, match=r"^error \[extra_column\] the submission has 20,002 columns"):
        score(part, wide, "quadrat_id")
