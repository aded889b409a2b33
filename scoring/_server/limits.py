"""Submission limits of the own server: per UTC day, in total, rejected uploads per hour, and when the next
upload is allowed.

What counts against ``per_day`` and ``total`` is a *scored* submission (and one being graded, ``pending``,
so that concurrent uploads cannot all pass): a file rejected for its format, or one the server failed to
grade, costs the team no submission (the participant learns no score from it). Rejected uploads count
against their own rate instead, ``rejected_per_hour`` per team over the last 60 minutes, so that nobody
queues grading work for free. A day is the UTC calendar day, whatever the host's time zone: the count
resets at 00:00 UTC, as Kaggle's daily limit does. ``check`` and ``check_rejected_rate`` are pure functions
of a team's upload times and the time, so tests hand them any clock.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import List, Optional

from agrieval.scoring._server.timeline import utc_text

__all__ = ["SubmissionLimits", "Refusal", "check", "check_rejected_rate", "day_bounds", "LIMIT_CODE", "RATE_CODE"]

LIMIT_CODE = "submission_limit_reached"
RATE_CODE = "rejected_rate_reached"
HOUR = dt.timedelta(hours=1)


@dataclass(frozen=True)
class SubmissionLimits:
    """``None``: no limit of that kind."""
    per_day: Optional[int] = None
    total: Optional[int] = None
    rejected_per_hour: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("per_day", "total", "rejected_per_hour"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"the {name} submission limit must be a whole number of at least 1, got {value!r}")

    def describe(self) -> str:
        parts = []
        if self.per_day is not None:
            parts.append(f"{self.per_day} scored submission{'s' * (self.per_day != 1)} a day (UTC)")
        if self.total is not None:
            parts.append(f"{self.total} in total")
        if self.rejected_per_hour is not None:
            parts.append(f"{self.rejected_per_hour} rejected upload{'s' * (self.rejected_per_hour != 1)} an hour")
        return ", ".join(parts) if parts else "no submission limit"


@dataclass(frozen=True)
class Refusal:
    """Why a team may not submit now: the participant's message, and when it may (None: never again)."""
    message: str
    next_allowed: Optional[dt.datetime]


def day_bounds(now: dt.datetime) -> tuple:
    """The UTC day of ``now``: its first moment and the next day's."""
    day = now.astimezone(dt.timezone.utc).date()
    start = dt.datetime.combine(day, dt.time(), tzinfo=dt.timezone.utc)
    return start, start + dt.timedelta(days=1)


def check(counted: List[dt.datetime], now: dt.datetime, limits: SubmissionLimits,
          total: Optional[int] = None) -> Optional[Refusal]:
    """None when a team whose scored (or pending) uploads came at ``counted`` may submit at ``now``; else the
    ``Refusal``. ``total``: how many there are in all when ``counted`` holds only some (the store passes the
    day's and the count, so that the bookkeeping does not grow with a team's history)."""
    now = now.astimezone(dt.timezone.utc)
    if total is None:
        total = len(counted)
    if limits.total is not None and total >= limits.total:
        return Refusal(f"your team has used all {limits.total} submissions of this competition; no more can be "
                       "scored", None)
    if limits.per_day is not None:
        day = now.date()
        today = [t for t in counted if t.astimezone(dt.timezone.utc).date() == day]
        if len(today) >= limits.per_day:
            tomorrow = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=dt.timezone.utc)
            return Refusal(f"your team has made {len(today)} scored submissions today, the limit is "
                           f"{limits.per_day} a day (UTC); the next one is accepted from {utc_text(tomorrow)}",
                           tomorrow)
    return None


def check_rejected_rate(rejected: List[dt.datetime], now: dt.datetime,
                        limits: SubmissionLimits) -> Optional[Refusal]:
    """None unless the team's rejected uploads (times) of the last hour reach ``rejected_per_hour``."""
    if limits.rejected_per_hour is None:
        return None
    window = sorted(t for t in rejected if now - HOUR < t <= now)
    if len(window) < limits.rejected_per_hour:
        return None
    # the oldest upload that must leave the window before one more fits
    free = window[len(window) - limits.rejected_per_hour] + HOUR
    return Refusal(f"your team's last {len(window)} uploads within an hour were rejected, the limit is "
                   f"{limits.rejected_per_hour} an hour; check the file with the competition's validator, the next "
                   f"upload is accepted from {utc_text(free)}", free)
