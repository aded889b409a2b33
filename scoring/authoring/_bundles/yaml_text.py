"""YAML text for the platforms' config files, written without a YAML library (PyYAML is not a dependency).

Strings are written as JSON strings, which YAML reads as double-quoted scalars: no value of the organizer's (a
title with a colon, a name starting with ``*``) can change the file's structure. Keys are written plain when they
are plain words or integers (CodaLab v1 numbers its phases ``1:``, ``2:``), quoted otherwise.
"""

from __future__ import annotations

import re

from agrieval.scoring.text.literals import yaml as quoted  # the one YAML quoting function (``text/literals``)

__all__ = ["dump", "quoted", "scalar"]

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Plain words a YAML 1.1 reader resolves to a boolean or null (PyYAML's resolver.py): quoted when keys.
_RESERVED = {"y", "yes", "n", "no", "true", "false", "on", "off", "null"}


def dump(value, indent: int = 0) -> str:
    """The YAML block text of a dict (the top level of every config file)."""
    if not isinstance(value, dict):
        raise TypeError("the top level must be a mapping")
    return "".join(_mapping(value, indent))


def _key(key) -> str:
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        raise TypeError(f"unsupported key {key!r}")
    if isinstance(key, int) or _PLAIN_KEY.match(key) and key.lower() not in _RESERVED:
        return str(key)
    return quoted(key)


def scalar(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return quoted(value)
    raise TypeError(f"unsupported value {value!r}")


def _mapping(d: dict, indent: int) -> list:
    pad = " " * indent
    out = []
    for key, value in d.items():
        if isinstance(value, dict) and value:
            out.append(f"{pad}{_key(key)}:\n")
            out += _mapping(value, indent + 2)
        elif isinstance(value, list) and value:
            out.append(f"{pad}{_key(key)}:\n")
            out += _sequence(value, indent + 2)
        elif isinstance(value, (dict, list)):
            out.append(f"{pad}{_key(key)}: {'{}' if isinstance(value, dict) else '[]'}\n")
        else:
            out.append(f"{pad}{_key(key)}: {scalar(value)}\n")
    return out


def _sequence(items: list, indent: int) -> list:
    pad = " " * indent
    out = []
    for item in items:
        if isinstance(item, dict) and item:
            lines = _mapping(item, indent + 2)
            out.append(pad + "- " + lines[0][indent + 2:])
            out += lines[1:]
        elif isinstance(item, (dict, list)):
            raise TypeError("nested empty or list items are not written")
        else:
            out.append(f"{pad}- {scalar(item)}\n")
    return out
