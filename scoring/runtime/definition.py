"""Competition definitions as the grading runtime holds them: plain frozen dataclasses.

A definition says everything the reader, validator and scorer need to know
about one competition: the task, the columns, the CSV dialect, the list syntax,
the vocabulary, the limits, the public/private split, the grouping and the
primary metric.

Where definitions come from:

* a person writes TOML (``scoring/competitions/*.toml``, or their own file);
  ``agrieval.scoring.authoring.definitions`` validates it once with pydantic (types,
  unknown keys, error locations) and hands the runtime these dataclasses;
* the runtime itself reads only *frozen* definitions: JSON written by
  ``freeze()`` with the vocabulary inlined and a fingerprint, so that it needs
  neither pydantic nor a TOML parser (grading platforms run Python 3.8-3.10
  with numpy only). The shipped competitions are frozen in
  ``scoring/runtime/competitions/`` (a test keeps them equal to the TOML).

The value rules (ranges, consistency between fields) live in ``__post_init__``:
one implementation, run by pydantic at the edge and by the runtime on frozen
files alike. The annotations use ``typing`` forms so that pydantic can read
them on every supported Python.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Dict, FrozenSet, Literal, Optional, Tuple, Union

from .problems import HostError

# Imported inside functions: numpy, which reading a definition does not need.

try:
    from re import _parser as sre_parse  # Python 3.11+; loaded by re itself
except ImportError:  # Python 3.8-3.10
    import sre_parse  # type: ignore[no-redef]
from .untrusted import UntrustedFileError, read_bytes

_FROZEN_DIR = Path(__file__).parent / "competitions"
_MAX_FROZEN_BYTES = 64 * 2**20  # a frozen PlantCLEF definition, its 7,806 species inlined, is 111 KB
_FROZEN_FORMAT = "agrieval-definition"
_FROZEN_VERSION = 1

_MULTILABEL_METRICS = ("transect_f1", "sample_f1", "micro_f1", "macro_f1", "sample_precision", "sample_recall")
_MULTICLASS_METRICS = ("accuracy", "balanced_accuracy", "macro_f1", "group_accuracy")

# pydantic reads this attribute of a stdlib dataclass (a plain dict: no pydantic import needed here).
_STRICT = {"extra": "forbid"}

# A competition's name is a name, never text: it lands in file names, command lines and generated programs, so
# it is a short ASCII slug (DESIGN.md, trust rules: "names are names"). One rule, checked by every way in (TOML,
# JSON, the pydantic schema, the runtime loader), since all of them build the dataclass below.
NAME_PATTERN = "[A-Za-z0-9][A-Za-z0-9_.-]*"
NAME_MAX_CHARS = 64
_NAME_CODE = "name_invalid"
_NAME = re.compile(NAME_PATTERN)


class _NameInvalid(ValueError):
    """A name of a definition that is not a slug; ``code`` is the stable code every entry point reports."""

    code = _NAME_CODE


def check_name(name: object, what: str = "name") -> str:
    """``name`` if it is a slug: 1 to 64 ASCII letters, digits, ``_``, ``.`` or ``-``, starting with a letter
    or a digit (no option-like ``-x``, no hidden ``.x``); ``NameInvalid`` otherwise. ``what`` names the key."""
    if not isinstance(name, str) or len(name) > NAME_MAX_CHARS or not _NAME.fullmatch(name):
        shown = repr(name[:NAME_MAX_CHARS] + "...") if isinstance(name, str) and len(name) > NAME_MAX_CHARS \
            else repr(name)
        raise _NameInvalid(f"{what} {shown} is not a name: use 1 to {NAME_MAX_CHARS} letters, digits, '_', '.' or "
                          "'-', starting with a letter or a digit (a title or a description holds any text)")
    return name


def _positive(owner: str, values: Dict[str, float]) -> None:
    for key, value in values.items():
        if not value > 0:
            raise ValueError(f"{owner}.{key} must be > 0 (got {value!r})")


@dataclass(frozen=True)
class Limits:
    """Resource limits, each checked before the work it protects."""

    __pydantic_config__ = _STRICT
    max_bytes: int = 50_000_000  # largest accepted file, checked before reading
    max_rows: int = 1_000_000
    max_labels_per_row: int = 1_000
    max_cell_chars: int = 100_000  # longest accepted CSV field
    max_seconds: float = 60.0  # wall-clock budget of one grading in the guard
    max_unzipped_bytes: int = 200_000_000  # largest accepted member of a zip upload
    max_memory_mb: int = 2048  # memory one grading may add to the server's own (POSIX)
    # Longest accepted id (characters), checked before any per-row work on the ids: comparing ids costs
    # (longest id / 8) words per row, so one 20,000-character id would cost gigabytes. The id pattern's own
    # maximum, when it has one, is lower still (``CompetitionDefinition.max_id_chars``).
    max_id_chars: int = 256

    def __post_init__(self) -> None:
        _positive("limits", asdict(self))


@dataclass(frozen=True)
class SplitSpec:
    """Public/private split column of the solution (Kaggle ``Usage`` or HF ``split``)."""

    __pydantic_config__ = _STRICT
    column: str = "Usage"
    public: str = "Public"
    private: str = "Private"
    ignored: Optional[str] = "Ignored"
    # EvalAI phase codename -> split name ("public" or "private").
    phases: Dict[str, Literal["public", "private"]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [n for n in (self.public, self.private, self.ignored) if n is not None]
        if len(set(names)) != len(names):
            raise ValueError(f"split: the public, private and ignored values must differ (got {names})")
        for phase, split in self.phases.items():
            check_name(phase, "split.phases codename")  # it names files of the EvalAI bundle
            if split not in ("public", "private"):
                raise ValueError(f"split.phases.{phase} must be 'public' or 'private' (got {split!r})")


@dataclass(frozen=True)
class GroupingSpec:
    """How rows are grouped: PlantCLEF transects, AgrI teams.

    ``solution_column`` wins when the solution has it; otherwise ``rule`` derives
    the group from the id (multilabel only). No official PlantCLEF rule exists:
    see ``scoring/runtime/grouping.py`` for what each rule gives on the real ids.
    """

    __pydantic_config__ = _STRICT
    name: str = "group"  # what a group is called in reports: transect, team...
    solution_column: Optional[str] = None
    rule: Literal["strip-date", "first-n-parts", "regex", "whole-id", "column-only"] = "column-only"
    n_parts: int = 3
    patterns: Tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _positive("grouping", {"n_parts": self.n_parts})
        if self.rule == "regex":
            if not self.patterns:
                raise ValueError("grouping.rule = 'regex' needs grouping.patterns")
            for p in self.patterns:
                try:
                    compiled = re.compile(p)
                except re.error as exc:
                    raise ValueError(f"grouping.patterns: {p!r} is not a valid regex ({exc})") from None
                if compiled.groups != 1:
                    raise ValueError(f"grouping.patterns: {p!r} must have exactly one capture group")
        if self.rule == "column-only" and not self.solution_column:
            raise ValueError("grouping.rule = 'column-only' needs grouping.solution_column")


@dataclass(frozen=True)
class CompetitionDefinition:
    """One competition: task, columns, CSV dialect, vocabulary, limits, split, grouping, primary metric."""

    __pydantic_config__ = _STRICT
    name: str
    task: Literal["multilabel", "multiclass"]
    id_column: str
    prediction_column: str
    primary_metric: str
    title: str = ""
    url: str = ""
    delimiter: str = ","
    # How files of this competition are usually written; the reader accepts any CSV quoting.
    quoting: Literal["all", "minimal", "none"] = "minimal"
    list_syntax: Literal["python-list", "space-separated", "single"] = "python-list"
    label_type: Literal["int", "str"] = "int"
    vocabulary_file: Optional[str] = None  # one label per line, relative to the TOML file
    vocabulary: Optional[Tuple[str, ...]] = None  # inline vocabulary (frozen definitions always inline it)
    id_pattern: Optional[str] = None  # regex every id must fully match
    limits: Limits = field(default_factory=Limits)
    split: SplitSpec = field(default_factory=SplitSpec)
    grouping: Optional[GroupingSpec] = None
    higher_is_better: bool = True
    empty_both_score: float = 1.0  # score of a row whose truth and prediction are both empty
    # Decimals of the public scores a participant is shown (None: unrounded). For stateless grading platforms,
    # where the Ladder cannot keep a team's state: `agrieval bundle --public-precision auto` sets it from the
    # public split's noise level (scoring/authoring/_public_precision.py); raw values stay under ``host``.
    public_decimals: Optional[int] = None
    source_path: Optional[str] = field(default=None, compare=False)  # where it was read from; not frozen

    def __post_init__(self) -> None:
        check_name(self.name)
        if len(self.delimiter) != 1 or self.delimiter in ('"', "\n", "\r") or self.delimiter.isalnum():
            raise ValueError(f"delimiter {self.delimiter!r} cannot be used")
        if self.id_pattern is not None:
            try:
                re.compile(self.id_pattern)
            except re.error as exc:
                raise ValueError(f"id_pattern is not a valid regex ({exc})") from None
        if self.public_decimals is not None and not (isinstance(self.public_decimals, int)
                                                     and 0 <= self.public_decimals <= 15):
            raise ValueError(f"public_decimals must be an integer in [0, 15] (got {self.public_decimals!r})")
        if not 0.0 <= self.empty_both_score <= 1.0:
            raise ValueError(f"empty_both_score must lie in [0, 1] (got {self.empty_both_score!r})")
        allowed = _MULTILABEL_METRICS if self.task == "multilabel" else _MULTICLASS_METRICS
        if self.primary_metric not in allowed:
            raise ValueError(f"primary_metric {self.primary_metric!r} is not one of {', '.join(allowed)} "
                             f"for task {self.task!r}")
        if self.task == "multiclass" and self.list_syntax != "single":
            raise ValueError("list_syntax must be 'single' for a multiclass task")
        if self.task == "multilabel" and self.list_syntax == "single":
            raise ValueError("list_syntax 'single' is only for multiclass tasks")
        if self.vocabulary_file and self.vocabulary is not None:
            raise ValueError("give vocabulary_file or vocabulary, not both")
        if self.id_column == self.prediction_column:
            raise ValueError("id_column and prediction_column must differ")
        if self.primary_metric == "transect_f1" and self.grouping is None:
            raise ValueError("primary_metric 'transect_f1' needs a [grouping] table")
        if self.vocabulary is not None and self.label_type == "int":
            bad = next((x for x in self.vocabulary if not _is_int_text(x)), None)
            if bad is not None:
                raise ValueError(f"vocabulary has a non-integer label {bad!r}")

    @cached_property
    def max_id_chars(self) -> int:
        """The longest id this competition accepts: ``limits.max_id_chars``, or the id pattern's own maximum
        length when it has one and it is lower (``[A-Z]{3}-[0-9]{1,6}`` allows 10)."""
        return min(self.limits.max_id_chars, _pattern_max_length(self.id_pattern))

    @cached_property
    def labels(self) -> Optional[FrozenSet[Union[int, str]]]:
        """The vocabulary as a set of labels of ``label_type``, or None when open."""
        if self.vocabulary is None:
            if self.vocabulary_file:
                raise HostError("definition_invalid", f"{self.name}: vocabulary_file was not resolved; load the "
                                "definition with load_definition() or agrieval.scoring.authoring.definitions")
            return None
        if self.label_type == "int":
            return frozenset(int(x) for x in self.vocabulary)
        return frozenset(self.vocabulary)

    @cached_property
    def int_label_lookup(self):
        """Boolean array indexed by label: True for the vocabulary's integer labels (None when open)."""
        import numpy as np

        labels = self.labels
        if labels is None or self.label_type != "int":
            return None
        arr = np.fromiter(labels, dtype=np.int64, count=len(labels))
        if len(arr) and (arr.min() < 0 or arr.max() > 50_000_000):
            raise HostError("definition_invalid", f"{self.name}: vocabulary labels must lie in 0..50,000,000")
        lookup = np.zeros(int(arr.max()) + 1 if len(arr) else 0, dtype=bool)
        lookup[arr] = True
        return lookup

    @cached_property
    def int_label_codes(self):
        """int32 array indexed by label: the vocabulary's integer labels numbered 0..K-1 in ascending order,
        -1 for any other index (None when open). Lets metrics count per class in K counters."""
        import numpy as np

        lookup = self.int_label_lookup
        if lookup is None:
            return None
        codes = np.full(len(lookup), -1, dtype=np.int32)
        known = np.flatnonzero(lookup)
        codes[known] = np.arange(len(known), dtype=np.int32)
        return codes

    @property
    def expected_columns(self) -> list:
        return [self.id_column, self.prediction_column]



