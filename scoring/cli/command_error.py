"""``CommandError``: a failure of the command line (exit 2 unless told otherwise) or of the host."""

from __future__ import annotations

from agrieval.scoring.cli.exit_codes import EXIT_USAGE
from agrieval.scoring.runtime.coded_error import CodedError


class CommandError(CodedError):
    """A failure of the command line (exit 2 unless told otherwise) or of the host, with a stable code."""

    exit_code = EXIT_USAGE
