"""Where a command may write: one output policy for every command that writes.

Every output path goes through ``OutputPlan.claim`` (a file) or
``OutputPlan.claim_dir`` (a folder the command fills) before anything is
written, and is refused with a stable code when:

``output_is_input``
    it is a file the command reads (also through a symbolic or hard link);
``output_in_source``
    it is, or is inside, a source root: a catalogued pool, the photos a
    command acts on, the folder of submissions a leaderboard reads;
``output_collision``
    another output of the same run already claimed it. Names are compared
    NFC-normalised and case-folded, the way a case-insensitive or normalising
    volume (macOS, Windows, many NAS shares) would see them;
``output_exists``
    a file (or a link) is already there and the command was not given
    ``--overwrite``.

The first three hold with ``--overwrite`` too: no flag makes a command write
over what it reads or over source data. Stdlib only: ``scoring``,
``data_tools`` and ``baselines`` all use it.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from agrieval.scoring.runtime.coded_error import CodedError

# code -> what it means / what to do.
CODES: dict[str, str] = {
    "output_exists": "An output file already exists; pass --overwrite to replace it, or choose another path.",
    "output_is_input": "An output path is a file the command reads; choose another path.",
    "output_in_source": "An output path is, or is inside, a source root (source data is never written); "
                        "choose a path outside it.",
    "output_collision": "Two outputs of one run would land on one file (names compared case-folded and "
                        "NFC-normalised).",
}
_OVERWRITE_FLAG = "--overwrite"


class OutputRefused(CodedError):
    """An output path (``path``) was refused before anything was written; ``code`` is a key of ``CODES``."""

    codes = CODES
    exit_code = 2  # the command line named a path the policy refuses: a usage error

    def __init__(self, code: str, message: str, *, path: str | os.PathLike | None = None) -> None:
        super().__init__(code, message, file=path)
        self.path = self.file


def folded(path: str | os.PathLike) -> str:
    """The name as a case-insensitive, normalising volume compares it: NFC, case-folded, NFC again."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", os.fspath(path)).casefold())


def _absolute(path: str | os.PathLike) -> Path:
    # resolve() follows links: a folder that is a link into the pool is in the pool.
    return Path(os.path.abspath(os.fspath(path))).resolve()


def _absolute_file(path: str | os.PathLike) -> Path:
    # The folder resolved, the name itself not: an atomic write replaces a link, it never writes through it.
    raw = Path(os.path.abspath(os.fspath(path)))
    return raw.parent.resolve() / raw.name


def _inside(path: Path, root: Path) -> bool:
    p, r = folded(path), folded(root)
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


def _same_file(a: Path, b: Path) -> bool:
    if folded(a) == folded(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class OutputPlan:
    """The outputs of one command run, checked against the policy as they are claimed.

    ``sources``: folders that hold source data (nothing may be written in them);
    ``inputs``: files the command reads; ``overwrite``: the ``--overwrite`` flag.
    """

    def __init__(self, *, overwrite: bool = False, sources=(), inputs=()) -> None:
        self.overwrite = overwrite
        self.sources = sorted({_absolute(s) for s in sources}, key=str)
        self.inputs = sorted({_absolute(i) for i in inputs}, key=str)
        self._claimed: dict[str, Path] = {}

    def add_sources(self, *roots) -> None:
        self.sources = sorted(set(self.sources) | {_absolute(s) for s in roots}, key=str)

    def add_inputs(self, *files) -> None:
        self.inputs = sorted(set(self.inputs) | {_absolute(f) for f in files}, key=str)

    def _check_place(self, path: Path, shown: str, what: str) -> None:
        for src in self.inputs:
            if _same_file(path, src):
                raise OutputRefused("output_is_input", f"{what} {shown} is a file this command reads "
                                    f"({src}); write it somewhere else", path=shown)
        for root in self.sources:
            if _inside(path, root):
                raise OutputRefused("output_in_source", f"{what} {shown} is inside the source folder {root}; "
                                    "outputs are never written among source data, choose a folder outside it",
                                    path=shown)

    def claim_dir(self, folder: str | os.PathLike, *, what: str = "output folder") -> Path:
        """Check a folder the command will write into; return it absolute (links resolved)."""
        path = _absolute(folder)
        self._check_place(path, os.fspath(folder), what)
        if path.exists() and not path.is_dir():
            raise OutputRefused("output_exists", f"{what} {folder} exists and is not a folder", path=folder)
        return path

    def claim(self, file: str | os.PathLike, *, what: str = "output", replaceable: bool = True,
              may_exist: bool = False, hint: str | None = None) -> Path:
        """Check one output file; return it absolute (links resolved).

        ``replaceable=False`` refuses an existing file even with ``--overwrite``
        (a destination of moved source files, which would be lost);
        ``may_exist=True`` leaves an existing file to the caller (``--resume``
        checks it is its own earlier output); ``hint`` replaces the advice of an
        ``output_exists`` message.
        """
        shown = os.fspath(file)
        path = _absolute_file(file)
        self._check_place(path, shown, what)
        key = folded(path)
        other = self._claimed.get(key)
        if other is not None:
            same = "the same file" if str(other) == str(path) else f"{other} (names equal up to case/normalisation)"
            raise OutputRefused("output_collision", f"{what} {shown} and {same} are both planned by this run; "
                                "the second would replace the first", path=shown)
        raw = Path(os.path.abspath(shown))
        if raw.is_dir():
            raise OutputRefused("output_exists", f"{what} {shown} is an existing folder", path=shown)
        if (raw.exists() or raw.is_symlink()) and not may_exist:
            if not (self.overwrite and replaceable):
                if not replaceable:
                    hint = "it is never replaced; move it away or choose another folder"
                hint = hint or f"pass {_OVERWRITE_FLAG} to replace it, or choose another path"
                raise OutputRefused("output_exists", f"{what} {shown} already exists; {hint}", path=shown)
        self._claimed[key] = path
        return path

    def claim_all(self, files, **kw) -> list[Path]:
        return [self.claim(f, **kw) for f in files]
