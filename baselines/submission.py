"""Write a submission only after the scoring validator accepted it (every baseline: PlantCLEF, CTV).

The format (2025: quoted ``"[1, 2]"``; 2024: ``;``-separated) is the scoring
core's business: ``agrieval.scoring.writing.submission.write_submission`` writes it, and
``agrieval.scoring.runtime.validate.validate_file`` checks the written bytes before they are
renamed to the final path. A rejected file never replaces anything.
"""

from __future__ import annotations

from pathlib import Path

from agrieval.scoring.runtime.atomic import write_bytes
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.writing.submission import format_submission

# Imported inside functions, so that importing this module loads only what it needs: scoring.runtime.validate (it
# loads numpy).

__all__ = ["SubmissionFailsValidation", "write_validated"]


class SubmissionFailsValidation(RuntimeError):
    """The validator rejected what we were about to write (a bug or a bad class mapping)."""

    def __init__(self, path: Path, problems: list) -> None:
        self.problems = problems
        lines = "\n".join(f"  {p.render()}" for p in problems[:10])
        super().__init__(f"{path}: the submission would be rejected by the validator:\n{lines}")


def write_validated(path: str | Path, ids: list[str], labels: list, definition: CompetitionDefinition,
                    *, overwrite: bool = True) -> list:
    """Write through a temporary sibling, validate it, then rename. Returns the warnings.

    ``labels``: one class name per id (a multiclass competition) or one list of species ids per id."""
    from agrieval.scoring.runtime.validate import validate_file

    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} already exists; pass --overwrite to replace it")
    problems: list = []

    def validated(tmp: Path) -> None:  # run on the complete temporary, before the rename
        problems.extend(validate_file(tmp, definition, filename=path.name))
        errors = [p for p in problems if p.severity == "error"]
        if errors:
            raise SubmissionFailsValidation(path, errors)

    write_bytes(path, format_submission(ids, labels, definition).encode("utf-8"), overwrite=overwrite,
                check=validated)
    return [p for p in problems if p.severity != "error"]
