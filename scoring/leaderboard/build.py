"""Score every submission of a folder into a leaderboard.

One bad file is reported (with the scorer's codes and messages) and skipped;
it never stops the others. Ranks are competition ranks on the primary metric,
higher is better, ties share the best rank (1, 2, 2, 4). The rank shift is
public rank - private rank (positive: the submission moved up on the private
split).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agrieval.scoring.analysis_input._log_header import is_submission_log
from agrieval.scoring.leaderboard._bootstrap import draw_units, percentile_interval, resample_scores, unit_codes
from agrieval.scoring.leaderboard.paired_test import PairedResult, paired_vs_leader
from agrieval.scoring.leaderboard.rank_agreement import correlations
from agrieval.scoring.leaderboard.rows import row_frame
from agrieval.scoring.text.file_names import display_name
from agrieval.scoring.text.terminal import one_line

# Imported inside functions, so that importing this module loads only what it needs: scoring.runtime.warm (it loads
# multiprocessing).

SCHEMA_VERSION = 1


@dataclass
class SplitScore:
    score: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    rank: int | None = None
    vs_leader: PairedResult | None = None


@dataclass
class Entry:
    """One submission on the leaderboard: its file, its status, its public (and private) score with their
    intervals, its errors, warnings and marks."""

    name: str
    file: str
    status: str  # "scored" or "rejected"
    public: SplitScore | None = None
    private: SplitScore | None = None
    errors: list[dict] = field(default_factory=list)
    n_warnings: int = 0
    marks: list[str] = field(default_factory=list)  # "flagged" (by the audit), "held" (by the Ladder): marks.py

    @property
    def rank_shift(self) -> int | None:
        if self.public is None or self.private is None or self.public.rank is None or self.private.rank is None:
            return None
        return self.public.rank - self.private.rank


@dataclass
class Leaderboard:
    """A ranked leaderboard: one ``Entry`` per submission with the resampling settings that gave its intervals,
    and the agreement between the public and private rankings when the private split is revealed."""

    competition: str
    metric: str
    unit: str
    unit_name: str
    n_units: dict[str, int]
    n_resamples: int
    seed: int
    confidence: float
    alpha: float
    reveal_private: bool
    entries: list[Entry]
    agreement: dict | None = None

    @property
    def scored(self) -> list[Entry]:
        return [e for e in self.entries if e.status == "scored"]

    @property
    def rejected(self) -> list[Entry]:
        return [e for e in self.entries if e.status != "scored"]

    @property
    def marked(self) -> bool:
        return any(e.marks for e in self.entries)

    def largest_shifts(self, n: int = 5) -> list[Entry]:
        moved = [e for e in self.scored if e.rank_shift]
        return sorted(moved, key=lambda e: (-abs(e.rank_shift), e.name))[:n]


def competition_ranks(scores: list[float]) -> list[int]:
    """1 + the number of strictly better scores (ties share the best rank)."""
    arr = np.asarray(scores, float)
    return [int(1 + np.count_nonzero(arr > s)) for s in arr]


def _board_name(relative: str, used: set[str]) -> str:
    """The submission's name on the board: its relative path as one printable line (a file name that is
    not UTF-8, or holds a newline, is any participant's to choose, and must neither stop the board nor
    split a line of it), and unique among ``used``."""
    name = one_line(relative)
    while name in used:  # two names that only differed in undecodable bytes
        name += "~"
    used.add(name)
    return name


def list_submissions(folder: Path, recursive: bool) -> list[Path]:
    """The CSV files of ``folder``, sorted; the own server's submission log kept there is never one of them."""
    pattern = "**/*.csv" if recursive else "*.csv"
    return sorted((p for p in folder.glob(pattern) if p.is_file() and not is_submission_log(p)),
                  key=lambda p: p.relative_to(folder).as_posix())


