"""The one rule for opening a file someone else could have written: nothing we load hangs or floods memory.

Every file the kit reads that it did not write itself in this run (Ladder states, checkpoints, run trees,
audit logs, JSON reports, manifests, images) is opened here:

- **resolved once**: ``resolve`` follows a symlink chain once, and the caller works on (locks, reads,
  replaces) the file it leads to, never on the link's name again;
- **a regular file**: opened with ``O_NONBLOCK`` (a FIFO cannot hang the open) and checked with
  ``fstat`` on what was opened (no check-then-open race): a FIFO, a socket or a device (``/dev/zero``)
  is refused as ``not_regular_file``;
- **a size cap**: the size is checked before reading and the read stops one byte past the cap
  (``file_too_large``), so a file that grows while it is read is refused too;
- **caps on what JSON parses to**: ``read_json`` measures the document's bytes before parsing them
  (``json_shape``: its strings blanked by one regular expression, its brackets and separators counted by C
  iterators, no node built) and refuses one nested deeper than ``max_depth`` (``json_too_deep``) or holding
  more containers or values than ``max_containers``/``max_values`` (``json_too_large``), so that what
  ``json.loads`` then builds is bounded by what a file of that kind can hold, not by its bytes alone (16 MB of
  ``[{},{},...]`` became 735 MB of dicts); and anything that is not UTF-8 JSON (``json_invalid``).

Each refusal is an ``UntrustedFileError``: a coded error (``coded_error.py``) naming the file. Callers
that have their own catalogue (the Ladder's ``ladder_state_corrupt``, the CTV runs' ``checkpoint_invalid``)
wrap it, keeping its message. Python 3.8+, standard library only (the grading runtime imports it).
"""

from __future__ import annotations

import json
import os
import re
import stat
from itertools import accumulate
from typing import IO, Any, Optional, Union

from .coded_error import CodedError

__all__ = ["UntrustedFileError", "resolve", "open_regular", "read_bytes", "read_json", "json_depth", "json_shape", "check_json_shape"]

PathLike = Union[str, "os.PathLike[str]"]

CODES = {
    "not_regular_file": "The path is a FIFO, socket, device or folder, not a regular file.",
    "file_too_large": "The file is larger than the cap for what it should be.",
    "file_unreadable": "The file cannot be opened or read (permissions, a link loop, an I/O error).",
    "json_invalid": "The file is not UTF-8 JSON.",
    "json_too_deep": "The JSON document is nested deeper than the cap.",
    "json_too_large": "The JSON document holds more containers or values than the cap for what it should be.",
}

_DEFAULT_MAX_DEPTH = 64


class UntrustedFileError(CodedError):
    """A file refused by the opening rule; ``file`` names it. Exit 1: an input was rejected (callers for
    whom the file is host-side wrap it in their own error)."""

    exit_code = 1
    codes = CODES


def resolve(path: PathLike) -> str:
    """The file ``path`` leads to, its symlinks followed once: what to lock, read and replace."""
    return os.path.realpath(os.fspath(path))


def open_regular(path: PathLike, *, max_bytes: int, what: str = "file", follow_links: bool = True) -> IO[bytes]:
    """``path`` opened for reading in binary, when it is a regular file of at most ``max_bytes`` bytes.

    ``FileNotFoundError`` passes through (a missing file is the caller's business: often "start afresh").
    ``follow_links=False``: a symbolic link at ``path`` itself is refused (``file_unreadable``), for a file
    that must be the one written there (a report's own figure), not something a link leads to.
    """
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        try:  # a socket cannot be opened at all (ENXIO): say what it is
            mode = os.stat(name).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise _not_regular(name, what, mode) from None
        raise UntrustedFileError("file_unreadable", f"cannot open the {what}: {exc.strerror or exc}",
                                 file=name) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(name, what, info.st_mode)
        if info.st_size > max_bytes:
            raise UntrustedFileError("file_too_large", f"the {what} is {info.st_size:,} bytes, more than the "
                                     f"{max_bytes:,} bytes such a file can be; it was not read", file=name)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _not_regular(name: str, what: str, mode: int) -> UntrustedFileError:
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a folder" if stat.S_ISDIR(mode) else "not a regular file")
    return UntrustedFileError("not_regular_file", f"the {what} is {kind}, not a regular file; it was not read",
                              file=name)


