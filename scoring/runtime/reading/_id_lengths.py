"""Ids longer than the competition allows are refused before any per-row work on the ids.

Comparing or hashing the id column works on each id's bytes as 8-byte words,
so its cost is (longest id / 8) words per row: one 20,000-character id among
100,000 normal ones made a 3.8 MB upload cost 2 GB and half a minute. The
definition caps the length (``CompetitionDefinition.max_id_chars``: its
``limits.max_id_chars``, or less when the id pattern has a maximum); this
check reads only the cells' lengths (their spans) and decodes nothing but the
few cells over the cap.
"""

from __future__ import annotations

import numpy as np

from ..problems import ProblemLog
from . import _csv_spans as csv_spans
from ._tokenize import Table


def refuse_long_ids(tab: Table, id_column: str, max_chars: int, log: ProblemLog, *, what: str = "ids") -> bool:
    """Log ``id_too_long`` for each id over ``max_chars`` characters; True when there was none."""
    column = tab.header.index(id_column) + 1
    raw, starts, ends = tab.spans(id_column)
    # bytes >= characters in UTF-8: only cells over the cap in bytes can be over it in characters
    over = np.flatnonzero((ends - starts) > max_chars)
    texts = csv_spans.decode_spans(raw, starts[over], ends[over]) if len(over) else []
    found = [(int(k), len(text)) for k, text in zip(over.tolist(), texts) if len(text) > max_chars]
    for k, n in found:
        log.error("id_too_long", f"this id is {n:,} characters long; {what} of this competition have at most "
                  f"{max_chars:,}", int(tab.lines[k]), column)
    return not found
