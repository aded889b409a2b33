"""What every bundle writer shares: the bundle as files in memory, checks of the inputs, and writing it out."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from scoring.authoring import vendoring
from scoring.runtime.atomic import write_bytes
from scoring.runtime.definition import CompetitionDefinition
from scoring.runtime.guard import grade
from scoring.runtime.problems import HostError
from scoring.runtime.reading.solution import Solution, load_solution

# The oldest Python and numpy the runtime claims (tested in CI: .ci/interpreters).
MIN_PYTHON = "3.8"
MIN_NUMPY = "1.21"


@dataclass
class Bundle:
    """A bundle before it is written: relative path -> bytes, and what to tell the organizer."""

    platform: str
    definition: CompetitionDefinition
    files: dict = field(default_factory=dict)
    next_steps: list = field(default_factory=list)

    def add(self, rel: str, data: bytes | str) -> None:
        if rel in self.files:
            raise ValueError(f"two files of the bundle at {rel}")
        self.files[rel] = data.encode("utf-8") if isinstance(data, str) else data

    def add_runtime(self, folder: str) -> None:
        for rel, data in vendoring.package_files().items():
            self.add(f"{folder}/{rel}" if folder else rel, data)


@dataclass(frozen=True)
class Inputs:
    """What a bundle is built from, checked: the definition, the solution and the metric keys it yields."""

    definition: CompetitionDefinition
    solution_path: Path
    solution: Solution
    keys: list  # leaderboard keys, the primary metric first
    warnings: list = field(default_factory=list)  # host-side warnings of the solution (e.g. ids_reveal_labels)


def check_inputs(definition: CompetitionDefinition, solution_path: Path, *, splits: tuple) -> Inputs:
    """Load the solution, require rows of each split in ``splits``, and learn the metric keys by scoring the
    solution against itself through the guard (what the bundled program will write, key for key)."""
    solution = load_solution(solution_path, definition)
    for split in splits:
        if not (solution.split == split).any():
            raise HostError("solution_invalid", f"{solution_path}: no row of the {split} split (column "
                            f"{definition.split.column!r}); this platform's phase would have nothing to score")
    result = grade(_perfect_submission(Path(solution_path), definition), solution, definition, reveal_private=True,
                   filename="perfect.csv")
    if result.status != "scored":
        causes = "; ".join(f"[{e.code}] {e.message}" for e in result.host.diagnostics + result.errors)
        raise HostError("solution_invalid", f"{solution_path}: the solution does not score against itself: {causes}")
    metrics = result.metrics.public or (result.metrics.private or {})
    keys = [definition.primary_metric] + sorted(k for k in metrics if k != definition.primary_metric)
    return Inputs(definition, Path(solution_path), solution, keys, list(solution.warnings))


def _perfect_submission(solution_path: Path, definition: CompetitionDefinition) -> bytes:
    """The solution's id and prediction columns only: a submission that must score perfectly."""
    import csv
    import io

    with open(solution_path, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh, delimiter=definition.delimiter))
    header = rows[0]
    keep = [header.index(definition.id_column), header.index(definition.prediction_column)]
    buf = io.StringIO()
    csv.writer(buf, delimiter=definition.delimiter, lineterminator="\n").writerows(
        [[row[i] for i in keep] for row in rows if row])
    return buf.getvalue().encode("utf-8")


def write(bundle: Bundle, out_dir: Path) -> list:
    """Write every file under ``out_dir`` (new or empty), readable by the platform's worker (mode 0644)."""
    out_dir = Path(out_dir)
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise FileExistsError(f"{out_dir} exists and is not an empty folder; choose a new folder (nothing was written)")
    written = []
    for rel in sorted(bundle.files):
        target = out_dir / rel
        write_bytes(target, bundle.files[rel], overwrite=False)
        os.chmod(target, 0o644)
        written.append(target)
    return written


def sorting(definition: CompetitionDefinition) -> str:
    return "desc" if definition.higher_is_better else "asc"


def runtime_note() -> str:
    return (f"The runtime needs Python >= {MIN_PYTHON} and numpy >= {MIN_NUMPY}, nothing else "
            f"(agrieval runtime {vendoring.runtime_digest()}).")


def sample_submission(inputs: Inputs) -> tuple:
    """``(csv_text, note)``: every id of the solution, in its order, with a prediction that carries no label.

    Multilabel: the empty list, a valid prediction (it scores ``empty_both_score`` where the truth is empty, 0
    elsewhere). Multiclass: a row must hold exactly one class, so every row gets the vocabulary's first class (in
    the definition's order), the same for all rows: it tells nothing of the truth either."""
    from scoring.writing.submission import format_submission

    d = inputs.definition
    ids = list(inputs.solution.ids)
    if d.task == "multiclass":
        labels = sorted(d.labels, key=str) if d.labels else []
        if not labels:
            raise HostError("definition_invalid", f"{d.name}: a multiclass sample submission needs the vocabulary")
        first = labels[0]
        note = (f"every row predicts `{first}`, the first class in sorted order: a {d.name} row must hold exactly "
                "one class, and one class repeated says nothing of the truth")
        return format_submission(ids, [str(first)] * len(ids), d), note
    note = "every row predicts the empty list, a valid prediction that says nothing of the truth"
    return format_submission(ids, [[] for _ in ids], d), note


def zip_bytes(files: dict) -> bytes:
    """A deterministic zip of ``{name: bytes}`` (sorted names, fixed timestamps, mode 0644)."""
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, files[name])
    return buf.getvalue()


def under(bundle: Bundle, folder: str) -> dict:
    """The files of ``bundle`` under ``folder/``, named from inside it (what a zip made from inside holds)."""
    prefix = folder.rstrip("/") + "/"
    return {rel[len(prefix):]: data for rel, data in bundle.files.items() if rel.startswith(prefix)}


def leak_note(inputs: Inputs) -> str:
    """README paragraph on a solution whose ids reveal their labels (empty when they do not)."""
    found = [w for w in inputs.warnings if getattr(w, "code", "") == "ids_reveal_labels"]
    if not found:
        return ""
    return ("\n**Warning (`ids_reveal_labels`):** " + found[0].message + ". Every participant could read the truth "
            "from the ids in this bundle's `sample_submission.csv`; fix the ids before publishing.\n")
