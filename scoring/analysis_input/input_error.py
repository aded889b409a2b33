"""The error raised when an analysis input (a results table, a run folder, a
ranking file) cannot be used: a stable code and a message naming the file,
line and column.

The analysis commands exit with 1 on an ``InputError`` (the input was
rejected), 2 on a usage error and 3 on an internal problem.
"""

from __future__ import annotations

from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.runtime.problems import locate

# code -> what it means; tests check that every raised code is listed here.
CODES: dict[str, str] = {
    "file_not_found": "An input file or folder does not exist.",
    "unreadable_csv": "The file is not a UTF-8 CSV table that can be tokenised.",
    "missing_column": "A required column is absent from the header.",
    "empty_table": "The table has a header but no data rows.",
    "bad_number": "A numeric cell or JSON value is empty, not a number, NaN or infinite.",
    "out_of_range": "An accuracy lies outside its range (0-100 for percentages, 0-1 for fractions).",
    "looks_like_fractions": "Every accuracy is <= 1 in a table of percentages: the values look like fractions.",
    "bad_protocol": "The protocol is neither TOTO nor LOTO.",
    "empty_cell": "A key cell (team, arch, name...) is empty.",
    "duplicate_key": "The same key appears on two rows.",
    "keys_mismatch": "Two rankings do not rank the same set of keys.",
    "too_few_items": "Too few items to compute the statistic.",
    "no_rows": "A row filter (rank-agreement's --where) keeps no row of the table.",
    "bad_run": "A run folder or run file is inconsistent or incomplete.",
    "no_runs": "No run outputs were found under the folder.",
    "bad_json": "A JSON file cannot be parsed or lacks a required field.",
    "link_outside": "A file of a run folder is a link that leads outside that folder; a run tree is read within "
                    "itself.",
    "path_outside": "A file named in a table (the audit's submission log) is absolute or lies outside the table's "
                    "folder; files are named relative to it.",
    "bad_timestamp": "A timestamp cell is not an ISO 8601 date and time (2025-05-01T12:30:00, optionally with Z or "
                     "an offset), or mixes times with and without a time zone.",
    "unreadable_file": "An input is not a regular file (a device, FIFO or socket), or is larger than the command "
                       "reads.",
}


class InputError(CodedError):
    """An analysis input was rejected (exit code 1), at ``file:line:column`` where they are known."""

    codes = CODES
    exit_code = 1

    def __init__(self, code: str, message: str, *, file: str | None = None,
                 line: int | None = None, column: int | None = None):
        super().__init__(code, message, file=file)
        self.line = line
        self.column = column

    def where(self) -> str:
        return locate(self.file, self.line, self.column)

    def as_dict(self) -> dict:
        position = {"line": self.line, "column": self.column}
        return {**super().as_dict(), **{k: v for k, v in position.items() if v is not None}}
