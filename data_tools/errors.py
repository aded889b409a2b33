"""The one exception data_tools raises for bad input, with a stable code.

The CLI turns it into ``error [<code>] <message>`` on stderr and the exit code
of ``agrieval.scoring.cli._failures``: 2 for what the command line got wrong
(``USAGE_CODES``), 1 for an input that was read and rejected. A failed
*check* (leakage found, unknown class folders) is exit code 1 too and is not an
exception. A refused output path is ``agrieval.scoring.writing.policy.OutputRefused``
(codes ``output_exists``, ``output_is_input``, ``output_in_source``,
``output_collision``), rendered the same way, exit code 2. A table cell that
would name a place outside its folder (a ``team``, ``class``, ``phash`` or
``path`` that is absolute, has ``..``, a separator, a NUL or a drive prefix) is
``agrieval.scoring.writing.table_paths.UnsafePath`` (code ``unsafe_path``), exit code 1.
"""

from __future__ import annotations

from agrieval.scoring.runtime.coded_error import CodedError

# code -> what it means / what to do.
CODES: dict[str, str] = {
    "not_a_directory": "The pool root does not exist or is not a folder.",
    "empty_pool": "No image files were found under the root at <team>/<class>/[<sub>/]<image>.",
    "bad_table": "A manifest (CSV/Parquet) cannot be read or lacks required columns.",
    "mixed_roots": "A catalog holds files from several roots; splits need one root.",
    "unknown_class": "Rows whose class folder is not in the normalisation map; extend it with --class-map.",
    "bad_class_map": "The class-map TOML is malformed.",
    "name_collision": "Two sources would be written to the same output file.",
    "output_exists": "An output file already exists and would be overwritten.",
    "bad_option": "An option value is out of range or inconsistent with the input.",
    "source_changed": "A source file changed since it was catalogued (size or mtime).",
    "split_too_small": "A fold's pool is too small for the public script's stratified split (2+ images per class).",
    "bad_listing": "A --listing file names an image that is not in the pool, names one twice, or misses one.",
    "id_key_invalid": "The id key file (--id-key) cannot be read or written, or is not an agrieval id key.",
    "id_key_exposed": "The id key file may be read by group or others: chmod 600 it (a shared key makes ids guessable).",
}


# Codes that say the command line is wrong (exit 2); every other code is a rejected input (exit 1).
USAGE_CODES = frozenset({"not_a_directory", "name_collision", "output_exists", "bad_option"})


class DataError(CodedError):
    """Bad input to a data_tools stage: ``code`` is a key of ``CODES``; exit 2 for a usage code, else 1."""

    codes = CODES

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message, 2 if code in USAGE_CODES else 1)
