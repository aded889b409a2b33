"""The base of every error that ends a command with a stable code.

A coded error carries ``code`` (stable: scripts and tests match on it), ``message`` (for whoever ran the
command: it says what to do), ``exit_code`` (the contract of ``docs/scoring.md``: 1 an input was rejected,
2 the command line is wrong, 3 host-side) and, where one file is at fault, ``file``. ``render()`` is the
contract's one line, ``FILE: error [code] message``; ``as_dict()`` the same for a JSON answer. A subclass
says only what differs: its catalogue of codes, its default exit code, a position.

Python 3.8-compatible (the grading runtime imports it); it imports nothing else of the kit.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Optional, Union


class CodedError(Exception):
    """An error with a stable ``code``, a ``message``, the contract's ``exit_code`` and, optionally, ``file``."""

    exit_code = 3  # host-side unless a subclass (or the caller) says otherwise
    codes: Optional[Mapping[str, str]] = None  # a subclass's catalogue: any other code is a bug of the caller

    def __init__(self, code: str, message: str, exit_code: Optional[int] = None,
                 file: Optional[Union[str, os.PathLike]] = None) -> None:
        if self.codes is not None and code not in self.codes:
            raise ValueError(f"unknown {type(self).__name__} code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.file = None if file is None else os.fspath(file)
        if exit_code is not None:
            self.exit_code = exit_code

    def where(self) -> str:
        """What the line starts with: the file at fault, or nothing."""
        return self.file or ""

    def render(self) -> str:
        where = self.where()
        text = f"error [{self.code}] {self.message}"
        return f"{where}: {text}" if where else text

    def as_dict(self) -> Dict[str, Any]:
        out = {"code": self.code, "message": self.message}  # type: Dict[str, Any]
        if self.file is not None:
            out["file"] = self.file
        return out
