"""The ids the kit derives for publication: keyed, so that they reveal nothing (DESIGN.md, trust rules).

An id that participants see (the ``image_id`` of ``agrieval data splits``, which becomes the id column of a
solution and of every sample submission made from it) is::

    img-<first 16 hex digits of HMAC-SHA256(key, path)>

``path`` is the image's ``team/<class folder>/<file>``; ``key`` is 32 random bytes (``secrets.token_bytes``)
kept in a key file beside the organizer's files. Without the key nobody can compute an id from a path, so
hashing guesses (class folders and their spellings x camera file names x extensions: the attack that read 70
of 71 held-out labels off the unkeyed ``sha256(path)`` ids of the demo pool) finds nothing. A plain hash of a
guessable string is not a secret; only the key is.

The id carries neither the class nor the team: the researcher's files hold the team in their own column (CTV
groups by it), and a participant's file needs an opaque id only (a team prefix would tell each test image's
scoring group and, where teams photographed the classes in different proportions, a prior on its label). The
``img-`` prefix keeps spreadsheets and CSV readers from taking an id of digits for a number.

The key file is created once (written whole under a temporary name with owner-only permissions, then linked to
its name, so that two runs never make two keys), reused by every later run (same pool, same key: same ids),
and refused when group or others may read it. It must stay private: whoever has it can test guesses again.
It is never written into anything the kit publishes.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import stat
from hashlib import sha256
from pathlib import Path

from agrieval.data_tools.errors import DataError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

__all__ = ["ID_PREFIX", "ID_HEX_DIGITS", "KEY_BYTES", "default_key_path", "keyed_id", "load_or_create_key",
           "read_key", "write_new_key"]

ID_PREFIX = "img-"
ID_HEX_DIGITS = 16  # 64 bits: collisions are checked (name_collision), never merged silently
KEY_BYTES = 32
KEY_SUFFIX = ".id-key"
_HEADER = "# agrieval id key: keep private (whoever holds it can match guessed paths to ids); never publish it\n"
_KEY_LINE = re.compile(r"[0-9a-f]{%d}\n?" % (2 * KEY_BYTES))


def keyed_id(key: bytes, path: str) -> str:
    """``img-`` + the first 16 hex digits of HMAC-SHA256(key, path): the published id of ``path``."""
    if len(key) < KEY_BYTES:
        raise ValueError(f"an id key has at least {KEY_BYTES} bytes")
    return ID_PREFIX + hmac.new(key, path.encode("utf-8"), sha256).hexdigest()[:ID_HEX_DIGITS]


def default_key_path(beside: str | Path) -> Path:
    """``FILE.id-key`` next to ``FILE`` (the clean catalog of the pool): one key per pool."""
    beside = Path(beside)
    return beside.with_name(beside.name + KEY_SUFFIX)


def read_key(path: str | Path) -> bytes:
    """The key in ``path``; refused (``id_key_invalid``) when it is not a regular file in the key format, and
    (``id_key_exposed``) when group or others may read or write it."""
    path = Path(path)
    try:  # the one opening rule: the mode is read from what was opened (fstat), not from a name checked before
        with open_regular(path, max_bytes=4096, what="id key") as fh:
            info = os.fstat(fh.fileno())
            raw = fh.read(4097)
    except UntrustedFileError as exc:
        raise DataError("id_key_invalid", f"{path}: {exc.message}") from None
    except OSError as exc:
        raise DataError("id_key_invalid", f"{path}: cannot read the id key ({exc.strerror})") from None
    if os.name == "posix" and info.st_mode & 0o077:
        raise DataError("id_key_exposed", f"{path}: the id key may be read by others (mode "
                        f"{stat.S_IMODE(info.st_mode):04o}); make it private (chmod 600 {path}); if it was "
                        "ever shared, its ids are guessable: make a new key and new splits")
    try:
        lines = [ln for ln in raw.decode("ascii").splitlines(keepends=True) if not ln.startswith("#")]
    except UnicodeDecodeError:
        lines = []
    if len(lines) != 1 or not _KEY_LINE.fullmatch(lines[0]):
        raise DataError("id_key_invalid", f"{path}: not an agrieval id key (one line of {2 * KEY_BYTES} "
                        "lower-case hex digits, written by `agrieval data splits`)")
    return bytes.fromhex(lines[0].strip())


def write_new_key(path: str | Path) -> bytes:
    """Make a key and write it to ``path`` (mode 0600), which must not exist; return the key.

    Written whole under a temporary name, then hard-linked to ``path``: the link fails if ``path`` appeared
    meanwhile, so a key is never replaced (its ids would all change)."""
    path = Path(path)
    key = secrets.token_bytes(KEY_BYTES)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii", newline="\n") as fh:
            fh.write(_HEADER + key.hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return key


def load_or_create_key(path: str | Path) -> bytes:
    """The key in ``path``, created there on first use (reruns reuse it: the same pool gets the same ids)."""
    path = Path(path)
    if not os.path.lexists(path):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return write_new_key(path)
        except FileExistsError:  # another run made it first: use that one
            pass
        except OSError as exc:
            raise DataError("id_key_invalid", f"{path}: cannot write the id key ({exc.strerror}); choose "
                            "another place with --id-key") from None
    return read_key(path)
