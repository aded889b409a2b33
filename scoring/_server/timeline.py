"""A competition's timeline on the own server: start, submission deadline, selection deadline, reveal (UTC).

Every time is kept and shown as ISO 8601 in UTC (``2026-05-01T12:30:00Z``); one read without a zone is UTC
(never the host's local time: ``TZ`` does not move a deadline). ``None``: no such moment (open-ended).
``phase`` says where a moment falls; ``upload_refusal`` and ``selection_refusal`` are pure functions of
the timeline and a time, so tests hand them any clock.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Optional, Tuple

__all__ = ["Timeline", "utc_text", "parse_utc", "now_utc", "CLOSED_CODE", "NOT_STARTED_CODE", "YEARS"]

CLOSED_CODE = "competition_closed"
NOT_STARTED_CODE = "competition_not_started"
FIELDS = ("start", "deadline", "selection_deadline", "reveal")
# the years a time may fall in: the store keeps four-digit years, and limits look a day ahead and an hour back
YEARS = (1000, 9998)


def utc_text(when: dt.datetime) -> str:
    return when.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text: str) -> dt.datetime:
    """An ISO 8601 time; one without a zone is UTC. ``ValueError`` otherwise."""
    raw = text.strip()
    when = dt.datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    if when.tzinfo is not None and not YEARS[0] <= when.year <= YEARS[1]:
        when = when.replace(tzinfo=None)  # (converting it to UTC could overflow: its year alone is refused below)
    when = when.replace(tzinfo=dt.timezone.utc) if when.tzinfo is None else when.astimezone(dt.timezone.utc)
    if not YEARS[0] <= when.year <= YEARS[1]:
        raise ValueError(f"{text!r} must fall between the years {YEARS[0]} and {YEARS[1]} (UTC)")
    return when


def now_utc(now: Optional[dt.datetime] = None) -> dt.datetime:
    """``now`` (aware, in UTC; a naive one is taken as UTC) or the clock's time in UTC."""
    when = now or dt.datetime.now(dt.timezone.utc)
    return when.replace(tzinfo=dt.timezone.utc) if when.tzinfo is None else when.astimezone(dt.timezone.utc)


@dataclass(frozen=True)
class Timeline:
    start: Optional[dt.datetime] = None
    deadline: Optional[dt.datetime] = None  # no upload is graded from this moment on
    selection_deadline: Optional[dt.datetime] = None  # no selection is recorded from this moment on
    reveal: Optional[dt.datetime] = None  # when the private board may be published

    def __post_init__(self) -> None:
        known = [(name, getattr(self, name)) for name in FIELDS if getattr(self, name) is not None]
        for (a, ta), (b, tb) in zip(known, known[1:]):
            if tb < ta:
                raise ValueError(f"the {b.replace('_', ' ')} ({utc_text(tb)}) comes before the "
                                 f"{a.replace('_', ' ')} ({utc_text(ta)})")

    def texts(self) -> dict:
        """Each moment as UTC text (None when unset), for rows and JSON."""
        return {name: None if getattr(self, name) is None else utc_text(getattr(self, name)) for name in FIELDS}

    @classmethod
    def from_texts(cls, texts: dict) -> "Timeline":
        return cls(**{name: None if texts.get(name) is None else parse_utc(texts[name]) for name in FIELDS})

    def describe(self) -> str:
        parts = [f"{name.replace('_', ' ')} {text}" for name, text in self.texts().items() if text is not None]
        return "; ".join(parts) if parts else "no timeline (open-ended)"

    def upload_refusal(self, now: dt.datetime) -> Optional[Tuple[str, str]]:
        """``(code, message)`` when no upload may be graded at ``now``, else None."""
        if self.start is not None and now < self.start:
            return NOT_STARTED_CODE, f"the competition opens at {utc_text(self.start)}; nothing was graded"
        if self.deadline is not None and now >= self.deadline:
            return CLOSED_CODE, f"the submission deadline was {utc_text(self.deadline)}; nothing was graded"
        return None

    def selection_refusal(self, now: dt.datetime) -> Optional[str]:
        """The message when no final selection may be recorded at ``now``, else None."""
        if self.selection_deadline is not None and now >= self.selection_deadline:
            return f"the selection deadline was {utc_text(self.selection_deadline)}; the selection was not recorded"
        return None
