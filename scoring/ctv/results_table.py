"""The per-team CTV results table: one row per (protocol, arch, team).

Columns ``protocol,arch,team,val_acc,test_acc``; accuracies in percent (0-100).
For TOTO the team is the training team (val on its own held-out 30 %, test on
all other teams); for LOTO it is the held-out team (test on it, val on the
pool of the others).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agrieval.scoring.analysis_input._csv_input import key_cell, number_cell, read_csv_rows
from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.runtime.metrics.multiclass import validation_test_gap

PROTOCOLS = ("TOTO", "LOTO")
COLUMNS = ("protocol", "arch", "team", "val_acc", "test_acc")


@dataclass(frozen=True)
class TeamResult:
    protocol: str
    arch: str
    team: str
    val_acc: float  # percent
    test_acc: float  # percent
    # the per-seed accuracies the means above are of (run folders with replicates; empty when read from a table)
    val_seeds: tuple[float, ...] = field(default=(), compare=False)
    test_seeds: tuple[float, ...] = field(default=(), compare=False)

    @property
    def vtg(self) -> float:
        """Validation-test gap in percentage points: val_acc - test_acc (both percent)."""
        return validation_test_gap(self.val_acc, self.test_acc)

    def seed_values(self, metric: str) -> list[float]:
        """The per-seed values of ``val_acc``, ``test_acc`` or ``vtg`` (each seed's val − test); the mean
        alone when no seeds are recorded."""
        if not self.test_seeds:
            return [getattr(self, metric)]
        if metric == "vtg":
            return [validation_test_gap(v, t) for v, t in zip(self.val_seeds, self.test_seeds)]
        return list(self.val_seeds if metric == "val_acc" else self.test_seeds)


@dataclass
class ResultsTable:
    """The per-team results of a CTV study: one ``TeamResult`` per protocol, architecture and test team, sorted
    TOTO before LOTO, then by architecture and team; ``source`` names where they were read from."""

    rows: list[TeamResult]
    source: str = "<memory>"
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rows = sorted(self.rows, key=lambda r: (PROTOCOLS.index(r.protocol), r.arch, r.team))

    def protocols(self) -> list[str]:
        present = {r.protocol for r in self.rows}
        return [p for p in PROTOCOLS if p in present]

    def archs(self, protocol: str | None = None) -> list[str]:
        return sorted({r.arch for r in self.rows if protocol is None or r.protocol == protocol})

    def group(self, protocol: str, arch: str) -> list[TeamResult]:
        return [r for r in self.rows if r.protocol == protocol and r.arch == arch]


def _check_protocol(value: str, *, file: str | None = None, line: int | None = None,
                   column: int | None = None) -> str:
    if value in PROTOCOLS:
        return value
    hint = f"; write {value.upper()!r}" if value.upper() in PROTOCOLS else ""
    raise InputError("bad_protocol", f"protocol must be TOTO or LOTO, found {value!r}{hint}",
                     file=file, line=line, column=column)


def read_results(path: str | Path) -> ResultsTable:
    """Read RESULTS.csv strictly: every problem names the file, line and column."""
    table = read_csv_rows(path, COLUMNS)
    rows: list[TeamResult] = []
    seen: dict[tuple[str, str, str], int] = {}
    for i in range(len(table.rows)):
        line = table.lines[i]
        protocol = _check_protocol(key_cell(table, i, "protocol"), file=table.path, line=line,
                                  column=table.column_index("protocol"))
        arch, team = key_cell(table, i, "arch"), key_cell(table, i, "team")
        key = (protocol, arch, team)
        if key in seen:
            raise InputError("duplicate_key", f"({protocol}, {arch}, {team}) also appears on line {seen[key]}",
                             file=table.path, line=line)
        seen[key] = line
        accs = {}
        for col in ("val_acc", "test_acc"):
            v = number_cell(table, i, col)
            if not 0 <= v <= 100:
                raise InputError("out_of_range", f"{col} is a percentage (0-100), found {v}",
                                 file=table.path, line=line, column=table.column_index(col))
            accs[col] = v
        rows.append(TeamResult(protocol, arch, team, accs["val_acc"], accs["test_acc"]))
    if all(r.val_acc <= 1 and r.test_acc <= 1 for r in rows):
        raise InputError("looks_like_fractions",
                         "every accuracy is <= 1: the columns hold percentages (0-100); multiply fractions by 100",
                         file=table.path)
    extra = [h for h in table.header if h not in COLUMNS]
    warnings = [f"{table.path}: column(s) {', '.join(extra)} ignored"] if extra else []
    return ResultsTable(rows, table.path, warnings)
