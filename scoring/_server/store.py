"""The own server's store: one SQLite database per competition, every reader and writer goes through here.

``create_store`` makes it, ``open_store`` opens it; both take the path as the organizer typed it and
resolve it **once** (``os.path.realpath``): the file a link leads to is what is opened, locked and
written, and the link stays a link (two names of one store keep one count). The target must be a regular
file (checked with ``os.stat`` before SQLite opens anything: a FIFO, a device or a folder is refused at
once, ``store_not_regular``). A new store is created with mode 0600 (``O_CREAT | O_EXCL``); SQLite
gives its ``-wal`` and ``-shm`` files the database's mode and writes in place, so the mode an organizer
sets stays. Uploads' bytes are kept beside it, in ``<store>.uploads/<sha256>`` (folder 0700, files 0600).

The schema (``schema.py``) is versioned with ``PRAGMA user_version``: opening a store runs the
migrations it lacks, in one transaction; a store made by a newer agrieval is refused (``store_newer``).
Nothing is written before the file is known to be ours (``_check_file``: SQLite's header bytes, the schema
version read through a read-only connection); a foreign, corrupt or newer file is left byte for byte.
``Store.immediate()`` is the one way to write: ``BEGIN IMMEDIATE`` (the write lock taken at once, so
two writers never both read then write), commit on success, rollback on any error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
from pathlib import Path
from typing import Iterator, Optional, Union

from agrieval.scoring._server.schema import MIGRATIONS
from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular, read_bytes

__all__ = ["Store", "StoreError", "create_store", "open_store", "resolve_store", "read_kept", "CODES"]

CODES = {
    "store_not_regular": "The store's path is a FIFO, socket, device or folder, not a regular file; nothing was opened.",
    "store_missing": "There is no store at that path: create it with `agrieval server init`.",
    "store_exists": "`agrieval server init` was given a path that already exists; a store is never overwritten.",
    "store_corrupt": "The file is not an agrieval store (not SQLite, or without the competition's settings).",
    "store_newer": "The store was made by a newer agrieval (a later schema version); upgrade agrieval.",
    "store_unwritable": "The store, its folder or its uploads folder cannot be written.",
    "store_foreign": "The solution or definition no longer matches the fingerprints the store was made with.",
    "store_upload_lost": ("An upload's kept bytes (`<store>.uploads/<sha256>`) are missing or no longer match their "
                          "sha256; restore them from a backup (nothing was rescored or audited)."),
}
# how long a writer waits for another's short transaction before giving up (seconds)
BUSY_SECONDS = 60.0


class StoreError(CodedError):
    """The store cannot be used: a host-side problem (exit 3) unless the caller says otherwise."""

    exit_code = 3
    codes = CODES


def resolve_store(path: Union[str, Path], *, must_exist: bool) -> str:
    """The store's real path: links followed once; refused unless a regular file (or, for ``init``, absent)."""
    real = os.path.realpath(os.fspath(path))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        if must_exist:
            raise StoreError("store_missing", f"no store at {str(path)!r}; create it with `agrieval server init`",
                             exit_code=2) from None
        return real
    except OSError as exc:
        raise StoreError("store_unwritable", f"cannot read the store {str(path)!r}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise StoreError("store_not_regular", f"the store {str(path)!r} is not a regular file (a FIFO, device or "
                                              "folder); it was not opened", exit_code=2)
    if not must_exist:
        raise StoreError("store_exists", f"{str(path)!r} already exists; a store is never overwritten", exit_code=2)
    return real


class Store:
    """An open store: ``conn`` (autocommit; write through ``immediate``), ``path`` (resolved)."""

    def __init__(self, path: str, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    @property
    def uploads_dir(self) -> str:
        return self.path + ".uploads"

    @contextlib.contextmanager
    def immediate(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: ``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception)."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError("store_unwritable", f"cannot lock the store {self.path!r}: {exc}") from None
        try:
            yield self.conn
        except sqlite3.OperationalError as exc:
            self._rollback()
            if not _is_full(exc):
                raise
            raise StoreError("store_unwritable", f"cannot write to the store {self.path!r} ({exc}): free space on "
                                                 "its disk; nothing of this step was written") from None
        except BaseException:
            self._rollback()
            raise
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            hint = ": free space on its disk" if _is_full(exc) else ""
            raise StoreError("store_unwritable", f"cannot commit to the store {self.path!r} ({exc}){hint}; nothing "
                                                 "of this step was written") from None

    def _rollback(self) -> None:
        # SQLite has already rolled back a transaction that failed for a full disk or an I/O error: a ROLLBACK then
        # fails too, and would hide the first error
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def keep_upload(self, data: bytes) -> str:
        """``data`` kept under its sha256 in the uploads folder (0700 / 0600; written once); its hash."""
        digest = hashlib.sha256(data).hexdigest()
        folder = self.uploads_dir
        target = os.path.join(folder, digest)
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, 0o700)
            if os.path.exists(target):
                return digest
            temporary = f"{target}.{os.getpid()}.tmp"
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temporary, target)
        except OSError as exc:
            raise StoreError("store_unwritable", f"cannot keep the upload in {folder!r}: {exc}") from None
        return digest

    def upload_path(self, digest: str) -> str:
        return os.path.join(self.uploads_dir, digest)

    def read_kept(self, digest: str, max_bytes: int, upload: Optional[int] = None) -> bytes:
        """The kept bytes of an upload, checked against their sha256 (``store_upload_lost`` otherwise): whatever
        lies in the uploads folder is never scored as the upload it claims to be."""
        return read_kept(self.upload_path(digest), digest, max_bytes, upload)

    def close(self) -> None:
        self.conn.close()