def read_bytes(path: PathLike, *, max_bytes: int, what: str = "file", follow_links: bool = True) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (checked before and while reading)."""
    with open_regular(path, max_bytes=max_bytes, what=what, follow_links=follow_links) as fh:
        try:  # sized by what fstat saw (read(max_bytes + 1) would allocate the whole cap first), then on to
            # one byte past the cap for a file that grew
            data = fh.read(min(os.fstat(fh.fileno()).st_size, max_bytes) + 1)
            while len(data) <= max_bytes:
                more = fh.read(min(1 << 20, max_bytes + 1 - len(data)))
                if not more:
                    break
                data += more
        except OSError as exc:
            raise UntrustedFileError("file_unreadable", f"cannot read the {what}: {exc.strerror or exc}",
                                     file=os.fspath(path)) from None
    if len(data) > max_bytes:
        raise UntrustedFileError("file_too_large", f"the {what} grew past {max_bytes:,} bytes while it was "
                                 "read; it was not read", file=os.fspath(path))
    return data


def json_depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests lists and objects, counted up to ``limit + 1`` (iteratively: no recursion
    limit to meet)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


# A JSON string, escapes included (linear: the two alternatives never match the same text)
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")  # deleted: all but the brackets
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_shape(data: bytes) -> "tuple[int, int, int]":
    """(depth, containers, values) of a JSON text, measured on its bytes without parsing it: strings are
    blanked first (a bracket or comma inside one counts for nothing); ``values`` is an upper bound of the
    values and keys the text holds (its containers, commas and colons, plus one). Text that is not JSON gets
    numbers too; the parser refuses it afterwards."""
    bare = _STRING.sub(b"0", data)
    containers = bare.count(b"[") + bare.count(b"{")
    return _depth(bare), containers, containers + bare.count(b",") + bare.count(b":") + 1


def check_json_shape(data: bytes, *, max_depth: int, max_containers: Optional[int] = None,
                     max_values: Optional[int] = None, what: str = "JSON file", file: Optional[str] = None) -> None:
    """Refuse JSON text (``json_too_large``, ``json_too_deep``) whose shape passes a cap, before it is parsed.
    The counts first (C speed): a flood of containers is refused before its depth is walked. Counted on the raw
    bytes first (an upper bound: a string can only add brackets and separators); only a file that passes a cap
    that way has its strings blanked for the exact count (a regular expression: about 20x its size in pieces)."""
    if _within(data, max_depth, max_containers, max_values):
        return
    bare = _STRING.sub(b"0", data)
    containers = bare.count(b"[") + bare.count(b"{")
    if max_containers is not None and containers > max_containers:
        raise UntrustedFileError("json_too_large", f"the {what} holds {containers:,} lists and objects, more than "
                                 f"the {max_containers:,} such a file can hold; it was not parsed", file=file)
    values = containers + bare.count(b",") + bare.count(b":") + 1
    if max_values is not None and values > max_values:
        raise UntrustedFileError("json_too_large", f"the {what} holds about {values:,} values, more than the "
                                 f"{max_values:,} such a file can hold; it was not parsed", file=file)
    depth = _depth(bare)
    if depth > max_depth:
        raise UntrustedFileError("json_too_deep", f"the {what} is nested {depth:,} levels deep; at most "
                                 f"{max_depth} are accepted", file=file)


def _within(data: bytes, max_depth: int, max_containers: Optional[int], max_values: Optional[int]) -> bool:
    containers = data.count(b"[") + data.count(b"{")
    if max_containers is not None and containers > max_containers:
        return False
    if max_values is not None and containers + data.count(b",") + data.count(b":") + 1 > max_values:
        return False
    return _depth(data) <= max_depth


def _depth(bare: bytes) -> int:
    return max(accumulate(map(_STEP.__getitem__, bare.translate(None, _BRACKETS))), default=0)


def read_json(path: PathLike, *, max_bytes: int, max_depth: int = _DEFAULT_MAX_DEPTH, what: str = "JSON file",
              parse_constant: Optional[Any] = None, max_containers: Optional[int] = None,
              max_values: Optional[int] = None) -> Any:
    """A regular file's JSON document: at most ``max_bytes`` bytes, UTF-8, nested at most ``max_depth``
    deep, with at most ``max_containers`` lists and objects and ``max_values`` values and keys (None: as many
    as the bytes allow). The caps are checked on the bytes before anything is parsed (``json_shape``).
    ``parse_constant``: as ``json.loads`` (to refuse ``NaN``/``Infinity``)."""
    data = read_bytes(path, max_bytes=max_bytes, what=what)
    name = os.fspath(path)
    check_json_shape(data, max_depth=max_depth, max_containers=max_containers, max_values=max_values, what=what,
                     file=name)
    try:
        text = data.decode("utf-8")
        kwargs = {} if parse_constant is None else {"parse_constant": parse_constant}
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise UntrustedFileError("json_too_deep", f"the {what} is nested more deeply than Python can read; "
                                 f"at most {max_depth} levels are accepted", file=name) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise UntrustedFileError("json_invalid", f"the {what} is not UTF-8 JSON ({exc})", file=name) from None
    return value
