"""Competition definitions written by people (TOML), validated on every load and handed to the runtime as dataclasses.

``validate`` checks what a person wrote against the runtime dataclasses' annotations (types, unknown
keys, each problem named by its key path); the value rules themselves are the dataclasses' own
(``scoring/runtime/definition.py``), so there is one implementation of each. pydantic reads the same
annotations for the JSON Schema (``agrieval.scoring.authoring.schemas``) and, in the tests, as the oracle of
``validate``.
TOML is read with ``tomllib`` (Python 3.11+) or ``tomli``.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import replace
from pathlib import Path

from agrieval.scoring.runtime.definition import (
    CompetitionDefinition,
    load_definition,
    shipped_competitions,
)
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes

# Imported inside functions, so that importing this module loads only what it needs: tomli, tomllib (heavy or optional); scoring.writing.table_paths (`agrieval score` does not need them).

TOML_DIR = Path(__file__).resolve().parents[1] / "competitions"


def _toml_module():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise HostError("definition_invalid", "reading a TOML definition on this Python needs tomli: "
                            "pip install tomli (or freeze the definition to JSON on Python 3.11+)") from None
    return tomllib


def available_competitions() -> list[str]:
    """The names of the competitions the kit ships, sorted (as ``agrieval score -c`` takes them)."""
    return shipped_competitions()


def load_competition(name_or_path: str | Path | CompetitionDefinition) -> CompetitionDefinition:
    """A shipped competition by name, a frozen ``.json``, or a person's ``.toml`` (validated here).

    Raises ``HostError('definition_invalid')`` with a message naming each bad key.
    """
    if isinstance(name_or_path, CompetitionDefinition):
        return name_or_path
    path = Path(name_or_path)
    if str(name_or_path) in shipped_competitions() or path.suffix != ".toml":
        return load_definition(name_or_path)
    return load_toml(path)


def load_toml(path: Path) -> CompetitionDefinition:
    """A person's TOML definition, validated on every call (nothing is cached; ``agrieval competitions freeze``
    writes the frozen JSON that a grading platform reads without a TOML parser)."""
    definition = _validate_toml(path, _read(path))
    object.__setattr__(definition, "source_path", str(path.resolve()))
    return definition


# A definition and its vocabulary are read by the one opening rule (scoring/runtime/untrusted.py): a FIFO or a
# device named as one is refused, not read; PlantCLEF's 7,806 species take 63 KB, so the cap leaves ample room.
_MAX_DEFINITION_BYTES = 64 * 2**20


def _read(path: Path, what: str = "competition definition") -> bytes:
    try:
        return read_bytes(path, max_bytes=_MAX_DEFINITION_BYTES, what=what)
    except UntrustedFileError as exc:
        raise HostError("definition_invalid", f"{str(path)!r}: {exc.message}") from None
    except OSError as exc:
        raise HostError("definition_invalid", f"cannot read {what} {str(path)!r}: {exc}") from None


def _validate_toml(path: Path, raw: bytes) -> CompetitionDefinition:
    """The definition in ``raw`` (the bytes of ``path``), its vocabulary file inlined."""
    tomllib = _toml_module()
    try:
        # (line ends translated as read_text translates them)
        data = tomllib.loads(raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise HostError("definition_invalid", f"{path}: not valid TOML ({exc})") from None
    data.setdefault("name", path.stem)
    data.pop("source_path", None)
    definition = validate(data, str(path))
    return _resolve_vocabulary(definition, path.resolve().parent, str(path))


def validate(data: dict, where: str) -> CompetitionDefinition:
    """Plain data (from TOML) -> a runtime definition, or one ``HostError`` listing every bad key.

    Strict, as the JSON Schema (``docs/definition.schema.json``) says: "5" is not an integer and 1 is not
    true, an array is a tuple, an unknown key is an error. The types come from the dataclasses' annotations
    (``_problems``); the value rules are their own ``__post_init__``. No pydantic here: building its validator
    would be most of the fixed cost of every ``agrieval score -c my.toml``.
    tests/scoring/authoring/test_definition_types.py keeps the two in agreement, with pydantic as the oracle.
    """
    problems: list[tuple[str, str]] = []
    definition = _build(CompetitionDefinition, data, (), problems)
    if problems:
        lines = [f"  {p[0] or '(top level)'}: {p[1]}" for p in problems]
        code = next((p[2] for p in problems if len(p) > 2 and p[2]), "definition_invalid")
        raise HostError(code, f"{where}: invalid competition definition\n" + "\n".join(lines))
    return definition


_UNKNOWN_KEY = "unknown key (check its spelling against docs/definition.schema.json)"


def _build(cls, data, loc: tuple, problems: list):
    """An instance of the dataclass ``cls`` from ``data``, or None with each problem appended (key path, message)."""
    if not isinstance(data, dict):
        problems.append((".".join(loc), "Input should be an object"))
        return None
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    before = len(problems)
    values = {}
    for key, value in data.items():
        if key not in fields:
            problems.append((".".join(loc + (str(key),)), _UNKNOWN_KEY))
            continue
        values[key] = _value(hints[key], value, loc + (key,), problems)
    for name, f in fields.items():
        if name not in data and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            problems.append((".".join(loc + (name,)), "Field required"))
    if len(problems) > before:
        return None
    try:
        return cls(**values)
    except ValueError as exc:  # a value rule of __post_init__ (with its own code where it has one: the name's)
        problems.append((".".join(loc), str(exc), getattr(exc, "code", None)))
        return None


def _value(tp, value, loc: tuple, problems: list):
    """``value`` checked against the annotation ``tp`` (and converted: arrays to tuples, tables to dataclasses)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, loc, problems)
    if origin is typing.Union:  # Optional[X]
        if value is None:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _value(inner, value, loc, problems)
    if origin is typing.Literal:
        if any(type(value) is type(a) and value == a for a in args):
            return value
        choices = " or ".join(", ".join(repr(a) for a in args).rsplit(", ", 1))
        return _wrong(loc, f"Input should be {choices}", problems)
    if origin is tuple:  # Tuple[X, ...]
        if not isinstance(value, (list, tuple)):
            return _wrong(loc, "Input should be a valid tuple", problems)
        return tuple(_value(args[0], v, loc + (str(i),), problems) for i, v in enumerate(value))
    if origin is dict:  # Dict[str, X]
        if not isinstance(value, dict):
            return _wrong(loc, "Input should be a valid dictionary", problems)
        return {k: _value(args[1], v, loc + (str(k),), problems) for k, v in value.items()}
    if tp is bool:
        return value if isinstance(value, bool) else _wrong(loc, "Input should be a valid boolean", problems)
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return value if ok else _wrong(loc, "Input should be a valid integer", problems)
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return float(value) if ok else _wrong(loc, "Input should be a valid number", problems)
    if tp is str:
        return value if isinstance(value, str) else _wrong(loc, "Input should be a valid string", problems)
    raise TypeError(f"no check for the annotation {tp!r}")  # a new field type: teach _value about it


