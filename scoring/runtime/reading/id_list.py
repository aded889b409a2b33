"""The test ids a participant has without the solution: the organizers' sample submission, or a list.

``agrieval validate --ids FILE`` checks a submission's ids against these. The file is the participant's
own copy of public material (the sample submission every competition publishes), so messages may name
its ids; nothing here tells public from private ids.
"""

from __future__ import annotations

from pathlib import Path

from ..definition import CompetitionDefinition
from ..problems import ProblemLog
from . import _tokenize as tokenize
from ._bytes_checks import checked_utf8, read_limited


class IdListError(ValueError):
    """The ids file cannot be used (its message names the file, line and column)."""


def read_id_list(path: str | Path, definition: CompetitionDefinition) -> list[str]:
    """The ids of ``path``: a CSV whose header holds the competition's id column (the sample submission;
    other columns are ignored), or plain text with one id per line (blank lines skipped)."""
    path = Path(path)
    log = ProblemLog(file=path.name, per_code=5)
    # a sample submission is a submission: the same size limits
    data = read_limited(path, definition.limits.max_bytes, log)
    clean = checked_utf8(data, log) if data is not None else None
    if clean is None:
        raise IdListError(_say(log))
    text = clean.decode("utf-8")
    first = text.split("\n", 1)[0].rstrip("\r")
    if definition.id_column in (c.strip('"') for c in first.split(definition.delimiter)):
        tab = tokenize.parse(clean, delimiter=definition.delimiter, required=[definition.id_column],
                             allow_extra=True, max_rows=definition.limits.max_rows,
                             max_cell_chars=definition.limits.max_cell_chars, log=log, what="competition")
        if tab is None or log.has_errors:
            raise IdListError(_say(log))
        ids, lines = tab.column(definition.id_column), tab.lines.tolist()
    else:
        rows = [(n, line.rstrip("\r")) for n, line in enumerate(text.split("\n"), start=1)]
        rows = [(n, line) for n, line in rows if line.strip()]
        if len(rows) > definition.limits.max_rows:
            raise IdListError(f"{path.name}: {len(rows):,} ids, more than the {definition.limits.max_rows:,} rows "
                              "this competition accepts: is it the right file?")
        ids, lines = [line for _, line in rows], [n for n, _ in rows]
    seen: dict[str, int] = {}
    for id_, line in zip(ids, lines):
        if id_ in seen:
            raise IdListError(f"{path.name}:{line}: id {id_[:60]!r} already appeared on line {seen[id_]}; the ids "
                              "file lists each test id once")
        seen[id_] = line
    if not ids:
        raise IdListError(f"{path.name}: no ids in the file")
    return ids


def _say(log: ProblemLog) -> str:
    return "; ".join(p.render() for p in log.finish() if p.severity == "error")
