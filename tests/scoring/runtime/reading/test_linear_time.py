"""Property: reading is linear in the input whatever its shape (issue 43, item 4).

Before: blanks after a closing quote were mended one at a time and the record read again after each (40 KB
took 28 s). Growth is checked as a ratio measured in the same run (size x4 -> time about x4, bound x8: the
quadratic reader gave ~x16), never as an absolute time. What the one-pass mending says is checked in
``test_mending_as_quote_rule.py``; the line-count pre-check in ``test_limits_before_work.py``; memory in
``test_memory_bounds.py``.
"""

from __future__ import annotations

import time

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.reading.submission import read_submission

PLANTCLEF = load_competition("plantclef2025")
HEAD = b"quadrat_id,species_ids\n"


def _seconds(data: bytes) -> float:
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        read_submission(data, PLANTCLEF)
        best = min(best, time.perf_counter() - t)
    return best


def test_blanks_after_quotes_in_one_record_take_linear_time():
    small = HEAD + b'"Q-1" ,' * 2_000 + b'"[1]"\n'
    large = HEAD + b'"Q-1" ,' * 8_000 + b'"[1]"\n'
    _seconds(small)  # (warm)
    ratio = _seconds(large) / _seconds(small)
    assert ratio < 8, f"x4 the blanks took x{ratio:.1f} the time (quadratic: ~x16)"
