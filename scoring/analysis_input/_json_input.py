"""Strict reading of the JSON files of a run tree (run.json, history.jsonl, the AgrI script's results and
summaries): every file that cannot be used is an ``InputError`` with a code, never an internal error.

* only a regular file of at most ``MAX_JSON_BYTES`` is read (a link to ``/dev/zero`` or a FIFO named
  ``run.json`` would otherwise be read forever): ``unreadable_file``;
* text that is not UTF-8 JSON, nesting too deep for the parser (``RecursionError``), an integer too long
  to convert, a string with a lone surrogate (``"\\udc80"``: valid JSON, but no text): ``bad_json``;
* ``NaN``, ``Infinity``, ``-Infinity`` and numbers that overflow a float (``1e999``): ``bad_number``. JSON
  has no such values; Python's parser accepts them by default.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, check_json_shape, read_bytes

# What a run tree's JSON files can be: a run.json is kilobytes (baselines/ctv/runner.py caps its own at 1 MiB);
# the AgrI script's results of a many-team study tens of kilobytes; a history.jsonl ~200 bytes per epoch.
MAX_JSON_BYTES = 4 << 20
MAX_JSON_CONTAINERS, MAX_JSON_VALUES = 10_000, 200_000
MAX_HISTORY_BYTES = 16 << 20  # 80,000 epochs of ~200 bytes


def read_regular(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes (links followed): the kit's
    one opening rule (``scoring/runtime/untrusted.py``), its refusals as ``unreadable_file``."""
    try:
        return read_bytes(path, max_bytes=limit, what=what)
    except FileNotFoundError as exc:
        raise InputError("unreadable_file", f"cannot open the {what}: {exc.strerror}", file=str(path)) from None
    except UntrustedFileError as exc:
        raise InputError("unreadable_file", exc.message, file=str(path)) from None


class _NotFinite(ValueError):
    pass


def _constant(name: str):
    raise _NotFinite(name)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def parse(text: str, *, file: str, line: int | None = None):
    """One JSON value from ``text``; every failure is an ``InputError`` naming ``file`` (and ``line``)."""
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float)
        # "\udc80" is valid JSON but no text: it would stop every UTF-8 output (runs.csv, report.md) later
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except UnicodeEncodeError as exc:
        raise InputError("bad_json", f"a string holds a lone surrogate (\\u{ord(exc.object[exc.start]):04x}), "
                         "which is not text", file=file, line=line) from None
    except _NotFinite as exc:
        raise InputError("bad_number", f"{exc} is not a finite number (JSON has no NaN or Infinity)",
                         file=file, line=line) from None
    except RecursionError:
        raise InputError("bad_json", "cannot parse JSON: nested too deeply", file=file, line=line) from None
    except ValueError as exc:  # JSONDecodeError, and an integer too long to convert
        raise InputError("bad_json", f"cannot parse JSON: {exc}", file=file, line=line) from None


def load_object(path: Path) -> dict:
    """A JSON file that holds an object."""
    name = str(path)
    data = read_regular(path, MAX_JSON_BYTES, "JSON file")
    try:  # what it parses to is bounded before it is parsed (a flood of [] costs 29x its bytes)
        check_json_shape(data, max_depth=64, max_containers=MAX_JSON_CONTAINERS, max_values=MAX_JSON_VALUES,
                         file=name)
    except UntrustedFileError as exc:
        raise InputError("bad_json", exc.message, file=name) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("bad_json", f"cannot parse JSON: not UTF-8 (byte {exc.start})", file=name) from None
    value = parse(text, file=name)
    if not isinstance(value, dict):
        raise InputError("bad_json", "the JSON file must hold an object", file=name)
    return value
