"""docs/errors.md: every stable code, from the catalogues that define them (a test keeps the file current).

The grading runtime's codes (``agrieval.scoring.runtime.problems.CODES``) come first, as the runtime itself writes
them (it must stay free of the rest of ``scoring``); then the analysis commands' input codes
(``agrieval.scoring.ctv.input_error.CODES``), the output policy's (``agrieval.scoring.writing.policy.CODES``) and the
command line's own (``COMMAND_CODES``).
"""

from __future__ import annotations

COMMAND_CODES: dict[str, str] = {
    "library_warning": "Warning: a library (numpy, Pillow, matplotlib...) warned; shown as one line "
                       "`warning [library_warning] Category: message` (Python's own display with --debug).",
    "output_incomplete": "Exit code 3: a report or result could not be written whole (a full disk, a file-size "
                         "limit, a closed stdout, a reader that went away); a file is then not kept under its "
                         "final name.",
    # the own server (`grade --log`, `select`, `leaderboard --per-team`): scoring/server/submission_log.py
    "folder_not_found": "Exit code 3: the folder of `grade --ladder` or `--log` does not exist; create it (nothing "
                        "was graded).",
    "bad_team": "Exit code 2: a `--team` name is empty, longer than 100 characters or not one printable line.",
    "bad_selection": "Exit code 1: `agrieval select` names a submission the team has no scored one for, or more "
                     "than `--selection-limit`.",
    "no_submission_log": "`leaderboard --per-team` was given a file or folder without the submission log of "
                         "`agrieval grade --log` (its header).",
}


def _table(codes: dict[str, str]) -> list[str]:
    return ["| code | meaning |", "|---|---|"] + [f"| `{code}` | {text} |" for code, text in codes.items()]


def markdown() -> str:
    from agrieval.scoring.ctv.input_error import CODES as INPUT_CODES
    from agrieval.scoring.writing.policy import CODES as OUTPUT_CODES
    from agrieval.scoring.runtime.problems import errors_markdown

    lines = [errors_markdown().rstrip("\n"), "",
             "## Analysis inputs (`ctv`, `rank-agreement`)", "",
             "Exit code 1; from `scoring/ctv/input_error.py`.", ""] + _table(INPUT_CODES)
    lines += ["", "## Output paths", "", "Exit code 2; from `scoring/writing/policy.py`.", ""] + _table(OUTPUT_CODES)
    lines += ["", "## Command line", "", "From `scoring/cli/error_catalogue.py`.", ""] + _table(COMMAND_CODES)
    return "\n".join(lines) + "\n"