def _wrong(loc: tuple, message: str, problems: list) -> None:
    problems.append((".".join(loc), message))
    return None


@functools.lru_cache(maxsize=None)
def _hints(cls) -> dict:
    return typing.get_type_hints(cls)


def _resolve_vocabulary(definition: CompetitionDefinition, base: Path, where: str) -> CompetitionDefinition:
    """Inline ``vocabulary_file`` (one label per line, relative to the TOML file and inside its folder: the
    path is data, joined by the one rule for paths read from files, ``scoring/writing/table_paths.py``)."""
    from agrieval.scoring.writing.table_paths import UnsafePath, inside

    if not definition.vocabulary_file:
        return definition
    try:
        path = inside(base, definition.vocabulary_file, where=f"{where}: vocabulary_file", nested=(0,),
                      follow=True, escaped=False)
    except UnsafePath as exc:
        raise HostError("definition_invalid", str(exc)) from None
    try:
        text = _read(path, "vocabulary_file").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HostError("definition_invalid", f"{where}: vocabulary_file {str(path)!r} is not UTF-8 ({exc})") from None
    items = tuple(ln.strip() for ln in text.splitlines() if ln.strip())
    try:
        return replace(definition, vocabulary_file=None, vocabulary=items)
    except ValueError as exc:
        raise HostError("definition_invalid", f"{where}: {path.name}: {exc}") from None
