"""Class-folder names -> the study's six class names.

The map is data (``class_map.toml``, shipped with the package): a folder name
is put in canonical form (accents removed, lower case, separators to ``_``),
then looked up among ``classes`` and ``aliases``. An unknown name maps to
``None``: callers list it, nothing is guessed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import tomllib

from agrieval.data_tools.errors import DataError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes

_SEPARATORS = re.compile(r"[\s\-.]+")


def canonical(name: str) -> str:
    """``"Chênes  Verts"`` -> ``"chenes_verts"``: NFKD without combining marks, lower, separators to ``_``."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SEPARATORS.sub("_", bare.strip().lower()).strip("_")


@dataclass(frozen=True)
class ClassMap:
    """The class names in their fixed order, the aliases that map other spellings onto them, and where they
    came from."""

    classes: tuple[str, ...]
    aliases: dict[str, str] = field(default_factory=dict)
    source: str = "data_tools/class_map.toml"

    def normalise(self, folder: str) -> str | None:
        """The class of a folder name, or ``None`` when it is not in the map."""
        key = canonical(folder)
        if key in self.classes:
            return key
        return self.aliases.get(key)

    def to_toml(self) -> str:
        lines = ["classes = [" + ", ".join(f'"{c}"' for c in self.classes) + "]", "", "[aliases]"]
        lines += [f'{k} = "{v}"' for k, v in sorted(self.aliases.items())]
        return "\n".join(lines) + "\n"


def _parse(text: str, source: str) -> dict:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError("bad_class_map", f"{source}: {exc}") from None
    unknown = set(data) - {"classes", "aliases"}
    if unknown:
        raise DataError("bad_class_map", f"{source}: unknown keys {sorted(unknown)}; expected 'classes' and [aliases]")
    if "classes" in data and not (isinstance(data["classes"], list)
                                  and all(isinstance(c, str) for c in data["classes"])):
        raise DataError("bad_class_map", f"{source}: 'classes' must be a list of strings")
    aliases = data.get("aliases", {})
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise DataError("bad_class_map", f"{source}: [aliases] must map folder names to class names (strings)")
    return data


_MAX_CLASS_MAP_BYTES = 1 << 20  # a few classes and their folder-name aliases: kilobytes


def load_class_map(user_map: str | Path | None = None) -> ClassMap:
    """The shipped map, with ``user_map`` (a TOML path) laid over it."""
    text = resources.files("agrieval.data_tools").joinpath("class_map.toml").read_text(encoding="utf-8")
    base = _parse(text, "data_tools/class_map.toml")
    classes = list(base["classes"])
    aliases = {canonical(k): v for k, v in base.get("aliases", {}).items()}
    source = "data_tools/class_map.toml"
    if user_map is not None:
        path = Path(user_map)

        try:  # the one opening rule (scoring/runtime/untrusted.py): a FIFO or a device is refused, not read
            user_text = read_bytes(path, max_bytes=_MAX_CLASS_MAP_BYTES, what="class map").decode("utf-8")
        except UntrustedFileError as exc:
            raise DataError("bad_class_map", f"{path}: {exc.message}") from None
        except UnicodeDecodeError as exc:
            raise DataError("bad_class_map", f"{path}: not UTF-8 ({exc})") from None
        except OSError as exc:
            raise DataError("bad_class_map", f"{path}: cannot read ({exc.strerror})") from None
        user = _parse(user_text, str(path))
        if "classes" in user:
            classes = [canonical(c) for c in user["classes"]]
        aliases.update({canonical(k): v for k, v in user.get("aliases", {}).items()})
        source = f"{source} + {path}"
    bad_targets = sorted({v for v in aliases.values() if v not in classes})
    if bad_targets:
        raise DataError("bad_class_map", f"{source}: aliases point to classes not in 'classes': {bad_targets}")
    return ClassMap(tuple(classes), aliases, source)
