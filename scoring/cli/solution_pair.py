"""A solution given with the wrong --competition: named as such."""

from __future__ import annotations

from agrieval.scoring.authoring.definitions import available_competitions, load_competition
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.problems import HostError


def load_solution_for(path, definition: CompetitionDefinition):
    """The solution, or a host error that says when the file belongs to another competition."""
    from agrieval.scoring.runtime.reading.solution import load_solution

    try:
        return load_solution(path, definition)
    except HostError as exc:
        other = _competition_of_header(path, definition)
        if other is None:
            raise
        raise HostError(exc.code, _pair_message(path, other, definition)) from None


def check_solution_pair(path, definition: CompetitionDefinition) -> None:
    """Fail when the solution's header is another shipped competition's (a wrong --solution/--competition pair)."""
    other = _competition_of_header(path, definition)
    if other is not None:
        raise HostError("solution_invalid", _pair_message(path, other, definition))


def _pair_message(path, other: str, definition: CompetitionDefinition) -> str:
    columns = load_competition(other).expected_columns
    return (f"{path} looks like a solution of {other!r} (its header has {', '.join(columns)}), not of "
            f"{definition.name!r} (which needs {', '.join(definition.expected_columns)}): check --competition "
            f"and --solution")


def _competition_of_header(path, definition: CompetitionDefinition) -> str | None:
    """The shipped competition whose id and prediction columns the file's header holds, if not ``definition``'s."""
    try:
        with open(path, "rb") as f:
            head = f.readline(65536).decode("utf-8-sig", "replace").strip()
    except OSError:
        return None
    for name in available_competitions():
        if name == definition.name:
            continue
        other = load_competition(name)
        cells = [c.strip().strip('"') for c in head.split(other.delimiter)]
        if other.id_column in cells and other.prediction_column in cells:
            if definition.id_column not in cells or definition.prediction_column not in cells:
                return name
    return None