def _is_full(exc: sqlite3.Error) -> bool:
    """A full disk or an I/O error (SQLITE_FULL, SQLITE_IOERR): the host's problem, not the store's format."""
    text = str(exc)
    return "disk is full" in text or "disk I/O error" in text


def read_kept(path: str, digest: str, max_bytes: int, upload: Optional[int] = None) -> bytes:
    """``Store.read_kept`` for a worker that has the path only (``rescore``'s process pool)."""
    which = "an upload" if upload is None else f"upload {upload}"
    try:  # one byte past the cap: a kept file that grew is a changed one, not a read error
        data = read_bytes(path, max_bytes=max_bytes + 1, what="kept upload")
    except FileNotFoundError:
        raise StoreError("store_upload_lost", f"the kept bytes of {which} are missing ({path!r}); restore them "
                                              "from a backup") from None
    except (OSError, UntrustedFileError) as exc:
        raise StoreError("store_upload_lost", f"the kept bytes of {which} cannot be read ({path!r}: {exc})") \
            from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise StoreError("store_upload_lost", f"the kept bytes of {which} ({path!r}) no longer match their "
                                              "sha256: the file was changed after the upload; restore it from a "
                                              "backup")
    return data


_HEADER = b"SQLite format 3\x00"


def _check_file(real: str, shown: str, *, new: bool) -> None:
    """Refuse, before anything writes to it, a file that is not this agrieval's store: its first bytes must be
    SQLite's header (or none at all, for a store ``create_store`` has just made), and its schema version, read
    through a read-only connection, one this agrieval knows (0 only for a new store). Switching to WAL, the
    first write, comes after this: a foreign or corrupt file is left byte for byte as it was."""
    try:  # (the opening rule: a file swapped for a FIFO since resolve_store is refused, not waited on)
        with open_regular(real, max_bytes=1 << 62, what="store") as fh:
            head = fh.read(len(_HEADER))
    except UntrustedFileError as exc:
        raise StoreError("store_not_regular" if exc.code == "not_regular_file" else "store_unwritable",
                         f"cannot read the store {shown!r}: {exc}") from None
    except OSError as exc:
        raise StoreError("store_unwritable", f"cannot read the store {shown!r}: {exc.strerror or exc}") from None
    if not head and new:
        return
    if head != _HEADER:
        raise StoreError("store_corrupt", f"{shown!r} is not an agrieval store (not an SQLite file); it was left "
                                          "as it is")
    try:
        probe = sqlite3.connect(f"{Path(real).as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            version = probe.execute("PRAGMA user_version").fetchone()[0]
        finally:
            probe.close()
    except sqlite3.OperationalError as exc:
        if "unable to open" not in str(exc):
            raise StoreError("store_corrupt", f"{shown!r} is not an agrieval store: {exc}; it was left as it is") \
                from None
        # (a WAL store whose folder cannot be written: even a reader needs its -shm file there)
        raise StoreError("store_unwritable", f"cannot open the store {shown!r} ({exc}): SQLite keeps its -wal and "
                                             "-shm files beside it, so the store and its folder must be writable") \
            from None
    except sqlite3.DatabaseError as exc:  # (a header on garbage)
        raise StoreError("store_corrupt", f"{shown!r} is not an agrieval store: {exc}; it was left as it is") \
            from None
    if version == 0 and not new:  # (an SQLite file of someone else's: never migrated into ours)
        raise StoreError("store_corrupt", f"{shown!r} is an SQLite file but not an agrieval store; it was left as "
                                          "it is")
    if version > len(MIGRATIONS):
        raise StoreError("store_newer", f"the store {shown!r} has schema version {version}; this agrieval knows "
                                        f"versions up to {len(MIGRATIONS)}")


def _connect(real: str) -> sqlite3.Connection:
    conn = None
    try:
        conn = sqlite3.connect(real, timeout=BUSY_SECONDS, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        # WAL with NORMAL: a commit survives a crash of the process; a power cut may lose the last commits, never
        # half of one (the row, its score and the Ladder go together or not at all)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
    except sqlite3.OperationalError as exc:  # (not a format problem: the file or its folder)
        if conn is not None:
            conn.close()
        if "unable to open" in str(exc) or "readonly" in str(exc):
            raise StoreError("store_unwritable", f"cannot open the store {real!r} ({exc}): SQLite keeps its -wal and "
                                                 "-shm files beside it, so the store and its folder must be "
                                                 "writable") from None
        raise StoreError("store_corrupt", f"{real!r} is not an agrieval store: {exc}") from None
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise StoreError("store_corrupt", f"{real!r} is not an agrieval store: {exc}") from None
    return conn


def _migrate(store: Store) -> None:
    try:
        version = store.conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise StoreError("store_corrupt", f"{store.path!r} is not an agrieval store: {exc}") from None
    if version > len(MIGRATIONS):
        raise StoreError("store_newer", f"the store {store.path!r} has schema version {version}; this agrieval "
                                        f"knows versions up to {len(MIGRATIONS)}")
    if version == len(MIGRATIONS):
        return
    try:
        with store.immediate() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # (another process may have migrated)
            for step in MIGRATIONS[version:]:
                for statement in step:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    except sqlite3.IntegrityError as exc:  # (rolled back: the store is left at its version)
        raise StoreError("store_corrupt", f"the store {store.path!r} holds rows this agrieval refuses ({exc}); it "
                                          "was not migrated") from None


def create_store(path: Union[str, Path]) -> Store:
    """A new, empty store at ``path`` (mode 0600), its schema made; ``init`` writes the settings."""
    real = resolve_store(path, must_exist=False)
    try:
        os.close(os.open(real, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600))
    except FileExistsError:
        raise StoreError("store_exists", f"{str(path)!r} already exists; a store is never overwritten",
                         exit_code=2) from None
    except OSError as exc:
        raise StoreError("store_unwritable", f"cannot create the store {str(path)!r}: {exc.strerror or exc}") \
            from None
    _check_file(real, str(path), new=True)
    store = Store(real, _connect(real))
    _migrate(store)
    return store


def open_store(path: Union[str, Path], *, migrate: bool = True) -> Store:
    """The store at ``path`` (resolved once, a regular file), migrated to this agrieval's schema."""
    real = resolve_store(path, must_exist=True)
    _check_file(real, str(path), new=False)
    store = Store(real, _connect(real))
    if migrate:
        _migrate(store)
    if store.conn.execute("SELECT count(*) FROM competition").fetchone()[0] != 1:
        raise StoreError("store_corrupt", f"{str(path)!r} holds no competition's settings (an interrupted init?)")
    return store


def one(conn: sqlite3.Connection, sql: str, args: tuple = ()) -> Optional[tuple]:
    return conn.execute(sql, args).fetchone()
