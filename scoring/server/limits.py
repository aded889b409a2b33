"""Submission limits of the own server: per UTC day, in total, and when the next submission is allowed.

What counts is a *scored* submission: a file rejected for its format, or one the server failed to grade,
costs the team nothing (the participant learns no score from it). A day is the UTC calendar day: the count
resets at 00:00 UTC, as Kaggle's daily limit does. ``check`` is a pure function of the log and the time, so
tests hand it any clock.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import List, Optional

from agrieval.scoring.server.submission_log import LogRow, utc_text

__all__ = ["SubmissionLimits", "Refusal", "check", "LIMIT_CODE"]

LIMIT_CODE = "submission_limit_reached"


@dataclass(frozen=True)
class SubmissionLimits:
    """``None``: no limit of that kind."""
    per_day: Optional[int] = None
    total: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("per_day", "total"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"the {name} submission limit must be a whole number of at least 1, got {value!r}")

    def describe(self) -> str:
        parts = []
        if self.per_day is not None:
            parts.append(f"{self.per_day} scored submission{'s' * (self.per_day != 1)} a day (UTC)")
        if self.total is not None:
            parts.append(f"{self.total} in total")
        return ", ".join(parts) if parts else "no submission limit"


@dataclass(frozen=True)
class Refusal:
    """Why a team may not submit now: the participant's message, and when it may (None: never again)."""
    message: str
    next_allowed: Optional[dt.datetime]


def check(rows: List[LogRow], team: str, now: dt.datetime, limits: SubmissionLimits) -> Optional[Refusal]:
    """None when ``team`` may submit at ``now``; else the ``Refusal``."""
    now = now.astimezone(dt.timezone.utc)
    scored = [r.submitted_at for r in rows if r.team == team and r.status == "scored"]
    if limits.total is not None and len(scored) >= limits.total:
        return Refusal(f"your team has used all {limits.total} submissions of this competition; no more can be "
                       "scored", None)
    if limits.per_day is not None:
        day = now.date()
        today = [t for t in scored if t.astimezone(dt.timezone.utc).date() == day]
        if len(today) >= limits.per_day:
            tomorrow = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=dt.timezone.utc)
            return Refusal(f"your team has made {len(today)} scored submissions today, the limit is "
                           f"{limits.per_day} a day (UTC); the next one is accepted from {utc_text(tomorrow)}",
                           tomorrow)
    return None
