"""Match a submission's ids to the solution's: missing and unknown ids.

Messages list submission-side facts only (counts and a few ids); nothing says
which ids are public or private.
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Iterable, Sequence

import numpy as np

from .problems import Problem, ProblemLog
from .reading.solution import Solution
from .reading.submission import Submission

# Imported inside functions, so that importing this module loads only what it needs: unicodedata, needed only to
# explain a problem (`agrieval score` does not load it).

_SHOW = 5
# problems that refuse the id on their line: that row's id is not called unknown as well
REFUSED_ID = frozenset({"missing_id", "invalid_id", "repeated_header"})


def id_problems_beside(sub: Submission, test_ids: Sequence[str], file: str | None) -> list[Problem]:
    """The missing and unknown ids of a submission whatever its other problems (an empty list when no row
    could be read), so that one round names every problem."""
    if not (sub.n_rows or sub.unread_ids):
        return []
    log = ProblemLog(file=file)
    refused = {p.line for p in sub.problems if p.code in REFUSED_ID}
    report_mismatch(sub.ids, sub.lines, test_ids, log, present=sub.unread_ids, skip_lines=refused)
    return log.finish()


def in_report_order(problems: Sequence[Problem]) -> list[Problem]:
    """As ``ProblemLog.finish`` sorts: errors first, the summaries of truncated codes last among them, then by
    place."""
    return sorted(problems, key=lambda p: (p.severity != "error", p.code == "too_many_problems", p.line or 0,
                                           p.column or 0, p.code))


def align(sub: Submission, sol: Solution, log: ProblemLog) -> np.ndarray | None:
    """Index into the submission's rows for each solution id, or None when ids do not match."""
    if sub.id_order is not None and sub.id_order[0] is sol.checked_ids:
        # read against this solution's ids and matched to them byte for byte: row for row (the usual case,
        # the sample file's order) or in another order
        order = sub.id_order[1]
        return np.arange(sub.n_rows, dtype=np.int64) if order is None else order
    if sub.ids == sol.ids:
        return np.arange(len(sol.ids), dtype=np.int64)
    position = dict(zip(sub.ids, range(len(sub.ids))))  # ids are unique on both sides (checked earlier)
    if len(sub.ids) == len(sol.ids):
        # the same ids in another order: every solution id found is then a bijection (no unknown ids)
        order = np.fromiter(map(position.get, sol.ids, itertools.repeat(-1)), dtype=np.int64, count=len(sol.ids))
        if len(order) and order.min() >= 0:
            return order
    missing, unknown = report_mismatch(sub.ids, sub.lines, sol.ids, log)
    if missing or unknown:
        return None
    return np.fromiter((position[i] for i in sol.ids), dtype=np.int64, count=len(sol.ids))


def report_mismatch(ids: Sequence[str], lines: Sequence[int], test_ids: Sequence[str], log: ProblemLog, *,
                    present: Iterable[str] = (), skip_lines: Container[int] = ()) -> tuple[int, int]:
    """Log the test ids absent from ``ids`` (``missing_ids``: a count and the first few in sorted order) and
    the ids that are not test ids (``unknown_ids``: the first few with their lines, then a count); return
    (missing, unknown) counts. ``present``: ids of rows that could not be read otherwise (a ragged row), not
    missing; ``skip_lines``: rows whose id was refused already (empty, malformed), not said again."""
    known = set(test_ids)
    position = set(ids)
    position.update(present)
    # Sorted: in the solution's order, the omitted ids would tell which are public (a solution grouped by Usage).
    missing = sorted(i for i in known if i not in position)
    unknown = [(k, int(line)) for k, line in zip(ids, lines) if k not in known and int(line) not in skip_lines]
    n_test = len(known)
    if missing:
        shown = ", ".join(repr(m) for m in missing[:_SHOW])
        more = f" and {len(missing) - _SHOW:,} more" if len(missing) > _SHOW else ""
        verb = "is" if len(missing) == 1 else "are"
        log.error("missing_ids", f"{len(missing):,} of the {n_test:,} test ids {verb} missing from the "
                  f"submission: {shown}{more}; every test id needs one row")
    if unknown:
        for k, line in unknown[:_SHOW]:
            if _nfc(k) in known and _nfc(k) != k:
                # Looks the same on screen: say why it does not match (the id is the participant's own text).
                log.error("unknown_ids", f"id {k[:60]!r} differs from a test id only in its Unicode form "
                          "(decomposed accents, NFD); write it in the composed form (NFC)", line)
                continue
            log.error("unknown_ids", f"id {k[:60]!r} is not a test id of this competition", line)
        if len(unknown) > _SHOW:
            log.error("unknown_ids", f"{len(unknown):,} ids in all are not test ids of this competition")
    return len(missing), len(unknown)


def _nfc(text: str) -> str:
    """``text`` in Unicode's composed form (NFC)."""
    import unicodedata

    return unicodedata.normalize("NFC", text)