def build_leaderboard(folder: str | Path, solution_path: str | Path, definition, *, reveal_private: bool = False,
                      metric: str | None = None, unit: str = "group", n_resamples: int = 1000, seed: int = 0,
                      confidence: float = 0.95, alpha: float = 0.05, recursive: bool = False,
                      progress: Callable[[str], None] | None = None, limits: bool = True) -> Leaderboard:
    """Score every submission under ``folder`` against the solution (read once) and rank them, with bootstrap
    intervals over ``unit`` and a paired test of each against the leader; each file is graded under the
    competition's limits unless ``limits=False``."""
    from agrieval.scoring.runtime.warm import Grader

    folder = Path(folder)
    # the solution is read once; each file is read and scored under the competition's time and memory limits
    # (a child process, as `grade`), unless ``limits=False``
    grader = Grader(solution_path, definition, reveal_private=reveal_private, limits=limits)
    sol = grader.solution
    metric = metric or definition.primary_metric
    files = list_submissions(folder, recursive)
    entries: list[Entry] = []
    frames: dict[str, object] = {}
    used: set[str] = set()
    for i, path in enumerate(files, 1):
        name = _board_name(path.relative_to(folder).with_suffix("").as_posix(), used)
        shown = display_name(str(path))
        graded = grader.evaluate(path, filename=shown)
        report = graded.report
        entry = Entry(name, shown, report.status, n_warnings=len(report.warnings))
        if report.status == "scored":
            if metric not in report.metrics.public:
                raise ValueError(f"metric {metric!r} is not reported for {definition.name}; "
                                 f"choose one of {', '.join(sorted(report.metrics.public))}")
            entry.public = SplitScore(report.metrics.public[metric])
            if reveal_private and report.metrics.private:
                entry.private = SplitScore(report.metrics.private[metric])
            frames[name] = row_frame(graded.submission, sol, definition, graded.order)
            msg = f"{metric} {entry.public.score:.4f}"
        else:
            entry.errors = [e.to_dict() if hasattr(e, "to_dict") else dict(e)
                            for e in report.errors]
            msg = "rejected: " + ", ".join(sorted({e["code"] for e in entry.errors}))
        entries.append(entry)
        if progress:
            progress(f"[{i}/{len(files)}] {name}: {msg}")

    splits = ["public"] + (["private"] if reveal_private else [])
    n_units: dict[str, int] = {}
    scored = [e for e in entries if e.status == "scored"]
    for split in splits:
        with_split = [e for e in scored if getattr(e, split) is not None]
        if not with_split:
            continue
        ranks = competition_ranks([getattr(e, split).score for e in with_split])
        for e, r in zip(with_split, ranks):
            getattr(e, split).rank = r
        if n_resamples <= 0:
            continue
        first = frames[with_split[0].name]
        mask = (first["split"] == split).to_numpy()
        units = unit_codes(first[mask], unit)
        n_units[split] = int(units.max()) + 1
        draws = draw_units(n_units[split], n_resamples, seed)
        boot = {}
        for e in with_split:
            frame = frames[e.name][mask].reset_index(drop=True)
            boot[e.name] = resample_scores(frame, definition, metric, units, draws, unit)
            s = getattr(e, split)
            s.ci_low, s.ci_high = percentile_interval(boot[e.name], confidence)
        leader = min(with_split, key=lambda e: (getattr(e, split).rank, e.name))
        for e in with_split:
            if e is not leader:
                getattr(e, split).vs_leader = paired_vs_leader(
                    boot[leader.name], boot[e.name], getattr(leader, split).score - getattr(e, split).score,
                    confidence=confidence, alpha=alpha)
        if progress:
            progress(f"{split}: {n_resamples} bootstrap resamples of {n_units[split]} {unit_name(definition, unit)}s")

    entries.sort(key=lambda e: (e.status != "scored", e.public.rank if e.public else 0, e.name))
    board = Leaderboard(definition.name, metric, unit, unit_name(definition, unit), n_units, n_resamples, seed,
                        confidence, alpha, reveal_private, entries)
    if reveal_private:
        board.agreement = public_private_agreement(board)
    return board


def unit_name(definition, unit: str) -> str:
    if unit == "row":
        return "row"
    return definition.grouping.name if definition.grouping else "group"


def public_private_agreement(board: Leaderboard) -> dict | None:
    """Spearman, Kendall and Pearson between public and private scores (scipy)."""
    both = [e for e in board.scored if e.public is not None and e.private is not None]
    if len(both) < 3:
        return {"n": len(both), "note": "fewer than 3 scored submissions: no rank agreement"}
    stats = correlations([e.public.score for e in both], [e.private.score for e in both])
    return {"n": len(both), **{k: {"statistic": s, "pvalue": p} for k, (s, p) in stats.items()}}
