"""A TOML definition validated once, then read back as its frozen JSON: later runs need no pydantic.

Validating a person's TOML with pydantic costs a fresh ``agrieval score`` about
0.1 s (most of it importing pydantic). The validated definition is written as
the frozen JSON the runtime reads (``freeze``), under a key made of everything
the result depends on:

* the bytes of the TOML file, its name (a missing ``name`` is the file's stem)
  and its folder (``vocabulary_file`` is relative to it);
* the source of the validating code (this module's rules and the runtime's
  dataclasses), so that a kit whose rules changed validates again.

An entry also records the sha256 of each file the TOML pulled in (the
vocabulary file): one that changed is a miss. A miss, an unreadable or corrupt
entry, or one whose recorded hashes differ is ignored and validated again, and
the entry rewritten (to a temporary name, then renamed: a reader never sees half
a file). Thawing a hit runs the runtime's value rules again (``__post_init__``).

Where: ``$AGRIEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/agrieval``, else
``~/.cache/agrieval``; the entries lie in its ``definitions/`` folder. A cache
that cannot be written (read-only home) only costs the validation each time.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from scoring.runtime.definition import CompetitionDefinition, freeze, thaw
from scoring.runtime.problems import HostError

CACHE_ENV = "AGRIEVAL_CACHE_DIR"
ENTRY_FORMAT = "agrieval-definition-cache"
ENTRY_VERSION = 1
# What validation depends on besides the TOML: a change to any of these files is a miss.
_VALIDATORS = (Path(__file__).with_name("definitions.py"),
               Path(__file__).resolve().parents[1] / "runtime" / "definition.py")


def cache_dir() -> Path:
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "agrieval"


def load_toml_cached(path: Path, raw: bytes, validate_toml) -> CompetitionDefinition:
    """The definition of the TOML file ``path`` whose bytes are ``raw``: from the cache when an entry for these
    exact bytes is there, else ``validate_toml(path, raw)``, which gives the definition and the sha256 of each
    file it read besides the TOML (by path)."""
    resolved = path.resolve()
    key = _key(raw, resolved)
    entry = cache_dir() / "definitions" / f"{key}.json"
    definition = _read_entry(entry, key)
    if definition is None:
        definition, inputs = validate_toml(path, raw)
        _write_entry(entry, key, definition, inputs)
    object.__setattr__(definition, "source_path", str(resolved))
    return definition


def _key(raw: bytes, resolved: Path) -> str:
    h = hashlib.sha256()
    for part in (f"{ENTRY_FORMAT}/{ENTRY_VERSION}".encode(), *(_source(p) for p in _VALIDATORS),
                 os.fsencode(resolved.name), os.fsencode(resolved.parent), raw):
        h.update(len(part).to_bytes(8, "little"))  # lengths first: no two inputs join into the same bytes
        h.update(part)
    return h.hexdigest()


def _source(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _sha256_of(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _read_entry(entry: Path, key: str) -> CompetitionDefinition | None:
    """The cached definition, or None for a miss or any entry that is not exactly what was written."""
    try:
        doc = json.loads(entry.read_text(encoding="utf-8"))
        if not (isinstance(doc, dict) and doc.get("format") == ENTRY_FORMAT and doc.get("version") == ENTRY_VERSION
                and doc.get("key") == key and isinstance(doc.get("inputs"), dict)
                and isinstance(doc.get("frozen"), str)):
            return None
        for name, digest in doc["inputs"].items():
            if _sha256_of(name) != digest:
                return None
        return thaw(doc["frozen"], str(entry))
    except (OSError, ValueError, TypeError, HostError):
        return None


def _write_entry(entry: Path, key: str, definition: CompetitionDefinition, inputs: dict) -> None:
    doc = {"format": ENTRY_FORMAT, "version": ENTRY_VERSION, "key": key, "inputs": inputs,
           "frozen": freeze(definition)}
    import tempfile  # (only on a miss)

    tmp = None
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=entry.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        os.replace(tmp, entry)
        tmp = None
    except OSError:
        pass  # no cache here: the next run validates again
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
