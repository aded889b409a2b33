"""The competition's settings in the store: what ``agrieval server init`` fixed once for every later command.

The definition (a shipped name, or a TOML's resolved path) and the solution's resolved path, each with its
fingerprint: a solution edited after ``init`` is refused (``store_foreign``) rather than silently scoring
later uploads against another truth. Limits, the timeline, the selection limit, whether public scores go
through the Ladder, and the published score version (``rescore.py``).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass

from agrieval.scoring import __version__
from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.store import Store, StoreError
from agrieval.scoring._server.timeline import Timeline, utc_text
from agrieval.scoring.authoring.definitions import load_competition as load_definition
from agrieval.scoring.runtime.definition import fingerprint, to_plain

# Imported inside functions, so that importing this module loads only what it needs: scoring.runtime.ladder,
# scoring.runtime.reading.solution, scoring.runtime.unit_scores (they load numpy).

__all__ = ["Settings", "write_settings", "read_settings", "Competition", "load_competition", "new_settings",
           "fingerprints", "scorer_name", "load_definition_of"]


@dataclass(frozen=True)
class Settings:
    definition: str  # what load_competition takes: a shipped name or a TOML's path
    competition: str  # the definition's name
    definition_sha256: str
    solution: str
    solution_sha256: str  # runtime.ladder.solution_fingerprint: the truth, split and groups
    limits: SubmissionLimits
    timeline: Timeline
    selection_limit: int = 2
    ladder: bool = False
    score_version: int = 1

    def to_dict(self) -> dict:
        """What every command shows of the competition (no path: the solution's place is the organizer's)."""
        return {"competition": self.competition, "per_day": self.limits.per_day, "total": self.limits.total,
                "rejected_per_hour": self.limits.rejected_per_hour, "selection_limit": self.selection_limit,
                "ladder": self.ladder, "score_version": self.score_version, "timeline": self.timeline.texts()}


@dataclass
class Competition:
    """The settings with their definition and solution loaded (and checked against the fingerprints)."""
    settings: Settings
    definition: object
    solution: object


def write_settings(store: Store, settings: Settings, now: dt.datetime) -> None:
    t = settings.timeline.texts()
    created = utc_text(now)
    with store.immediate() as conn:
        conn.execute("INSERT INTO competition (id, definition, competition, definition_sha256, solution, "
                     "solution_sha256, per_day, total, rejected_per_hour, selection_limit, ladder, start, deadline, "
                     "selection_deadline, reveal, score_version, created_at) "
                     "VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
                     (settings.definition, settings.competition, settings.definition_sha256, settings.solution,
                      settings.solution_sha256, settings.limits.per_day, settings.limits.total,
                      settings.limits.rejected_per_hour, settings.selection_limit, int(settings.ladder),
                      t["start"], t["deadline"], t["selection_deadline"], t["reveal"], created))
        conn.execute("INSERT INTO score_versions (version, scorer, created_at, published_at) VALUES (1, ?, ?, ?)",
                     (scorer_name(), created, created))


def scorer_name() -> str:
    return f"agrieval {__version__}"


def read_settings(store: Store) -> Settings:
    row = store.conn.execute(
        "SELECT definition, competition, definition_sha256, solution, solution_sha256, per_day, total, "
        "rejected_per_hour, selection_limit, ladder, start, deadline, selection_deadline, reveal, score_version "
        "FROM competition WHERE id = 1").fetchone()
    if row is None:
        raise StoreError("store_corrupt", f"the store {store.path!r} holds no competition's settings")
    return Settings(definition=row[0], competition=row[1], definition_sha256=row[2], solution=row[3],
                    solution_sha256=row[4], limits=SubmissionLimits(row[5], row[6], row[7]),
                    timeline=Timeline.from_texts(dict(zip(("start", "deadline", "selection_deadline", "reveal"),
                                                          row[10:14]))),
                    selection_limit=row[8], ladder=bool(row[9]), score_version=row[14])


def fingerprints(definition, solution) -> tuple:
    """``(definition_sha256, solution_sha256)`` of a loaded definition and solution."""
    from agrieval.scoring.runtime._ladder import solution_fingerprint

    return fingerprint(to_plain(definition)), solution_fingerprint(solution, definition)


def load(definition_name: str, solution_path: str):
    """``(definition, solution)`` loaded as ``grade`` loads them."""
    from agrieval.scoring.runtime.reading.solution import load_solution

    definition = load_definition(definition_name)
    return definition, load_solution(solution_path, definition)


def load_competition(store: Store) -> Competition:
    """The store's settings, definition and solution; ``store_foreign`` when either changed since ``init``."""
    settings = read_settings(store)
    if not os.path.isfile(settings.solution):
        raise StoreError("store_foreign", f"the solution {settings.solution!r} the store was made with is gone")
    definition, solution = load(settings.definition, settings.solution)
    if fingerprints(definition, solution) != (settings.definition_sha256, settings.solution_sha256):
        raise StoreError("store_foreign", "the competition's definition or solution changed since `agrieval server "
                                          "init`; the store's scores would mix two truths. Restore them, or make "
                                          "a new store")
    return Competition(settings, definition, solution)


def new_settings(definition_name: str, solution_path: str, limits: SubmissionLimits, timeline: Timeline,
                 selection_limit: int, ladder: bool) -> Settings:
    """The settings of a new store (the definition and solution loaded, fingerprinted, paths resolved)."""
    from agrieval.scoring.runtime._unit_scores import check_decomposable

    solution_path = os.path.realpath(solution_path)
    if os.path.exists(definition_name):
        definition_name = os.path.realpath(definition_name)
    definition, solution = load(definition_name, solution_path)
    if ladder:
        check_decomposable(definition)
    d_sha, s_sha = fingerprints(definition, solution)
    return Settings(definition_name, definition.name, d_sha, solution_path, s_sha, limits, timeline,
                    selection_limit, ladder)



def load_definition_of(store: Store):
    """``(definition, settings)`` without the solution (boards and exports read scores, not the truth)."""
    settings = read_settings(store)
    definition = load_definition(settings.definition)
    if fingerprint(to_plain(definition)) != settings.definition_sha256:
        raise StoreError("store_foreign", "the competition's definition changed since `agrieval server init`")
    return definition, settings