def _pattern_max_length(pattern: Optional[str]) -> int:
    """The most characters a full match of ``pattern`` can have (a very large number when unbounded)."""
    unbounded = 2**62
    if pattern is None:
        return unbounded
    try:
        return min(int(sre_parse.parse(pattern).getwidth()[1]), unbounded)
    except Exception:  # noqa: BLE001 - an internal module: without it the limit alone caps ids
        return unbounded

def _is_int_text(text: str) -> bool:
    return text.isascii() and text.isdigit()


# --- plain data in and out ------------------------------------------------------------------------------------

def _from_plain(data: dict) -> CompetitionDefinition:
    """Build a definition from plain data already checked for types (a frozen file, or pydantic's output).

    Value rules still run (``__post_init__``); a ``ValueError`` names the rule broken.
    """
    data = dict(data)
    data["limits"] = Limits(**data.get("limits", {}))
    data["split"] = SplitSpec(**data.get("split", {}))
    if data.get("grouping") is not None:
        grouping = dict(data["grouping"])
        grouping["patterns"] = tuple(grouping.get("patterns", ()))
        data["grouping"] = GroupingSpec(**grouping)
    if data.get("vocabulary") is not None:
        data["vocabulary"] = tuple(data["vocabulary"])
    return CompetitionDefinition(**data)


