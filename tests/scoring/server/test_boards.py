"""Readers of the store: selection, void, boards, export, import of a real former log, audit, rescore."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring._server import intake
from agrieval.scoring._server.boards import store_board
from agrieval.scoring._server.export import export
from agrieval.scoring._server.migrate_log import import_log
from agrieval.scoring._server.submission_log import LogError
from agrieval.scoring._server.timeline import Timeline, utc_text
from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli

from .conftest import DAY1, SUBS, make_store, upload

DEF = load_competition("plantclef2025")
HOUR = dt.timedelta(hours=1)
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "own_server_log"


def _insert(store, team, number, public, private, shown=None, at=DAY1):
    """A scored upload written directly (the boards read rows, whoever wrote them)."""
    with store.immediate() as conn:
        conn.execute("INSERT OR IGNORE INTO teams (name) VALUES (?)", (team,))
        uid = conn.execute("INSERT INTO uploads (team, submitted_at, name, status, number) VALUES (?, ?, ?, "
                           "'scored', ?)", (team, utc_text(at), b"x.csv", number)).lastrowid
        conn.execute("INSERT INTO scores (upload, version, public, private, shown) VALUES (?, 1, ?, ?, ?)",
                     (uid, public, private, public if shown is None else shown))


def test_ties_keep_the_earlier_submission_and_the_latest_selection_counts(store_path):
    store = make_store(store_path)
    for n, (pub, priv) in enumerate([(0.5, 0.1), (0.5, 0.9), (0.4, 0.8), (0.4, 0.2)], 1):
        _insert(store, "a", n, pub, priv)
    best = store_board(store, DEF, "best", reveal_private=True).rows[0].choice
    assert best.counted == (1,) and best.private == 0.1  # the earlier of two equal public scores
    # k = 2 best public, no selection: 1 and 2 (not 3/4, the later ties at 0.4)
    assert store_board(store, DEF, "selected", reveal_private=True).rows[0].choice.counted == (1, 2)
    intake.select(store, "a", [3], now=DAY1)
    intake.select(store, "a", [4], now=DAY1 + HOUR)
    chosen = store_board(store, DEF, "selected", reveal_private=True).rows[0].choice
    assert chosen.counted == (4,) and chosen.private == 0.2  # the latest selection, not the first


def test_selection_deadline_and_unknown_numbers(store_path):
    store = make_store(store_path, timeline=Timeline(selection_deadline=DAY1 + HOUR))
    _insert(store, "a", 1, 0.5, 0.5)
    with pytest.raises(LogError) as exc:
        intake.select(store, "a", [2], now=DAY1)
    assert exc.value.code == "bad_selection" and "may select 1" in exc.value.message
    with pytest.raises(LogError) as exc:
        intake.select(store, "a", [1], now=DAY1 + HOUR)
    assert exc.value.code == "selection_closed"
    assert store.conn.execute("SELECT count(*) FROM selections").fetchone()[0] == 0


def test_void_a_submission_and_a_team(store_path):
    store = make_store(store_path)
    _insert(store, "a", 1, 0.9, 0.9)
    _insert(store, "a", 2, 0.3, 0.3)
    _insert(store, "b", 1, 0.5, 0.5)
    _insert(store, "c", 1, 0.7, 0.7)
    intake.void_submission(store, "a", 1, "leaked labels")
    intake.void_team(store, "c", "two accounts")
    board = store_board(store, DEF, "best", reveal_private=True)
    ranks = {r.team: (r.private_rank, r.voided, r.choice.private) for r in board.rows}
    assert ranks == {"b": (1, False, 0.5), "a": (2, False, 0.3), "c": (None, True, 0.7)}
    assert intake.grade_stored(store, upload("perfect.csv"), "p.csv", "c", now=DAY1).errors[0].code == "team_voided"
    runner = CliRunner()
    out = runner.invoke(cli, ["server", "board", str(store_path), "--rule", "best", "--json"])
    rows = json.loads(out.stdout)["rows"]
    assert [(r["team"], r["rank"], r["voided"]) for r in rows] == [("b", 1, False), ("a", 2, False),
                                                                   ("c", None, True)]
    assert set(rows[0]) >= {"team", "rank", "voided", "submissions", "public"}


@pytest.mark.parametrize("team", ["=HYPERLINK(\"http://x\")", "+1+cmd", "-2+3", "@SUM(A1)"])
def test_a_formula_like_team_name_is_neutralised_in_every_export(store_path, tmp_path, team):
    store = make_store(store_path)
    intake.grade_stored(store, upload("partial.csv"), "<b>x</b>.csv", team, now=DAY1)
    written = export(store, DEF, tmp_path / "out", rule="best")
    for path in written:
        text = path.read_text()
        if path.suffix == ".csv":
            cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
            assert "'" + team in cells and team not in cells
        elif path.suffix == ".json":
            assert team in repr(json.loads(text))  # verbatim data
        else:
            assert "<b>" not in text


def test_import_of_a_real_log_gives_the_same_boards(tmp_path):
    """tests/fixtures/own_server_log: a log, Ladder states and boards made by the former `grade --log`."""
    work = tmp_path / "server"
    shutil.copytree(FIXTURE, work)
    store = make_store(tmp_path / "comp.db", ladder=True, selection_limit=2)
    counts = import_log(store, work / "log.csv", work / "ladder", max_bytes=DEF.limits.max_bytes)
    assert counts == {"uploads": 17, "selections": 3, "kept_files": 15, "ladder_states": 3}
    for rule in ("best", "last", "selected"):
        for reveal, name in ((True, f"board_{rule}.json"), (False, f"public_board_{rule}.json")):
            from agrieval.scoring._server.team_board import to_dict

            got = to_dict(store_board(store, DEF, rule, reveal_private=reveal))
            want = json.loads((FIXTURE / name).read_text())
            for row in got["teams"]:
                assert row.pop("voided") is False
            assert got == want, (rule, reveal)
    # the Ladder carries on from the imported state: alpha's released submission is its perfect one
    nxt = intake.grade_stored(store, upload("partial.csv"), "p.csv", "alpha", now=DAY1 + 48 * HOUR)
    assert nxt.metrics.public["transect_f1"] == 1.0 and nxt.report.details["submission"] == 7


def test_audit_reads_what_grade_wrote(store_path):
    make_store(store_path).close()
    runner = CliRunner()
    for team, name in [("a", "partial.csv"), ("a", "perfect.csv"), ("b", "baseline_top5_common.csv"),
                       ("b", "over_predicting.csv")]:
        assert runner.invoke(cli, ["grade", str(SUBS / name), "--team", team, "--store", str(store_path)]).exit_code == 0
    out = runner.invoke(cli, ["audit", str(store_path), "--json", "--permutations", "99", "--resamples", "10"])
    assert out.exit_code == 0, out.output
    audited = json.loads(out.stdout)
    assert {t["team"]: t["n_submissions"] for t in audited["teams"]} == {"a": 2, "b": 2}


def test_rescore_lists_changed_ranks_and_publishes_only_when_confirmed(store_path):
    store = make_store(store_path)
    intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    intake.grade_stored(store, upload("baseline_top5_common.csv"), "b.csv", "b", now=DAY1)
    # a scorer bug of the past: team b's score was recorded too high
    with store.immediate() as conn:
        conn.execute("UPDATE scores SET public = 0.99, private = 0.99, shown = 0.99 WHERE upload = 2")
    from agrieval.scoring._server.rescore import rescore
    from agrieval.scoring._server.settings import load_competition as load_stored

    before = [r.team for r in store_board(store, DEF, "best").rows]
    report = rescore(store, load_stored(store), jobs=2)
    assert not report["published"] and before == ["b", "a"]
    assert [r.team for r in store_board(store, DEF, "best").rows] == ["b", "a"]  # nothing published
    changed = {(c["rule"], c["board"], c["team"], c["rank"], c["would_be"]) for c in report["rank_changes"]}
    assert ("best", "public", "a", 2, 1) in changed and ("best", "private", "b", 1, 2) in changed
    rescore(store, load_stored(store), jobs=1, confirm=True)
    assert [r.team for r in store_board(store, DEF, "best").rows] == ["a", "b"]


def _oracle(history, rule, k=2):
    """Ranks computed here from the generated history: the rules as the docs state them."""
    values = {}
    for team, subs in history.items():
        if not subs:
            continue
        if rule == "best":
            i = max(range(len(subs)), key=lambda j: (subs[j][0], -j))
            values[team] = subs[i][1]
        elif rule == "last":
            values[team] = subs[-1][1]
        else:
            order = sorted(range(len(subs)), key=lambda j: (-subs[j][0], j))[:k]
            values[team] = max(subs[j][1] for j in order)
    ranks = {}
    for team, v in values.items():
        ranks[team] = 1 + sum(w > v for w in values.values())
    return ranks


scores = st.floats(0, 1, allow_nan=False).map(lambda x: round(x, 2))


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.sampled_from(["t1", "t2", "t3", "t4"]),
                       st.lists(st.tuples(scores, scores), min_size=1, max_size=5), min_size=1),
       st.sampled_from(["best", "last", "selected"]))
def test_boards_from_the_store_equal_an_independent_computation(tmp_path_factory, history, rule):
    store = make_store(tmp_path_factory.mktemp("h") / "comp.db")
    at = DAY1
    for team, subs in sorted(history.items()):
        for n, (pub, priv) in enumerate(subs, 1):
            at += dt.timedelta(minutes=1)
            _insert(store, team, n, pub, priv, at=at)
    board = store_board(store, DEF, rule, reveal_private=True)
    assert {r.team: r.private_rank for r in board.rows} == _oracle(history, rule)
    assert all(not math.isnan(r.choice.private) for r in board.rows)
