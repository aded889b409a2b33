"""The store's tables, as migrations from the first version on (``PRAGMA user_version`` counts them).

Rows are typed where SQLite can check it: a score is a finite REAL (SQLite turns a NaN into NULL, which
``NOT NULL`` or the typed CHECK refuses; infinities fail the range), a status is one of its words, a
limit is a whole number of at least 1. No row can hold what the boards cannot rank.

``competition``   one row: the definition and solution (and their fingerprints), limits, timeline, the
                  Ladder switch, the published score version
``teams``         one row per team (checked once at entry), with a void and its reason
``uploads``       one row per upload: team, time, the original name (BLOB: its bytes, whatever they are),
                  the bytes' sha256 (kept in ``<store>.uploads/``), status, the team's submission number
                  (scored uploads only), codes, the grading process and the clock's time of its reservation while
                  ``pending``, a void and its reason
``score_versions`` one row per scorer run: the first grading is version 1, each ``rescore`` adds one,
                  published when the organizer confirms
``scores``        one row per upload and version: raw public, raw private, the value shown
``selections``    one row per final selection of a team (its latest counts)
``ladder``        one row per team: the Ladder's state (``runtime/ladder.py``'s ``State`` as JSON) that the team's
                  next upload continues from
``ladder_versions`` (version 2) one row per rescore and team: the state the rescore replayed; its confirm copies
                  it into ``ladder``

Version 2 also makes every team name one printable line at the schema level (triggers: whoever inserts it).

Never edit a migration that was released: add one.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "STATUSES"]

STATUSES = ("pending", "scored", "rejected", "error", "refused")


def _count(column: str) -> str:
    return f"{column} INTEGER CHECK ({column} IS NULL OR (typeof({column}) = 'integer' AND {column} >= 1))"


def _score(column: str, nullable: bool) -> str:
    finite = f"typeof({column}) = 'real' AND {column} BETWEEN -1.0e308 AND 1.0e308"
    if nullable:
        return f"{column} REAL CHECK ({column} IS NULL OR ({finite}))"
    return f"{column} REAL NOT NULL CHECK ({finite})"


_TIME = "CHECK ({0} IS NULL OR {0} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z')"
_VOID = "voided_reason TEXT, voided_at TEXT, CHECK ((voided_reason IS NULL) = (voided_at IS NULL))"

VERSION_1 = (
    f"""CREATE TABLE competition (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        definition TEXT NOT NULL,
        competition TEXT NOT NULL,
        definition_sha256 TEXT NOT NULL,
        solution TEXT NOT NULL,
        solution_sha256 TEXT NOT NULL,
        {_count("per_day")}, {_count("total")}, {_count("rejected_per_hour")},
        selection_limit INTEGER NOT NULL CHECK (typeof(selection_limit) = 'integer' AND selection_limit >= 1),
        ladder INTEGER NOT NULL CHECK (ladder IN (0, 1)),
        start TEXT {_TIME.format("start")}, deadline TEXT {_TIME.format("deadline")},
        selection_deadline TEXT {_TIME.format("selection_deadline")}, reveal TEXT {_TIME.format("reveal")},
        score_version INTEGER NOT NULL DEFAULT 1 CHECK (score_version >= 1),
        created_at TEXT NOT NULL {_TIME.format("created_at")})""",
    f"""CREATE TABLE teams (
        name TEXT PRIMARY KEY CHECK (typeof(name) = 'text' AND length(name) BETWEEN 1 AND 100),
        {_VOID})""",
    f"""CREATE TABLE uploads (
        id INTEGER PRIMARY KEY,
        team TEXT NOT NULL REFERENCES teams(name),
        submitted_at TEXT NOT NULL {_TIME.format("submitted_at")},
        name BLOB NOT NULL CHECK (typeof(name) = 'blob'),
        sha256 TEXT CHECK (sha256 IS NULL OR (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*')),
        status TEXT NOT NULL CHECK (status IN ('pending', 'scored', 'rejected', 'error', 'refused')),
        {_count("number")},
        codes TEXT NOT NULL DEFAULT '',
        pid INTEGER,
        reserved_at TEXT {_TIME.format("reserved_at")},
        {_VOID},
        UNIQUE (team, number),
        CHECK ((status = 'scored') = (number IS NOT NULL)))""",
    "CREATE INDEX uploads_by_team ON uploads (team, submitted_at)",
    "CREATE INDEX uploads_pending ON uploads (status) WHERE status = 'pending'",
    f"""CREATE TABLE score_versions (
        version INTEGER PRIMARY KEY CHECK (version >= 1),
        scorer TEXT NOT NULL,
        created_at TEXT NOT NULL {_TIME.format("created_at")},
        published_at TEXT {_TIME.format("published_at")})""",
    f"""CREATE TABLE scores (
        upload INTEGER NOT NULL REFERENCES uploads(id),
        version INTEGER NOT NULL REFERENCES score_versions(version),
        {_score("public", False)},
        {_score("private", True)},
        {_score("shown", False)},
        PRIMARY KEY (upload, version))""",
    f"""CREATE TABLE selections (
        id INTEGER PRIMARY KEY,
        team TEXT NOT NULL REFERENCES teams(name),
        selected_at TEXT NOT NULL {_TIME.format("selected_at")},
        numbers TEXT NOT NULL CHECK (numbers NOT GLOB '*[^0-9 ]*'))""",
    "CREATE INDEX selections_by_team ON selections (team, id)",
    """CREATE TABLE ladder (
        team TEXT PRIMARY KEY REFERENCES teams(name),
        state TEXT NOT NULL CHECK (typeof(state) = 'text'))""",
)

# What ``agrieval.scoring.text.terminal.one_line`` escapes (C0, DEL, C1, line and paragraph separators, bidi marks,
# embeddings, overrides and isolates), written out here because a released migration never changes; NUL is
# tested on the bytes (SQLite's text functions stop at it). tests/scoring/server/test_store.py checks the two
# sets agree over the whole Basic Multilingual Plane.
_UNPRINTABLE = [*range(0x01, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
                *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_UNPRINTABLE_SQL = ("(instr(CAST(NEW.name AS BLOB), x'00') > 0 OR NEW.name GLOB '*[' || char("
                    + ", ".join(map(str, _UNPRINTABLE)) + ") || ']*')")
_TEAM_NAME_REFUSED = "bad_team: a team name must be one printable line"

VERSION_2 = (
    # the Ladder's state of each team as a rescore replayed it, kept with that score version; the confirm copies it
    # into ``ladder`` (the state the next upload continues from)
    """CREATE TABLE ladder_versions (
        version INTEGER NOT NULL REFERENCES score_versions(version),
        team TEXT NOT NULL REFERENCES teams(name),
        state TEXT NOT NULL CHECK (typeof(state) = 'text'),
        PRIMARY KEY (version, team))""",
    # a team name is checked once at entry (submission_log.check_team); these keep a name that would move a terminal's
    # cursor out of the store whoever writes it (an imported log, another tool)
    f"""CREATE TRIGGER teams_printable_insert BEFORE INSERT ON teams WHEN {_UNPRINTABLE_SQL}
        BEGIN SELECT RAISE(ABORT, '{_TEAM_NAME_REFUSED}'); END""",
    f"""CREATE TRIGGER teams_printable_update BEFORE UPDATE OF name ON teams WHEN {_UNPRINTABLE_SQL}
        BEGIN SELECT RAISE(ABORT, '{_TEAM_NAME_REFUSED}'); END""",
    "UPDATE teams SET name = name",  # (the names already there pass the same check, or the migration stops)
)

MIGRATIONS = (VERSION_1, VERSION_2)
