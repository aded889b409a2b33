"""Competition definitions written by people (TOML), validated on every load and handed to the runtime as dataclasses.

pydantic checks what a person wrote (types, unknown keys, each problem named
by its key path); the value rules themselves are the runtime dataclasses' own
(``scoring/runtime/definition.py``), so there is one implementation of each.
TOML is read with ``tomllib`` (Python 3.11+) or ``tomli``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from agrieval.scoring.runtime.definition import (
    CompetitionDefinition,
    load_definition,
    shipped_competitions,
)
from agrieval.scoring.runtime.problems import HostError

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
    """A person's TOML definition, validated on every call (nothing is cached: ``agrieval competitions freeze``
    is the way to a frozen JSON that later runs read without pydantic)."""
    definition = _validate_toml(path, _read(path))
    object.__setattr__(definition, "source_path", str(path.resolve()))
    return definition


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise HostError("definition_invalid", f"cannot read competition definition {str(path)!r}: {exc}") from None


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
    """Plain data (from TOML) -> a runtime definition, or one ``HostError`` listing every bad key."""
    from pydantic import TypeAdapter, ValidationError

    try:
        # JSON mode and strict: "5" is not an integer and 1 is not true, but an array is a tuple.
        return TypeAdapter(CompetitionDefinition).validate_json(json.dumps(data), strict=True)
    except ValidationError as exc:
        lines, code = [], "definition_invalid"
        for err in exc.errors():
            code = getattr(err.get("ctx", {}).get("error"), "code", code)  # a value rule's own code (the name)
            key = ".".join(str(x) for x in err["loc"]) or "(top level)"
            msg = err["msg"].replace("Value error, ", "")
            if err["type"] == "unexpected_keyword_argument":
                msg = "unknown key (check its spelling against docs/definition.schema.json)"
            lines.append(f"  {key}: {msg}")
        raise HostError(code, f"{where}: invalid competition definition\n" + "\n".join(lines)) from None


def _resolve_vocabulary(definition: CompetitionDefinition, base: Path, where: str) -> CompetitionDefinition:
    """Inline ``vocabulary_file`` (one label per line, relative to the TOML file)."""
    if not definition.vocabulary_file:
        return definition
    path = base / definition.vocabulary_file
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HostError("definition_invalid", f"{where}: vocabulary_file {str(path)!r} cannot be read ({exc})") from None
    items = tuple(ln.strip() for ln in text.splitlines() if ln.strip())
    try:
        return replace(definition, vocabulary_file=None, vocabulary=items)
    except ValueError as exc:
        raise HostError("definition_invalid", f"{where}: {path.name}: {exc}") from None
