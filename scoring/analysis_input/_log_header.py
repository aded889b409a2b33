"""The own server's old CSV submission log, recognised by its header: a folder listing of submissions never
scores it (``agrieval leaderboard``), and the server's log reader (``agrieval server import``) checks the same
header. Below both, so that neither imports the other.
"""

from __future__ import annotations

from pathlib import Path

from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

__all__ = ["COLUMNS", "HEADER", "MAX_LOG_BYTES", "is_submission_log"]

COLUMNS = ("team", "submitted_at", "file", "status", "submission", "codes", "public", "private", "shown",
           "selected")
HEADER = ",".join(COLUMNS)
MAX_LOG_BYTES = 1 << 30  # ~5 million rows: more than any competition's log


def is_submission_log(path: Path) -> bool:
    """Whether ``path`` starts with the log's header (so that a folder listing never scores it). Opened by the
    one opening rule: a FIFO, a device or a file larger than any log is not one, and is not waited on."""
    try:
        with open_regular(path, max_bytes=MAX_LOG_BYTES, what="submission log") as fh:
            head = fh.read(len(HEADER) + 8)
    except (UntrustedFileError, OSError):
        return False
    return head.decode("utf-8-sig", "replace").splitlines()[:1] == [HEADER]
