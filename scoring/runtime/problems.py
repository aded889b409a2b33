"""Problems found in a submission or a solution, each with a stable code.

A ``Problem`` is what a reader, validator or scorer reports instead of raising:
the code is stable (organizers match on it), the message is meant for the
person who wrote the file and, for submissions, never contains a ground-truth
label, a count of true labels, or which ids are public or private.

``CODES`` is the catalogue; ``docs/errors.md`` is generated from it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from .coded_error import CodedError

_Severity = Literal["error", "warning"]

# code -> one-line description (what it means, what to do).
CODES: dict[str, str] = {
    # file level
    "file_too_large": "The file is larger than the competition's byte limit; checked before reading it.",
    "empty_file": "The file has no bytes.",
    "not_text": "The file is binary (an image, archive, spreadsheet...), not a CSV text file.",
    "wrong_encoding": "The file is not UTF-8 (e.g. UTF-16 or Latin-1); save it as UTF-8.",
    "utf8_bom": "Warning: the file starts with a UTF-8 byte-order mark; it is accepted and ignored.",
    "mixed_line_endings": "Warning: the file mixes line-ending styles; accepted.",
    "malformed_csv": "The CSV cannot be tokenised (e.g. an unterminated quote).",
    "space_after_quote": ("A space (or tab) follows a closing quote: remove it; the problem is named with line and "
                          "column and the rest of the file is still checked."),
    "header_only": "The file has a header but no data rows.",
    "wrong_delimiter": "The header is split by another delimiter than the competition's.",
    "missing_column": "A required column is absent (the message suggests the closest header found; when every "
                      "required column has one standing for it, the rows are checked under its name too).",
    "extra_column": "The header has a column the competition does not accept.",
    "duplicate_column": "The same column name appears twice in the header.",
    "blank_line": "Warning: an empty line inside the file; it is skipped.",
    "ragged_row": "A row has a different number of fields than the header.",
    "too_many_rows": "More data rows than the competition allows.",
    # ids
    "missing_id": "An id cell is empty.",
    "invalid_id": "An id has characters the competition's ids never have (spaces, formulas, look-alike letters...).",
    "id_too_long": "An id is longer than any id of this competition can be (its id pattern, or limits.max_id_chars); "
                   "checked before the ids are compared.",
    "duplicate_id": "The same id appears on several rows.",
    "repeated_header": "The header line appears again inside the file (two files pasted together?); remove it.",
    "missing_ids": "Ids of the test set are absent from the submission.",
    "unknown_ids": "The submission has ids that are not in the test set.",
    # labels
    "missing_value": "A prediction cell is empty or holds NaN/None/null.",
    "list_syntax": "A prediction cell is not a list in the competition's syntax.",
    "nested_list": "A prediction list contains another list.",
    "float_label": "A label is written as a float (e.g. 1395807.0 or 1e6); write integers.",
    "negative_label": "A label is negative.",
    "non_integer_label": "A label is not an integer.",
    "leading_zero_label": "An integer label has leading zeros.",
    "label_too_large": "A label is larger than any valid id (more than 18 digits).",
    "unknown_label": "A label is not in the competition's vocabulary.",
    "too_many_labels": "A row predicts more labels than the competition allows.",
    "duplicate_label": "Warning: a label repeats within one list; it counts once.",
    "too_many_problems": ("Only the first problems of this kind are listed; a message said word for word on many "
                          "lines is shown on its first three, then once with the count and the other lines."),
    "rows_invalid": ("Some rows break the format; said instead of the row-level problems where a grader is handed "
                     "one split at a time (Kaggle), so that no message reveals the split: run `python validate.py`."),
    # uploads (zip archives and upload folders, reading/uploads.py) and the grading guard (guard.py)
    "zip_invalid": "The upload looks like a zip archive but cannot be opened as one.",
    "zip_empty": "The upload (zip archive or folder) holds no file.",
    "zip_several_files": "The upload holds several files; it must hold exactly one CSV file.",
    "zip_unsafe_member": "A zip member or uploaded file has an unsafe name ('../', an absolute path) or is a symlink.",
    "zip_too_large": "A zip member expands past the competition's unzipped-size limit (a zip bomb?).",
    "time_limit_exceeded": "Grading took longer than the competition's time limit; the submission is refused.",
    "memory_limit_exceeded": "Grading needed more memory than the competition's limit; the submission is refused.",
    "submission_limit_reached": ("The team has used its submissions for today (UTC) or for the whole competition; the "
                                 "message says when the next one is accepted. Not graded, and it costs nothing."),
    "rejected_rate_reached": ("The team's uploads were rejected too often in the last hour (the own server's "
                              "--rejected-per-hour); the message says when the next one is accepted. Not graded."),
    "competition_closed": "The upload came after the competition's submission deadline (UTC). Not graded.",
    "competition_not_started": "The upload came before the competition's start (UTC). Not graded.",
    "team_voided": "The organizer disqualified the team (`agrieval server void`): no upload of it is graded.",
    "grading_interrupted": ("Host-side: the own server's grader of this upload stopped before its row was committed "
                            "(a crash); the next upload resolved it. It costs the team nothing."),
    # host side (solution / definition); never shown to participants as such
    "solution_invalid": "The solution file is invalid (host-side problem).",
    "definition_invalid": "The competition definition is invalid (host-side problem).",
    "name_invalid": ("A name in the competition definition (its `name`, an EvalAI phase codename) is not a slug: 1 "
                     "to 64 ASCII letters, digits, '_', '.' or '-', starting with a letter or a digit; the title "
                     "holds any text (host-side problem)."),
    "ids_reveal_labels": ("Host-side warning: the solution's ids contain their own class label (e.g. "
                          "team_a/caroubier/img.jpg): a submission can read the truth from the ids."),
    # the Ladder (ladder.py) and the audit; host side except the warning
    "ladder_not_released": ("Warning: the submission did not beat the team's released one by one standard error on "
                            "the public split; the public scores shown are the released submission's."),
    "ladder_state_corrupt": "Host-side: a Ladder state file cannot be read as one; it is left as it is.",
    "ladder_state_foreign": "Host-side: a Ladder state file was made for another competition or solution.",
    "ladder_state_unwritable": "Host-side: a Ladder state file or its lock cannot be written.",
    "ladder_lock_unavailable": "Host-side: this system has no file lock (fcntl) for the Ladder's state.",
    "ladder_metric_unsupported": "Host-side: the metric is not a mean over units, which the Ladder and the audit need.",
    "ladder_too_few_units": "Host-side: the public split has fewer than 2 units for the Ladder's test.",
    "log_corrupt": "Host-side: the own server's submission log cannot be read as one; it is left as it is.",
    "log_unwritable": "Host-side: the own server's submission log or its lock cannot be written.",
    "order_reveals_labels": ("Host-side warning: the solution's row order (or its ids, once sorted) follows its classes "
                             "within each group: a list in that order tells the labels by position."),
    "order_reveals_split": ("Host-side warning: the solution's row order (or its ids, once sorted) follows its split "
                            "within each group: a list in that order tells which ids are private by position."),
    "bad_option": "A command-line option has a value the command cannot use (e.g. --val-accuracy outside [0, 1] or NaN, an --own-team that is no team of the solution): a usage error, exit 2.",
    "internal_error": "The grader failed on the host side (crash, missing file); shown to participants as a generic message.",
}


def locate(file: str | None, line: int | None = None, column: int | None = None) -> str:
    """``file:line:column`` as compilers print it (``<input>`` when there is no file name)."""
    where = file or "<input>"
    if line is not None:
        where += f":{line}"
        if column is not None:
            where += f":{column}"
    return where


@dataclass(frozen=True)
class Problem:
    """One finding about a file: a stable ``code``, an actionable ``message``, its severity and, where it does not
    leak the split, the file, line and column."""

    code: str
    message: str
    severity: _Severity = "error"
    line: int | None = None
    column: int | None = None
    file: str | None = None

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown problem code {self.code!r}")

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def render(self) -> str:
        return f"{locate(self.file, self.line, self.column)}: {self.severity} [{self.code}] {self.message}"


_LINES_SHOWN = 10  # of a message said many times, the lines named in its summary
# distinct messages of one code that are told apart (and counted each); others are counted with the code only
_DISTINCT_TRACKED = 10_000


@dataclass
class ProblemLog:
    """Collects problems, keeping at most ``per_code`` of each code, and at most ``same_shown`` of one message.

    Files with an error on every one of 200,000 rows must not produce 200,000
    messages; the overflow is summarised by one ``too_many_problems`` entry per
    code. A message said word for word on many lines (thirteen rows of the same
    species names, an empty id on every row) is shown on its first few lines,
    then once more with the count and the lines of the others.
    """

    file: str | None = None
    per_code: int = 20
    same_shown: int = 3
    problems: list[Problem] = field(default_factory=list)
    _counts: dict[str, int] = field(default_factory=dict)
    _listable: dict[str, int] = field(default_factory=dict)
    # (code, severity, message) -> how many times that message was said beyond its first ``same_shown``, and
    # the first lines of those (as many as are shown: a file of blank lines must not keep one per line)
    _same: dict[tuple, list] = field(default_factory=dict)
    _said: dict[tuple, int] = field(default_factory=dict)
    _distinct: dict[str, int] = field(default_factory=dict)  # code -> distinct messages in ``_said``

    def add(self, code: str, message: str, *, severity: _Severity = "error",
            line: int | None = None, column: int | None = None) -> None:
        self._counts[code] = self._counts.get(code, 0) + 1
        key = (code, severity, message)
        said = self._said.get(key)
        if said is None:
            # a message not seen before: past _DISTINCT_TRACKED of one code (19 MB of '"a" ,' is 2.7 million
            # messages, each naming its character) it is only counted, never listed nor kept
            n_distinct = self._distinct.get(code, 0)
            if n_distinct >= _DISTINCT_TRACKED:
                self._listable[code] = self._listable.get(code, 0) + 1
                return
            self._distinct[code] = n_distinct + 1
            said = 0
        self._said[key] = said + 1
        if said >= self.same_shown:
            more = self._same.setdefault(key, [0, []])
            more[0] += 1
            if len(more[1]) < _LINES_SHOWN:
                more[1].append(line)
            return
        n = self._listable.get(code, 0) + 1
        self._listable[code] = n
        if n <= self.per_code:
            self.problems.append(Problem(code, message, severity, line, column, self.file))

    def add_on_lines(self, code: str, message: str, lines: list, *, severity: _Severity = "error",
                     column: int | None = None) -> None:
        """``add`` of one message on each of ``lines`` in turn, the same log after; past the calls that can
        list it, the rest is counted in one step (a file of 600,000 rows with the same problem on each)."""
        key = (code, severity, message)
        k = 0
        while k < len(lines) and self._said.get(key, 0) < self.same_shown:
            self.add(code, message, severity=severity, line=lines[k], column=column)
            k += 1
            if key not in self._said:  # past _DISTINCT_TRACKED: each of the rest is only counted (``add``)
                rest = len(lines) - k
                self._counts[code] += rest
                self._listable[code] = self._listable.get(code, 0) + rest
                return
        rest = len(lines) - k
        if not rest:
            return
        self._counts[code] += rest
        self._said[key] += rest
        more = self._same.setdefault(key, [0, []])
        more[0] += rest
        more[1].extend(lines[k:k + max(0, _LINES_SHOWN - len(more[1]))])

    def tracks_no_more(self, code: str) -> bool:
        """Whether a message of ``code`` not said before would now only be counted (``add``)."""
        return self._distinct.get(code, 0) >= _DISTINCT_TRACKED

    def count_untracked(self, code: str, n: int) -> None:
        """``add`` of ``n`` problems of ``code`` whose messages were never said, once ``tracks_no_more``:
        each is only counted, so they are counted in one step."""
        assert self.tracks_no_more(code) or not n
        self._counts[code] = self._counts.get(code, 0) + n
        self._listable[code] = self._listable.get(code, 0) + n

    def error(self, code: str, message: str, line: int | None = None, column: int | None = None) -> None:
        self.add(code, message, severity="error", line=line, column=column)

    def warning(self, code: str, message: str, line: int | None = None, column: int | None = None) -> None:
        self.add(code, message, severity="warning", line=line, column=column)

    def finish(self) -> list[Problem]:
        """Return the problems, with one summary per truncated code and per message said many times, errors
        first."""
        out = list(self.problems)
        for code, n in sorted(self._counts.items()):
            listable = self._listable.get(code, 0)
            if listable > self.per_code:
                sev = next(p.severity for p in self.problems if p.code == code)
                out.append(Problem("too_many_problems",
                                   f"{listable - self.per_code} more [{code}] problems not listed ({n} in all).",
                                   sev, None, None, self.file))
        listed = {}  # each message's first listed line: the summary names it (several messages may be above)
        for p in self.problems:
            listed.setdefault((p.code, p.severity, p.message), p.line)
        for (code, sev, message), (n_more, lines) in self._same.items():
            shown = ", ".join(str(x) for x in lines if x is not None)
            more = f" and {n_more - _LINES_SHOWN:,} more" if n_more > _LINES_SHOWN else ""
            where = f" (lines {shown}{more})" if shown else ""
            first = listed.get((code, sev, message))
            said = (f"the [{code}] message of line {first}" if first is not None
                    else f"the [{code}] message {message!r}")  # not listed above (past per_code): said here
            out.append(Problem("too_many_problems", f"{said}, again on {n_more:,} more line(s){where}.",
                               sev, None, None, self.file))
        return sorted(out, key=lambda p: (p.severity != "error", p.code == "too_many_problems",
                                          p.line or 0, p.column or 0, p.code))

    @property
    def has_errors(self) -> bool:
        return any(p.severity == "error" for p in self.problems)

    def count(self, code: str) -> int:
        return self._counts.get(code, 0)


class HostError(CodedError):
    """A host-side problem (bad solution, bad definition): exit code 3.

    Its message is for the organizer and may mention solution contents; it is
    never shown to a participant.
    """

    def __init__(self, code: str, message: str, problems: list[Problem] | None = None):
        super().__init__(code, message)
        self.problems = problems or []


class OptionError(CodedError, ValueError):
    """An option value the scorer cannot use (``--own-team`` no team of the solution, ``--val-accuracy``
    outside [0, 1]): the caller's usage error, exit code 2, wherever it is detected."""

    exit_code = 2

    def __init__(self, message: str):
        super().__init__("bad_option", message)


def errors_markdown() -> str:
    """The catalogue as Markdown (written to docs/errors.md; a test keeps the file current)."""
    lines = ["# Problem codes", "", "Every rejection and warning carries one of these stable codes "
             "(`scoring/runtime/problems.py`).", "", "| code | meaning |", "|---|---|"]
    lines += [f"| `{code}` | {text} |" for code, text in CODES.items()]
    return "\n".join(lines) + "\n"