def to_plain(definition: CompetitionDefinition) -> dict:
    """The definition as JSON-ready data (tuples as lists; ``source_path`` left out)."""
    data = asdict(definition)
    data.pop("source_path", None)
    if data.get("public_decimals") is None:  # (absent rather than null: definitions frozen before it stay valid)
        data.pop("public_decimals", None)
    return json.loads(json.dumps(data))


def fingerprint(plain: dict) -> str:
    """sha256 of the canonical JSON of a definition: a frozen file edited by hand no longer matches."""
    canonical = json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def freeze(definition: CompetitionDefinition) -> str:
    """The frozen JSON text of a definition whose vocabulary is resolved (inlined)."""
    if definition.vocabulary_file and definition.vocabulary is None:
        raise HostError("definition_invalid", f"{definition.name}: resolve vocabulary_file before freezing")
    plain = to_plain(definition)
    plain["vocabulary_file"] = None
    doc = {"format": _FROZEN_FORMAT, "format_version": _FROZEN_VERSION, "fingerprint": fingerprint(plain),
           "definition": plain}
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def thaw(text: str, where: str) -> CompetitionDefinition:
    """Read frozen JSON text (``where`` names it in messages)."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise HostError("definition_invalid", f"{where}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != _FROZEN_FORMAT:
        raise HostError("definition_invalid", f"{where}: not a frozen agrieval definition (written by "
                        "`agrieval competitions freeze`)")
    if doc.get("format_version") != _FROZEN_VERSION:
        raise HostError("definition_invalid", f"{where}: frozen with format version {doc.get('format_version')!r}; "
                        f"this runtime reads version {_FROZEN_VERSION}: freeze it again with this version")
    plain = doc.get("definition")
    if not isinstance(plain, dict) or fingerprint(plain) != doc.get("fingerprint"):
        raise HostError("definition_invalid", f"{where}: the definition does not match its fingerprint (edited by "
                        "hand?); edit the TOML and freeze it again")
    try:
        definition = _from_plain(plain)
    except (TypeError, ValueError) as exc:
        raise HostError(getattr(exc, "code", "definition_invalid"), f"{where}: {exc}") from None
    return _with_source(definition, where)


def _with_source(definition: CompetitionDefinition, source: str) -> CompetitionDefinition:
    object.__setattr__(definition, "source_path", source)
    return definition


def shipped_competitions() -> list:
    """The names of the frozen competition definitions the runtime carries, sorted."""
    return sorted(p.stem for p in _FROZEN_DIR.glob("*.json"))


def load_definition(name_or_path: Union[str, Path, CompetitionDefinition]) -> CompetitionDefinition:
    """A shipped competition by name, or a frozen definition (``.json``) by path.

    TOML is the authoring format: validate and freeze it with the full kit
    (``agrieval competitions freeze FILE.toml -o FILE.json``), or load it with
    ``agrieval.scoring.authoring.definitions.load_competition`` where pydantic is installed.
    """
    if isinstance(name_or_path, CompetitionDefinition):
        return name_or_path
    text = str(name_or_path)
    if text in shipped_competitions():
        path = _FROZEN_DIR / f"{text}.json"
    else:
        path = Path(text)
        if path.suffix == ".toml":
            raise HostError("definition_invalid", f"{text}: the grading runtime reads frozen definitions (.json); "
                            f"freeze it with `agrieval competitions freeze {text} -o {path.with_suffix('.json')}`")
        if path.suffix != ".json" and not path.exists():
            raise HostError("definition_invalid", f"unknown competition {text!r}{_did_you_mean(text)}; shipped: "
                            f"{', '.join(shipped_competitions())}, or pass a path to a frozen .json definition")

    try:  # the one opening rule: a FIFO or a device named as a definition is refused, not read
        raw = read_bytes(path, max_bytes=_MAX_FROZEN_BYTES, what="competition definition").decode("utf-8")
    except UntrustedFileError as exc:
        raise HostError("definition_invalid", f"{str(path)!r}: {exc.message}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HostError("definition_invalid", f"cannot read competition definition {str(path)!r}: {exc}") from None
    return thaw(raw, str(path))


def _did_you_mean(text: str) -> str:
    close = difflib.get_close_matches(text.lower(), shipped_competitions(), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
