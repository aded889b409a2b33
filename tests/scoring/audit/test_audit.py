"""The audit (scoring/audit): it flags an adaptive team, flags honest teams at most at the nominal rate,
and reads its log strictly; Holm's procedure against statsmodels' as an independent oracle."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from agrieval.scoring.audit._near_duplicates import label_set_keys, near_duplicate_runs
from agrieval.scoring.audit._split_permutation import holm, permutation_test, split_blocks, split_scores
from agrieval.scoring.audit.audit_report import audit
from agrieval.scoring.cli.main import cli

REPO = Path(__file__).resolve().parents[3]
PC = REPO / "reference_submissions" / "plantclef2025"


def honest_team(rng, truth, n_subs, skill):
    """Fixed submissions (they never saw the split): each row right with probability ``skill``."""
    right = rng.random((n_subs, len(truth))) < skill
    return right.astype(float)  # per-row accuracy parts


def boosting_attack(rng, truth, public, n_random):
    """Blum & Hardt's boosting attack on an exact public board: random 0/1 predictions, keep those that
    score above 1/2 on the public rows, submit their per-row majority vote."""
    guesses = rng.integers(0, 2, size=(n_random, len(truth)))
    correct = (guesses == truth).astype(float)
    kept = guesses[correct[:, public].mean(axis=1) > 0.5]
    vote = (kept.mean(axis=0) > 0.5).astype(int)
    return np.vstack([correct, (vote == truth).astype(float)[None]])


def competition(rng, n=400, honest=4, subs=10):
    truth = rng.integers(0, 2, n)
    split = np.where(rng.permutation(n) < n // 2, "public", "private")
    values = [honest_team(rng, truth, subs, skill) for skill in np.linspace(0.6, 0.75, honest)]
    names = [f"team{t}" for t in range(honest) for _ in range(subs)]
    return truth, split, values, names


def test_the_adaptive_team_is_flagged_and_no_honest_one():
    rng = np.random.default_rng(3)
    truth, split, values, names = competition(rng, n=2000)
    attack = boosting_attack(rng, truth, split == "public", 300)  # the 300 random submissions
    values = np.vstack(values + [attack])
    names = names + ["attacker"] * len(attack)
    result = audit(values, np.arange(len(truth)), split, names, [f"f{i}" for i in range(len(names))], None,
                   competition="toy", metric="accuracy", unit="row", alpha=0.01, n_permutations=999, n_resamples=50)
    flagged = {t.team for t in result.teams if t.flagged}
    assert flagged == {"attacker"}
    attacker = next(t for t in result.teams if t.team == "attacker")
    assert attacker.gap > 0.05 and attacker.p_value == pytest.approx(1 / 1000)
    out = result.to_dict()
    assert [sorted(t) for t in out["teams"]] == [sorted(["team", "n_submissions", "gap", "p_value", "flagged"])] * 5
    json.dumps(out, allow_nan=False)


def test_honest_competitions_are_flagged_at_most_at_the_nominal_rate():
    rng = np.random.default_rng(7)
    alpha, n_comps = 0.1, 150
    any_flag, small_p, n_p = 0, 0, 0
    for _ in range(n_comps):
        truth, split, values, names = competition(rng, n=200, honest=4, subs=8)
        tests = permutation_test(np.vstack(values), np.arange(200), split,
                                 np.array([int(n[4:]) for n in names]), sorted(set(names)), n_permutations=199,
                                 seed=int(rng.integers(1 << 30)), alpha=alpha)
        any_flag += any(t.flagged for t in tests)
        small_p += sum(t.p_value <= alpha for t in tests)
        n_p += len(tests)
    slack = 3 * np.sqrt(alpha * (1 - alpha) / n_comps)
    assert any_flag / n_comps <= alpha + slack  # Holm: P(any honest team flagged) <= alpha
    assert small_p / n_p <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n_p)  # each p-value valid
    assert small_p / n_p >= alpha / 4  # and not uselessly conservative (the test can fail both ways)


def test_holm_by_hand():
    # sorted: 0.005 (x6 = 0.03), 0.01 (x5 = 0.05), 0.03 (x4 = 0.12), 0.04 (x3 = 0.12), 0.2 (x2 = 0.4), 0.5 (x1)
    ours, flagged = holm([0.01, 0.04, 0.03, 0.005, 0.5, 0.2], 0.05)
    assert ours == pytest.approx([0.05, 0.12, 0.12, 0.03, 0.5, 0.4])
    assert flagged == [True, False, False, True, False, False]


def test_blocks_are_units_when_the_split_is_by_unit_and_rows_otherwise():
    units = np.array([0, 0, 1, 1, 2, 2])
    by_unit = np.array([True, True, False, False, True, True])
    assert split_blocks(units, by_unit, np.ones(6, bool)).tolist() == units.tolist()
    by_row = np.array([True, False, False, False, True, True])
    assert split_blocks(units, by_row, np.ones(6, bool)).tolist() == list(range(6))


def test_split_scores_average_unit_means():
    values = np.array([[1.0, 0.0, 1.0, 1.0, 0.0]])
    units = np.array([0, 0, 1, 1, 2])
    masks = np.array([[1, 1, 1, 0, 1], [0, 1, 1, 1, 0]]).T
    # first split: unit 0 mean 0.5, unit 1 mean 1, unit 2 mean 0 -> 0.5; second: unit 0 0, unit 1 1 -> 0.5
    assert split_scores(values, units, masks).tolist() == [[0.5, 0.5]]


def test_near_duplicate_runs():
    keys = [np.array([1, 2, 3, 4]), np.array([1, 2, 3, 5]), np.array([1, 2, 9, 5]), np.array([7, 8, 9, 0])]
    runs = near_duplicate_runs("t", ["a", "b", "c", "d"], keys, max_rows=1)
    assert [(r.first, r.last, r.n_submissions, r.max_rows_changed) for r in runs] == [("a", "c", 3, 1)]
    # equal label sets, equal keys; different sets, different keys
    k = label_set_keys(np.array([0, 2, 4, 4, 5]), np.array([3, 7, 3, 7, 3]))
    assert k[0] == k[1] and k[0] != k[2] and k[2] != k[3]


def _log(folder: Path, rows: list[str]) -> Path:
    for name in ("partial", "perfect", "baseline_top5_common"):
        shutil.copy(PC / "submissions" / f"{name}.csv", folder / f"{name}.csv")
    log = folder / "log.csv"
    log.write_text("team,submitted_at,file\n" + "\n".join(rows) + "\n")
    return log


def test_audit_command_json_shape(tmp_path):
    log = _log(tmp_path, ["a,2025-05-01T10:00:00Z,partial.csv", "a,2025-05-02T10:00:00Z,perfect.csv",
                          "b,2025-05-01T10:00:00Z,baseline_top5_common.csv"])
    r = CliRunner().invoke(cli, ["audit", str(log), "-s", str(PC / "solution.csv"), "-c", "plantclef2025", "--json",
                                 "--permutations", "199", "--resamples", "50"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert [t["team"] for t in obj["teams"]] == ["a", "b"] and obj["teams"][0]["n_submissions"] == 2
    assert all(set(t) == {"team", "n_submissions", "gap", "p_value", "flagged"} for t in obj["teams"])


@pytest.mark.parametrize("row,code", [("a,2025-05-01T10:00:00Z,../outside.csv", "path_outside"),
                                      ("a,2025-05-01T10:00:00Z,/etc/passwd", "path_outside"),
                                      ("a,yesterday,partial.csv", "bad_timestamp"),
                                      ("a,2025-05-01T10:00:00Z,missing.csv", "file_not_found")])
def test_a_bad_log_row_is_rejected_with_its_line_and_column(tmp_path, row, code):
    (tmp_path / "sub").mkdir()
    log = _log(tmp_path / "sub", ["a,2025-05-01T09:00:00Z,partial.csv", row])
    (tmp_path / "outside.csv").write_text("x")
    r = CliRunner().invoke(cli, ["audit", str(log), "-s", str(PC / "solution.csv"), "-c", "plantclef2025"])
    assert r.exit_code == 1 and "log.csv:3:" in r.stderr and f"[{code}]" in r.stderr


def test_rank_movement_is_tight_for_separated_teams_and_loose_for_close_ones():
    from agrieval.scoring.audit._rank_movement import rank_movement

    rng = np.random.default_rng(0)
    far = np.vstack([rng.random(500) < p for p in (0.9, 0.5, 0.1)]).astype(float)
    moves = rank_movement(far, ["a", "b", "c"], n_resamples=200)
    assert [(m.private_rank, m.rank_low, m.rank_high, m.p_moved) for m in moves] == [(1, 1, 1, 0.0), (2, 2, 2, 0.0),
                                                                                   (3, 3, 3, 0.0)]
    close = np.vstack([rng.random(500) < 0.6 for _ in range(2)]).astype(float)
    moves = rank_movement(close, ["x", "y"], n_resamples=200)
    assert all(m.rank_low == 1 and m.rank_high == 2 and 0.05 < m.p_moved < 0.95 for m in moves)


def test_selection_costs_by_hand():
    from agrieval.scoring.audit._selection_cost import selection_costs

    # rows 0-1 public, 2-3 private, each its own unit: a split's score is the plain mean of its rows
    split = np.array(["public", "public", "private", "private"])
    units = np.arange(4)
    values = np.array([[0.2, 0.2, 0.9, 0.9],   # a1: public 0.2, private 0.9 (its best private)
                       [1.0, 1.0, 0.1, 0.1],   # a2: public 1.0, private 0.1 (its best public)
                       [0.6, 0.6, 0.5, 0.5],   # a3: public 0.6, private 0.5 (last)
                       [0.5, 0.5, 0.5, 0.5]])  # b1: one submission: nothing to lose
    costs = selection_costs(values, units, split, ["a", "a", "a", "b"], ["a1", "a2", "a3", "b1"])
    a, b = costs
    assert a.best_private == pytest.approx(0.9) and a.best_private_file == "a1"
    assert a.counted["best_public"] == {"private": pytest.approx(0.1), "file": "a2", "lost": pytest.approx(0.8)}
    assert a.counted["top2_public"]["file"] == "a3" and a.counted["top2_public"]["lost"] == pytest.approx(0.4)
    assert a.counted["last"]["file"] == "a3" and a.counted["last"]["lost"] == pytest.approx(0.4)
    assert all(b.counted[r]["lost"] == 0 for r in b.counted)


def test_the_worked_example_in_the_selection_rules_docstring_holds():
    import doctest

    from agrieval.scoring.audit import _selection_cost as selection_cost

    results = doctest.testmod(selection_cost)
    assert results.attempted >= 4 and results.failed == 0


def test_the_audit_reads_the_own_servers_store_and_simulates_selection(tmp_path):
    log = tmp_path / "comp.db"
    run = CliRunner()
    made = run.invoke(cli, ["server", "init", str(log), "-c", "plantclef2025", "-s", str(PC / "solution.csv"),
                            "--total", "2"])
    assert made.exit_code == 0, made.output
    for i, name in enumerate(["partial", "perfect", "baseline_top5_common", "over_predicting"]):
        run.invoke(cli, ["grade", str(PC / "submissions" / f"{name}.csv"), "--store", str(log),
                         "--team", "a" if i < 3 else "b", "--now", f"2026-05-01T0{i}:00:00Z"])  # a's 3rd is refused
    assert run.invoke(cli, ["server", "select", str(log), "--team", "a", "1"]).exit_code == 0
    r = run.invoke(cli, ["audit", str(log), "--json", "--permutations", "199", "--resamples", "50"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert [(t["team"], t["n_submissions"]) for t in obj["teams"]] == [("a", 2), ("b", 1)]
    a = obj["selection"][0]
    assert a["best_private_file"] == "perfect.csv" and a["rules"]["best_public"]["lost"] == 0.0
    assert a["rules"]["last"]["file"] == "perfect.csv"


def test_a_team_named_with_escape_sequences_cannot_hide_its_flagged_mark_in_the_tables():
    """Issue 56: the tables printed team names raw; "\\x1b[1A\\x1b[2K" (cursor up, erase line) or a carriage
    return followed by an honest-looking line overwrote the attacker's own FLAGGED row on a terminal."""
    from agrieval.scoring.audit.audit_report import to_text

    rng = np.random.default_rng(3)
    truth, split, values, names = competition(rng, n=2000)
    attack = boosting_attack(rng, truth, split == "public", 300)
    hostile = "x\r\x1b[2Kteam0\x1b]8;;http://e.vil\x07\u202e\x9b2K"
    names = names + [hostile] * len(attack)
    result = audit(np.vstack(values + [attack]), np.arange(len(truth)), split, names,
                   [f"f{i}" for i in range(len(names))], None, competition="toy", metric="accuracy", unit="row",
                   alpha=0.01, n_permutations=999, n_resamples=50)
    text = to_text(result)
    assert not any(c in text for c in "\r\x1b\x07\u202e\x9b")
    flagged_rows = [line for line in text.splitlines() if line.endswith("FLAGGED")]
    assert len(flagged_rows) == 1 and flagged_rows[0].startswith("x%0D%1B[2Kteam0%1B]8;;")
    # every row of the first table keeps its columns: the name never widens or shortens the cell
    first = text.split("\n\n")[1].splitlines()
    assert {line[24] for line in first[1:]} == {" "} and len({len(line.rstrip("FLAGED-")) for line in first[1:]}) == 1
