"""Leaderboard error under adaptive attacks: the raw board, the Ladder, the textbook Ladder, the rounded board.

    python benchmarks/bench_ladder.py [--repeats 5] [--queries 300] [--permutations 2000] [--plot PNG]

Two competitions, each a table of two candidate predictions per row and their per-row scores, so
that a submission is one choice per row (which the attacker, who never sees the truth, makes):

  two-class   the issue's: 1,000 public and 1,000 private rows, labels 0/1 at random; a choice
              scores 1 when it is the row's label (accuracy, unit = row)
  plantclef   the PlantCLEF 2025 reference solution's shape: the 2,105 real quadrat ids of
              tests/fixtures/real/, transects by the shipped ``strip-date`` rule (656), each quadrat
              public or private at random (half each); each choice scores an F1 drawn uniformly in
              [0, 1] (transect F1: per-quadrat values averaged within transects, then across them)

Attacks (the attacker sees only the board):

  boosting    Blum & Hardt 2015, section 6: --queries random choice vectors, keep those whose board
              value beat chance (the median board value of the random ones; against a Ladder: those
              that raised the value shown), submit their per-row majority vote
  hill-climb  greedy probing, the attack a board with exact scores invites (Whitehill 2016 does it
              for an AUC oracle): start from a random vector, flip the choices of 10 random rows,
              keep the flip when the value shown went up, --queries times

Boards: ``raw`` shows each submission's exact public score (Kaggle, Codabench, ...); ``ladder`` is
``agrieval.scoring.runtime._ladder`` (the parameter-free Ladder over the metric's units, the code ``grade
--ladder`` runs); ``textbook`` is the paper's Algorithm 2 on row losses, written again here from the
paper; ``rounded`` shows the public score rounded to ``--public-precision auto``'s decimals. The
leaderboard error of a board is |value shown for the attacker - private score of the submission it
belongs to| at the end of the attack (the private split standing for fresh data), averaged over
--repeats competitions (mean and standard deviation). Then ``agrieval audit``'s test
(``agrieval.scoring.audit``) runs on each competition of the raw board with the boosting attacker, the
hill-climber and five honest teams (ten fixed submissions each) and prints who it flags.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agrieval.scoring.audit.audit_report import audit  # noqa: E402
from agrieval.scoring.authoring._public_precision import auto_decimals  # noqa: E402
from agrieval.scoring.runtime import _ladder as ladder  # noqa: E402
from agrieval.scoring.runtime._unit_scores import split_score  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "real" / "plantclef2025_submission_topk5.csv"


class Competition:
    """Per-row scores of the two choices (N, 2), each row's unit and split."""

    def __init__(self, name: str, scores: np.ndarray, units: np.ndarray, public: np.ndarray):
        self.name, self.scores, self.units, self.public = name, scores, units, public
        self.public_rows, self.private_rows = np.flatnonzero(public), np.flatnonzero(~public)
        self.n_units = len(np.unique(units[self.public_rows]))

    def row_values(self, choice: np.ndarray) -> np.ndarray:
        return self.scores[np.arange(len(choice)), choice]

    def score(self, choice: np.ndarray, rows: np.ndarray) -> float:
        return split_score(self.row_values(choice), self.units, rows)

    def public_units(self, choice: np.ndarray) -> np.ndarray:
        from agrieval.scoring.runtime._unit_scores import unit_values

        return unit_values(self.row_values(choice), self.units, self.public_rows)


def two_class(rng: np.random.Generator) -> Competition:
    truth = rng.integers(0, 2, 2000)
    scores = np.stack([(truth == 0), (truth == 1)], axis=1).astype(float)
    return Competition("two-class", scores, np.arange(2000), rng.permutation(2000) < 1000)


