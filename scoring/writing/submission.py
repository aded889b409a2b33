"""Write a submission in a competition's exact format (used by the baselines and the reference files)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.runtime.definition import CompetitionDefinition


def format_labels(labels: Sequence[int], definition: CompetitionDefinition) -> str:
    """One row's labels as the competition writes them: ``[1, 2]`` (python-list syntax) or ``1 2``."""
    if definition.list_syntax == "python-list":
        return "[" + ", ".join(str(int(x)) for x in labels) + "]"
    return " ".join(str(int(x)) for x in labels)


def format_submission(ids: Sequence[str], labels: Sequence, definition: CompetitionDefinition) -> str:
    """CSV text with the competition's header, delimiter, quoting and list syntax; LF line ends."""
    if len(ids) != len(labels):
        raise ValueError(f"{len(ids)} ids but {len(labels)} label entries")
    quoting = {"all": csv.QUOTE_ALL, "minimal": csv.QUOTE_MINIMAL, "none": csv.QUOTE_MINIMAL}[definition.quoting]
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=definition.delimiter, quoting=quoting, lineterminator="\n")
    w.writerow(definition.expected_columns)
    for id_, lab in zip(ids, labels):
        cell = lab if definition.task == "multiclass" else format_labels(lab, definition)
        w.writerow([id_, cell])
    return buf.getvalue()


def write_submission(path: str | Path, ids: Sequence[str], labels: Sequence, definition: CompetitionDefinition) -> None:
    """Write a submission file for ``definition``: one row per id with its labels, in the competition's format."""
    write_text(path, format_submission(ids, labels, definition))
