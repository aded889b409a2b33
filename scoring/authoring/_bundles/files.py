"""What every bundle writer shares: the bundle as files in memory, checks of the inputs, and writing it out."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path

from agrieval.scoring.authoring import _vendoring as vendoring
from agrieval.scoring.authoring.solution_order import order_warnings, publication_order
from agrieval.scoring.runtime.atomic import write_bytes
from agrieval.scoring.runtime.definition import CompetitionDefinition, shipped_competitions
from agrieval.scoring.runtime.guard import grade
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.reading.solution import Solution, load_solution
from agrieval.scoring.text import literals as lit
from agrieval.scoring.text.template import Filled, fill, join, prose
from agrieval.scoring.writing.submission import format_submission

# Imported inside functions, so that importing this module loads only what it needs: zipfile (heavy or optional).

# The oldest Python and numpy the runtime claims (tested in CI: .ci/interpreters).
MIN_PYTHON = "3.8"
MIN_NUMPY = "1.21"


# Where a next step names the bundle's own folder: the command line puts the folder there, as one shell word.
BUNDLE_HOLE = "{bundle}"


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
    order_key: str = ""  # the key of the published ids' order (``publication_order``); "" means the definition's name

    @property
    def key(self) -> str:
        return self.order_key or self.definition.name


def check_inputs(definition: CompetitionDefinition, solution_path: Path, *, splits: tuple,
                 order_key: str = "") -> Inputs:
    """Load the solution, require rows of each split in ``splits``, and learn the metric keys by scoring the
    solution against itself through the guard (what the bundled program will write, key for key). Its
    warnings: the solution's own (``ids_reveal_labels``), then those of its order, in its rows and in its
    sorted ids (``solution_order.order_warnings``)."""
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
    warnings = list(solution.warnings) + order_warnings(solution, definition, orders=("rows", "sorted_ids"))
    return Inputs(definition, Path(solution_path), solution, keys, warnings, order_key)


def _perfect_submission(solution_path: Path, definition: CompetitionDefinition) -> bytes:
    """The solution's id and prediction columns only: a submission that must score perfectly."""
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


DEFINITION_FILE = "competition.json"  # a custom competition's frozen definition, shipped for `agrieval validate`


def validate_command(definition: CompetitionDefinition) -> str:
    """The command line a participant runs to check a file: every word a shell literal (``literals.shell_line``).
    A shipped competition by its name; any other by the frozen definition the bundle ships (``DEFINITION_FILE``):
    the participant's agrieval does not know the organizer's name."""
    which = definition.name if definition.name in shipped_competitions() else DEFINITION_FILE
    return lit.shell_line("agrieval", "validate", "submission.csv", "--competition", which)


def sorting(definition: CompetitionDefinition) -> str:
    return "desc" if definition.higher_is_better else "asc"


def runtime_note() -> Filled:
    return fill(__file__, "runtime_note.md", min_python=MIN_PYTHON, min_numpy=MIN_NUMPY,
                digest=vendoring.runtime_digest())


def order_note(inputs: Inputs) -> Filled:
    """README paragraph: the order of the published ids, its key, why; and any warning about the order."""
    found = [w for w in inputs.warnings if getattr(w, "code", "") in ("order_reveals_labels", "order_reveals_split")]
    warnings = [fill(__file__, "order_warning.md", code=w.code, message=w.message) for w in found]
    verdict = join([prose(": see below.\n")] + warnings) if found else prose(": nothing found.\n")
    return fill(__file__, "order_note.md", key=inputs.key, found=verdict)


def sample_submission(inputs: Inputs) -> tuple:
    """``(csv_text, note)``: every id of the solution, in ``publication_order``, with a prediction that carries
    no label.

    Multilabel: the empty list, a valid prediction (it scores ``empty_both_score`` where the truth is empty, 0
    elsewhere). Multiclass: a row must hold exactly one class, so every row gets the vocabulary's first class (in
    the definition's order), the same for all rows: it tells nothing of the truth either."""
    d = inputs.definition
    ids = publication_order(list(inputs.solution.ids), inputs.key)
    if d.task == "multiclass":
        labels = sorted(d.labels, key=str) if d.labels else []
        if not labels:
            raise HostError("definition_invalid", f"{d.name}: a multiclass sample submission needs the vocabulary")
        first = labels[0]
        note = fill(__file__, "sample_note_multiclass.md", first=first, name=d.name)
        return format_submission(ids, [str(first)] * len(ids), d), note
    note = prose("every row predicts the empty list, a valid prediction that says nothing of the truth")
    return format_submission(ids, [[] for _ in ids], d), note


def zip_bytes(files: dict) -> bytes:
    """A deterministic zip of ``{name: bytes}`` (sorted names, fixed timestamps, mode 0644)."""
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


def leak_note(inputs: Inputs) -> Filled:
    """README paragraph on a solution whose ids reveal their labels (empty when they do not)."""
    found = [w for w in inputs.warnings if getattr(w, "code", "") == "ids_reveal_labels"]
    return fill(__file__, "leak_note.md", message=found[0].message) if found else prose("")


def solution_notes(inputs: Inputs) -> Filled:
    """What every bundle README says about the solution before the steps: ids that reveal labels, the order."""
    return join([leak_note(inputs), order_note(inputs)])