def plantclef(rng: np.random.Generator) -> Competition:
    from agrieval.scoring.runtime.definition import load_definition
    from agrieval.scoring.runtime.grouping import group_codes, group_ids

    ids = [line.split(",")[0].strip('"') for line in FIXTURE.read_text().splitlines()[1:] if line]
    units, _ = group_codes(group_ids(ids, load_definition("plantclef2025").grouping))
    n = len(ids)
    return Competition("plantclef", rng.random((n, 2)), np.asarray(units, dtype=np.int64), rng.permutation(n) < n // 2)


# -- boards: each turns a submission into the value it shows for the team ----------------------------------

class RawBoard:
    def __init__(self, comp: Competition):
        self.comp, self.best, self.best_choice = comp, -math.inf, None

    def value(self, choice: np.ndarray) -> float:
        return self.comp.score(choice, self.comp.public_rows)

    def submit(self, choice: np.ndarray) -> float:
        v = self.value(choice)
        if v > self.best:
            self.best, self.best_choice = v, choice
        return v  # a raw board shows every submission's exact score

    def error(self) -> float:
        return abs(self.best - self.comp.score(self.best_choice, self.comp.private_rows))


class RoundedBoard(RawBoard):
    def __init__(self, comp: Competition):
        super().__init__(comp)
        self.decimals = auto_decimals(comp.n_units)

    def value(self, choice: np.ndarray) -> float:
        return round(super().value(choice), self.decimals)


class LadderBoard:
    """``agrieval.scoring.runtime._ladder``'s rule (the one ``grade --ladder`` applies), on the metric's units."""

    def __init__(self, comp: Competition):
        self.comp, self.units, self.shown, self.choice = comp, None, None, None

    def submit(self, choice: np.ndarray) -> float:
        units = self.comp.public_units(choice)
        released, _ = ladder.beats(units, self.units, self.shown)
        if released:
            self.units, self.choice = units, choice
            self.shown = ladder.released_value(float(np.mean(units)), len(units))
        return self.shown

    def error(self) -> float:
        return abs(self.shown - self.comp.score(self.choice, self.comp.private_rows))


class TextbookLadder:
    """Blum & Hardt's Algorithm 2 as printed: losses l = 1 - row score on the n public rows, R_0 = inf;
    release when R_S(f_t) < R_{t-1} - std(l_t - l_best) / sqrt(n), then R_t = [R_S(f_t)]_{1/n}."""

    def __init__(self, comp: Competition):
        self.comp, self.r, self.best_losses, self.choice = comp, math.inf, None, None

    def submit(self, choice: np.ndarray) -> float:
        losses = 1.0 - self.comp.row_values(choice)[self.comp.public_rows]
        n = len(losses)
        s = 0.0 if self.best_losses is None else float(np.std(losses - self.best_losses, ddof=1))
        if losses.mean() < self.r - s / math.sqrt(n):
            self.r, self.best_losses, self.choice = round(losses.mean() * n) / n, losses, choice
        return 1.0 - self.r

    def error(self) -> float:
        private = self.comp.row_values(self.choice)[self.comp.private_rows].mean()
        return abs((1.0 - self.r) - private)


BOARDS = {"raw": RawBoard, "ladder": LadderBoard, "textbook": TextbookLadder, "rounded": RoundedBoard}


# -- attacks: each plays against a board and returns its submissions -----------------------------------------

def boosting(board, n_rows: int, queries: int, rng: np.random.Generator) -> list[np.ndarray]:
    guesses = rng.integers(0, 2, size=(queries, n_rows))
    shown = [board.submit(g) for g in guesses]
    if isinstance(board, (LadderBoard, TextbookLadder)):
        # the value shown only moves when a submission is released: keep those that raised it
        kept = [i for i in range(queries) if i == 0 or shown[i] > shown[i - 1]]
    else:
        kept = [i for i in range(queries) if shown[i] > np.median(shown)]
    vote = (guesses[kept].mean(axis=0) > 0.5).astype(np.int64)
    board.submit(vote)
    return list(guesses) + [vote]


def hill_climb(board, n_rows: int, queries: int, rng: np.random.Generator, block: int = 10) -> list[np.ndarray]:
    current = rng.integers(0, 2, n_rows)
    best = board.submit(current)
    submitted = [current]
    for _ in range(queries):
        trial = current.copy()
        rows = rng.choice(n_rows, block, replace=False)
        trial[rows] = 1 - trial[rows]
        shown = board.submit(trial)
        submitted.append(trial)
        if shown > best:
            current, best = trial, shown
    return submitted


ATTACKS = {"boosting": boosting, "hill-climb": hill_climb}


def honest_team(comp: Competition, rng: np.random.Generator, skill: float, n: int = 10) -> list[np.ndarray]:
    """Fixed submissions: each row's better choice with probability ``skill`` (they never see the board)."""
    better = np.argmax(comp.scores, axis=1)
    return [np.where(rng.random(len(better)) < skill, better, 1 - better) for _ in range(n)]


def errors_table(makers, repeats: int, queries: int) -> dict:
    out = {}
    for name, make in makers.items():
        for attack, run in ATTACKS.items():
            for board_name, board_cls in BOARDS.items():
                errs = []
                for r in range(repeats):
                    comp = make(np.random.default_rng(1000 + r))
                    board = board_cls(comp)
                    run(board, len(comp.scores), queries, np.random.default_rng(2000 + r))
                    errs.append(board.error())
                out[(name, attack, board_name)] = (float(np.mean(errs)), float(np.std(errs)))
    return out


def audit_run(make, queries: int, permutations: int, seed: int = 0):
    comp = make(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    teams, subs = [], []
    for t, skill in enumerate(np.linspace(0.55, 0.75, 5)):
        for choice in honest_team(comp, rng, skill):
            teams.append(f"honest{t + 1}")
            subs.append(choice)
    for attack, run in ATTACKS.items():
        for choice in run(RawBoard(comp), len(comp.scores), queries, rng):
            teams.append(attack)
            subs.append(choice)
    values = np.vstack([comp.row_values(c) for c in subs])
    split = np.where(comp.public, "public", "private")
    return audit(values, comp.units, split, teams, [f"sub{i}" for i in range(len(subs))], subs,
                 competition=comp.name, metric="score", unit="unit", alpha=0.01, n_permutations=permutations,
                 n_resamples=200)


DEMO_TOML = """# The two-class competition of benchmarks/bench_ladder.py --demo (not a shipped competition).
name = "twoclass-demo"
title = "Two classes at random: the Ladder and the audit against the boosting attack"
task = "multiclass"
id_column = "id"
prediction_column = "label"
list_syntax = "single"
label_type = "str"
vocabulary = ["a", "b"]
primary_metric = "accuracy"

[split]
column = "Usage"
public = "Public"
private = "Private"
ignored = "Ignored"

[grouping]
name = "site"
solution_column = "site"
rule = "column-only"
"""


def write_demo(folder: Path, queries: int) -> None:
    """The two-class competition as files: a definition, the solution, every team's submissions (five honest
    teams, the boosting attacker against the raw board), ``log.csv`` and ``board/<team>/NNN.csv`` (a copy of each
    team's last submission, the one it picks for the final ranking)."""
    from agrieval.scoring.runtime.atomic import write_text

    comp = two_class(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    labels = np.array(["a", "b"])
    truth = labels[np.argmax(comp.scores, axis=1)]
    ids = [f"img{i:05d}" for i in range(len(truth))]
    usage = np.where(comp.public, "Public", "Private")
    folder.mkdir(parents=True, exist_ok=False)
    write_text(folder / "twoclass.toml", DEMO_TOML)
    sites = [f"site{k % 10}" for k in range(len(ids))]  # ten photo sites (the grouping; rows are the units)
    write_text(folder / "solution.csv", "id,label,site,Usage\n" + "".join(
        f"{i},{t},{g},{u}\n" for i, t, g, u in zip(ids, truth, sites, usage)))
    teams = {f"honest{t + 1}": honest_team(comp, rng, skill) for t, skill in enumerate(np.linspace(0.55, 0.75, 5))}
    teams["attacker"] = boosting(RawBoard(comp), len(truth), queries, rng)
    log = ["team,submitted_at,file"]
    for team, choices in teams.items():
        (folder / "submissions" / team).mkdir(parents=True)
        for k, choice in enumerate(choices):
            rel = f"submissions/{team}/{k:03d}.csv"
            write_text(folder / rel, "id,label\n" + "".join(f"{i},{c}\n" for i, c in zip(ids, labels[choice])))
            log.append(f"{team},2025-05-01T{k // 60:02d}:{k % 60:02d}:00Z,{rel}")
        (folder / "board" / team).mkdir(parents=True)
        write_text(folder / "board" / team / Path(rel).name, (folder / rel).read_text())
    write_text(folder / "log.csv", "\n".join(log) + "\n")
    print(f"written: {folder} ({sum(len(c) for c in teams.values())} submissions of {len(teams)} teams)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--permutations", type=int, default=2000)
    parser.add_argument("--plot", type=Path, default=None, help="also draw the errors as a bar chart (PNG)")
    parser.add_argument("--demo", type=Path, default=None,
                        help="only write the two-class competition's files into this new folder (docs/ladder.md)")
    args = parser.parse_args()
    if args.demo:
        write_demo(args.demo, args.queries)
        return
    makers = {"two-class": two_class, "plantclef": plantclef}
    print(f"# bench_ladder: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}; {args.repeats} competitions per cell, {args.queries} queries per attack")
    for name, make in makers.items():
        comp = make(np.random.default_rng(0))
        print(f"# {name}: {len(comp.scores)} rows, {len(comp.public_rows)} public, {comp.n_units} public units; "
              f"rounded board: {auto_decimals(comp.n_units)} decimals")
    started = time.perf_counter()
    table = errors_table(makers, args.repeats, args.queries)
    print("\nleaderboard error |shown - private| of the attacker's board entry (mean +- sd)\n")
    print(f"| competition | attack | {' | '.join(BOARDS)} |")
    print("|---|---|" + "---|" * len(BOARDS))
    for name in makers:
        for attack in ATTACKS:
            cells = [f"{table[(name, attack, b)][0]:.3f} ± {table[(name, attack, b)][1]:.3f}" for b in BOARDS]
            print(f"| {name} | {attack} | {' | '.join(cells)} |")
    print(f"\n({time.perf_counter() - started:.1f} s)\n")
    for name, make in makers.items():
        result = audit_run(make, args.queries, args.permutations)
        print(f"audit of {name} (raw board; Holm at alpha 0.01, {args.permutations} permutations):")
        for t in result.teams:
            print(f"  {t.team:<11} {t.n_submissions:>4} submissions  gap {t.gap:+.4f}  p {t.p_value:.4f}  "
                  f"p_holm {t.p_holm:.4f}  {'FLAGGED' if t.flagged else '-'}")
        runs = result.near_duplicates
        by_team = {t: [r.n_submissions for r in runs if r.team == t] for t in sorted({r.team for r in runs})}
        print(f"  near-duplicate runs (at most {result.near_duplicate_rows} rows changed per step): "
              + ("; ".join(f"{t}: {len(n)} runs holding {sum(n)} submissions, the longest {max(n)}"
                           for t, n in by_team.items()) or "none"))
    if args.plot:
        draw(table, makers, args.plot)
        print(f"\nwritten: {args.plot}")


def draw(table: dict, makers: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(makers), figsize=(10, 3.6), sharey=True)
    colors = {"raw": "#c0392b", "ladder": "#2471a3", "textbook": "#7fb3d5", "rounded": "#e59866"}
    for ax, name in zip(axes, makers):
        width = 0.8 / len(BOARDS)
        for k, board in enumerate(BOARDS):
            means = [table[(name, a, board)][0] for a in ATTACKS]
            sds = [table[(name, a, board)][1] for a in ATTACKS]
            ax.bar(np.arange(len(ATTACKS)) + k * width, means, width, yerr=sds, label=board, color=colors[board])
        ax.set_xticks(np.arange(len(ATTACKS)) + 0.4 - width / 2, list(ATTACKS))
        ax.set_title(name)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("leaderboard error |shown - private|")
    axes[-1].legend(frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
