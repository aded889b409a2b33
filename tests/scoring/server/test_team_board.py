"""An organizer's whole competition on the own server: several teams, many submissions each, a limit hit,
final selections, the reveal; one row per team with the ranks the rules give.

Each submission is built from the solution so that what it scores is known by construction: ``1`` every
row of a split right, ``0`` every row of it empty (F1 0), ``H`` the first half of that split's rows right.
The board is checked against the rules applied by hand to those values, and every value against an
independent recomputation of transect F1 (per-row F1, mean within each transect, then across transects).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring._server.boards import store_rows
from agrieval.scoring._server.intake import grade_stored, select
from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.settings import new_settings, write_settings
from agrieval.scoring._server.store import create_store, open_store
from agrieval.scoring._server.submission_log import LogRow
from agrieval.scoring._server.team_board import team_board, to_csv, to_html, to_markdown
from agrieval.scoring._server.timeline import Timeline
from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli
from agrieval.scoring.leaderboard.build import build_leaderboard

REF = Path(__file__).resolve().parents[3] / "reference_submissions" / "plantclef2025"
SOL = REF / "solution.csv"
DEF = load_competition("plantclef2025")
HOSTILE = '<img src=x onerror="alert(1)"> =cmd|team'  # a team name is the participant's text
DAY1 = dt.datetime(2026, 5, 1, 9, 0, tzinfo=dt.timezone.utc)


def _solution() -> list[dict]:
    with SOL.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _write(path: Path, public: str, private: str) -> Path:
    """A submission right on all (``1``), none (``0``) or the first half (``H``) of each split's rows."""
    rows = _solution()
    seen = {"Public": 0, "Private": 0}
    n = {u: sum(r["Usage"] == u for r in rows) for u in seen}
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(["quadrat_id", "species_ids"])
        for r in rows:
            u = r["Usage"]
            want = public if u == "Public" else private
            right = want == "1" or (want == "H" and seen[u] < n[u] // 2)
            seen[u] += 1
            w.writerow([r["quadrat_id"], r["species_ids"] if right else "[]"])
    return path


def _oracle(want: str, split: str) -> float:
    """Transect F1 of a ``_write`` file on one split, computed independently of the scorer: the rows are right
    (F1 1) or empty (F1 0, or 1 where the truth is empty too: the definition's empty_both_score); transect = the id without its trailing date, as the definition's rule says."""
    rows = [r for r in _solution() if r["Usage"] == split]
    by_transect: dict[str, list[float]] = {}
    for i, r in enumerate(rows):
        right = want == "1" or (want == "H" and i < len(rows) // 2) or r["species_ids"] == "[]"  # both empty: 1
        by_transect.setdefault(r["quadrat_id"].rsplit("-", 1)[0], []).append(1.0 if right else 0.0)
    means = [sum(v) / len(v) for v in by_transect.values()]
    return sum(means) / len(means)


# team -> its uploads in order: (public, private) or "bad" (a file with a wrong header), and the day
PLAN = {
    "alpha": [("0", "0", 1), ("H", "H", 1), ("1", "0", 2)],  # its best public one overfits the public split
    "beta": [("H", "1", 1), ("0", "0", 1)],
    "gamma": [("1", "1", 1), ("0", "0", 1), ("H", "0", 1), ("H", "H", 2)],  # 3rd of day 1: over the limit
    HOSTILE: ["bad", ("0", "1", 1)],
}
LIMITS = SubmissionLimits(per_day=2, total=10)


def _store(path: Path, limits: SubmissionLimits = SubmissionLimits(), ladder: bool = False):
    """The own server's store of this competition (``agrieval server init``)."""
    store = create_store(path)
    write_settings(store, new_settings("plantclef2025", str(SOL), limits, Timeline(), 2, ladder), DAY1)
    store.close()
    return open_store(path)


def _grade(store, path: Path, team: str, now: dt.datetime):
    return grade_stored(store, path.read_bytes(), path.name, team, now=now)


def read_log(store):
    """The store's rows as the boards read them (the former log's name kept for these tests' reading)."""
    return store_rows(store)


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    folder = tmp_path_factory.mktemp("server")
    log = _store(folder / "comp.db", LIMITS)
    answers = {}
    for t, (team, uploads) in enumerate(PLAN.items()):
        for i, up in enumerate(uploads):
            path = folder / f"t{t}-{i}.csv"
            if up == "bad":
                path.write_text("id,species\nx,[1]\n")
                day = 1
            else:
                _write(path, up[0], up[1])
                day = up[2]
            now = DAY1 + dt.timedelta(days=day - 1, minutes=10 * i)
            answers[(team, i)] = _grade(log, path, team, now)
    select(log, "alpha", [2], now=DAY1 + dt.timedelta(days=3))
    return folder, log, answers


def test_the_limit_refuses_without_grading_and_says_when(competition):
    _, log, answers = competition
    refused = answers[("gamma", 2)]
    assert refused.status == "rejected" and refused.exit_code == 1
    assert [e.code for e in refused.errors] == ["submission_limit_reached"]
    assert "2026-05-02T00:00:00Z" in refused.errors[0].message
    assert refused.metrics.private is None  # nothing graded, nothing private
    rows = read_log(log)
    gamma = [(r.status, r.submission) for r in rows if r.team == "gamma"]
    assert gamma == [("scored", 1), ("scored", 2), ("refused", None), ("scored", 3)]
    assert answers[("gamma", 3)].status == "scored"  # the next day is a new day


def test_participants_never_see_a_private_value_before_the_reveal(competition):
    _, _, answers = competition
    for result in answers.values():
        assert result.metrics.private is None
        assert "private" not in json.dumps(result.participant_view())


def test_the_log_holds_raw_values_that_agree_with_an_independent_computation(competition):
    _, log, _ = competition
    rows = [r for r in read_log(log) if r.status == "scored"]
    for r in rows:
        t, i = (int(x) for x in Path(r.file).stem[1:].split("-"))
        public, private, _ = list(PLAN.values())[t][i]
        assert r.public == pytest.approx(_oracle(public, "Public"), abs=1e-12)
        assert r.private == pytest.approx(_oracle(private, "Private"), abs=1e-12)
        assert r.shown == r.public  # no Ladder, no rounding: what was shown is the raw value
    bad = [r for r in read_log(log) if r.team == HOSTILE][0]
    assert bad.status == "rejected" and bad.submission is None and "missing_column" in bad.codes  # scored only


H_PUB, H_PRIV = _oracle("H", "Public"), _oracle("H", "Private")
Z_PUB, Z_PRIV = _oracle("0", "Public"), _oracle("0", "Private")  # empty files: 1 only on empty-truth rows
assert 0 <= Z_PUB < H_PUB < 1 and 0 <= Z_PRIV < H_PRIV < 1  # the ordering the expectations rely on


@pytest.mark.parametrize("rule, private, ranks", [
    # best: the best public submission of each team counts (alpha's overfit one: 0 private)
    ("best", {"alpha": Z_PRIV, "beta": 1.0, "gamma": 1.0, HOSTILE: 1.0}, {"beta": 1, "gamma": 1, HOSTILE: 1, "alpha": 4}),
    # last: the last scored one (beta's last is its empty file; gamma's the day-2 half file)
    ("last", {"alpha": Z_PRIV, "beta": Z_PRIV, "gamma": H_PRIV, HOSTILE: 1.0}, {HOSTILE: 1, "gamma": 2, "alpha": 3, "beta": 3}),
    # selected: alpha chose its 2nd; the others chose none: the best private of their 2 best public
    ("selected", {"alpha": H_PRIV, "beta": 1.0, "gamma": 1.0, HOSTILE: 1.0},
     {"beta": 1, "gamma": 1, HOSTILE: 1, "alpha": 4}),
])
def test_the_revealed_board_has_one_row_per_team_with_the_rules_ranks(competition, rule, private, ranks):
    _, log, _ = competition
    board = team_board(read_log(log), DEF, rule=rule, reveal_private=True)
    assert len(board.rows) == len(PLAN)
    assert board.rows == sorted(board.rows, key=lambda r: (r.private_rank, r.public_rank, r.team))  # ties: public
    for r in board.rows:
        assert r.choice.private == pytest.approx(private[r.team], abs=1e-12)
        assert r.private_rank == ranks[r.team]
    public = {"alpha": 1.0, "beta": H_PUB, "gamma": 1.0, HOSTILE: Z_PUB}
    for r in board.rows:  # the public board: the best value each team was shown (its last one under "last")
        want = {"alpha": 1.0, "beta": Z_PUB, "gamma": H_PUB, HOSTILE: Z_PUB}[r.team] if rule == "last" else public[r.team]
        assert r.choice.public == pytest.approx(want, abs=1e-12)


def test_the_public_board_is_publishable_and_escapes_team_names(competition):
    _, log, _ = competition
    board = team_board(read_log(log), DEF, rule="best")
    assert {r.team: r.public_rank for r in board.rows} == {"alpha": 1, "gamma": 1, "beta": 3, HOSTILE: 4}
    html, md, table = to_html(board), to_markdown(board), to_csv(board)
    assert "<img" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "<script" not in html and "http" not in html  # a static page: no script, nothing fetched
    assert "\\<img" in md
    assert "'<img" not in table and "=cmd" in table  # the name starts with "<": no formula to neutralise
    for text in (html, md, table):
        assert "private" not in text.lower().replace("private split", "")  # nothing private before the reveal


def test_the_command_builds_the_board_from_the_store(competition, tmp_path):
    folder, log, _ = competition
    out = tmp_path / "board"
    r = CliRunner().invoke(cli, ["server", "board", log.path, "--rule", "selected", "--reveal-private", "--out",
                                 str(out), "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)
    assert obj["board"] == "private" and obj["rule"] == "selected"
    assert [t["team"] for t in obj["rows"]][-1] == "alpha"
    assert sorted(p.name for p in out.iterdir()) == ["leaderboard.csv", "leaderboard.html", "leaderboard.json",
                                                     "leaderboard.md"]
    board = build_leaderboard(folder, SOL, DEF, n_resamples=0)  # the per-file board of the uploads' folder
    assert len(board.entries) == sum(len(v) for v in PLAN.values())


def test_a_selection_of_an_unknown_or_too_many_submissions_is_refused(competition):
    from agrieval.scoring._server.submission_log import LogError

    _, log, _ = competition
    with pytest.raises(LogError, match="no scored submission numbered 9"):
        select(log, "beta", [9])
    with pytest.raises(LogError, match="at most 2"):
        select(log, "beta", [1, 2, 3])


def test_the_ladder_released_value_is_the_public_board(tmp_path):
    log = _store(tmp_path / "comp.db", ladder=True)
    for i, (pub, priv) in enumerate([("H", "H"), ("1", "1"), ("H", "0")]):
        path = _write(tmp_path / f"s{i}.csv", pub, priv)
        _grade(log, path, "solo", DAY1)
    state = json.loads(log.conn.execute("SELECT state FROM ladder WHERE team = 'solo'").fetchone()[0])
    board = team_board(read_log(log), DEF, rule="last")
    assert board.rows[0].choice.public == state["released"]["shown"]["transect_f1"] == 1.0
    shown = [r.shown for r in read_log(log)]
    assert shown[-1] == 1.0 and read_log(log)[-1].public == pytest.approx(H_PUB)  # held back: raw stays host-side


def test_grade_command_refuses_over_the_limit_with_exit_1(tmp_path):
    sub = _write(tmp_path / "a.csv", "H", "H")
    _store(tmp_path / "comp.db", SubmissionLimits(total=1)).close()
    args = ["grade", str(sub), "--team", "t", "--store", str(tmp_path / "comp.db"),
            "--now", "2026-05-01T10:00:00Z", "--participant-only"]
    first = CliRunner().invoke(cli, args, catch_exceptions=False)
    second = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert first.exit_code == 0 and second.exit_code == 1
    assert json.loads(second.stdout)["errors"][0]["code"] == "submission_limit_reached"
    missing = CliRunner().invoke(cli, ["grade", str(sub), "-s", str(SOL), "-c", "plantclef2025",
                                       "--ladder", str(tmp_path / "nowhere" / "s.json")])
    assert missing.exit_code == 3 and "folder_not_found" in missing.stderr
    report = json.loads(missing.stdout)  # the participant's side says nothing of it; the operator's names it
    assert report["errors"][0]["code"] == "internal_error"
    assert report["host"]["diagnostics"][0]["code"] == "folder_not_found"


from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from('<>&"\'=+-@|\\`*_[]#\n\r\t\u202e\x00 aZ9é'), max_size=30))
def test_a_team_name_is_refused_or_round_trips_and_lands_escaped(tmp_path_factory, name):
    from agrieval.scoring._server.submission_log import LogError, check_team

    try:
        check_team(name)
    except LogError as exc:
        assert exc.code == "bad_team"
        return
    rows = [LogRow(name, DAY1, "f.csv", "scored", 1, public=0.5, private=0.25, shown=0.5)]
    board = team_board(rows, DEF, reveal_private=True)
    page = to_html(board)
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    assert body.count("<") == body.count(">") == 2 * 8 + 2  # only our own tags: 8 cells and the row


def test_a_malformed_audit_json_is_a_coded_error_naming_the_file(tmp_path):
    bad = tmp_path / "audit.json"
    bad.write_text('{"teams": [')
    r = CliRunner().invoke(cli, ["leaderboard", str(REF / "submissions"), "-s", str(SOL), "-c", "plantclef2025",
                                 "--resamples", "0", "--out", str(tmp_path / "lb"), "--audit", str(bad)])
    # read by the one opening rule: its code for a file that is not JSON (docs/untrusted_input.md)
    assert r.exit_code == 1 and f"{bad}: error [json_invalid]" in r.stderr


def test_concurrent_uploads_of_a_team_cannot_both_pass_the_limit(tmp_path):
    """Six `agrieval grade --store` processes at once, a limit of 4 a day: exactly 4 are scored."""
    import os
    import subprocess
    import sys

    sub = _write(tmp_path / "a.csv", "H", "H")
    _store(tmp_path / "comp.db", SubmissionLimits(per_day=4)).close()
    cmd = [sys.executable, "-m", "agrieval.scoring.cli.main", "grade", str(sub), "--team", "t", "--store",
           str(tmp_path / "comp.db"), "--now", "2026-05-01T10:00:00Z", "--participant-only"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
             for _ in range(6)]
    codes = sorted(p.wait(timeout=180) for p in procs)
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert codes == [0, 0, 0, 0, 1, 1]
    rows = read_log(open_store(tmp_path / "comp.db"))
    assert sorted(r.status for r in rows) == ["refused"] * 2 + ["scored"] * 4
    assert sorted(r.submission for r in rows if r.status == "scored") == [1, 2, 3, 4]  # no number lost or doubled
    assert not [p for p in (tmp_path / "comp.db.uploads").iterdir() if p.name.endswith(".tmp")]  # no temporary left
