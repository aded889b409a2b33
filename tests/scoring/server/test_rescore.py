"""``server rescore`` attacked: uploads graded while it runs, kept bytes that went missing or were changed."""

from __future__ import annotations

import math

import pytest

from agrieval.scoring._server import intake
from agrieval.scoring._server import rescore as rescore_module
from agrieval.scoring._server.boards import store_board
from agrieval.scoring._server.rescore import rescore
from agrieval.scoring._server.settings import load_competition
from agrieval.scoring._server.store import StoreError, open_store

from .conftest import DAY1, make_store, upload


def test_an_upload_graded_while_rescore_runs_keeps_its_score(store_path, monkeypatch):
    store = make_store(store_path)
    intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    score = rescore_module._score
    during = []

    def score_and_let_another_team_upload(job):
        if not during:  # the rescore took its snapshot; another process grades an upload now
            during.append(intake.grade_stored(open_store(store_path), upload("perfect.csv"), "q.csv", "b", now=DAY1))
        return score(job)

    monkeypatch.setattr(rescore_module, "_score", score_and_let_another_team_upload)
    report = rescore(store, load_competition(store), confirm=True, jobs=1)
    assert during[0].status == "scored" and report["published"]
    rows = {r.team: r for r in store_board(open_store(store_path), load_competition(store).definition, "best").rows}
    assert rows["b"].choice.n_scored == 1 and rows["b"].choice.public == 1.0 and rows["b"].public_rank == 1


def test_a_grader_that_loaded_the_settings_before_a_confirm_publishes_its_score(store_path):
    store = make_store(store_path)
    intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    loaded_before = load_competition(store)  # a grader started before the organizer confirmed
    rescore(store, load_competition(store), confirm=True, jobs=1)
    intake.grade_stored(open_store(store_path), upload("perfect.csv"), "q.csv", "b", now=DAY1,
                        competition=loaded_before)
    rows = {r.team: r for r in store_board(open_store(store_path), loaded_before.definition, "best").rows}
    assert rows["b"].choice.public == 1.0 and not math.isnan(rows["a"].choice.public)


@pytest.mark.parametrize("harm", ["missing", "changed"])
def test_kept_bytes_that_went_missing_or_changed_stop_the_rescore(store_path, harm):
    store = make_store(store_path)
    intake.grade_stored(store, upload("partial.csv"), "p.csv", "a", now=DAY1)
    (kept,) = (store_path.parent / "comp.db.uploads").iterdir()
    if harm == "missing":
        kept.unlink()
    else:
        kept.write_bytes(upload("perfect.csv"))  # someone "fixed" a team's upload on disk
    with pytest.raises(StoreError) as err:
        rescore(store, load_competition(store), confirm=True, jobs=1)
    assert err.value.code == "store_upload_lost" and "upload 1" in str(err.value)
    assert store.conn.execute("SELECT max(version) FROM score_versions").fetchone()[0] == 1  # nothing written


def test_the_audit_refuses_changed_kept_bytes_and_an_edited_solution(store_path, tmp_path):
    import json
    import shutil

    from click.testing import CliRunner

    from agrieval.scoring._server.limits import SubmissionLimits
    from agrieval.scoring._server.settings import new_settings, write_settings
    from agrieval.scoring._server.store import create_store
    from agrieval.scoring._server.timeline import Timeline
    from agrieval.scoring.cli.main import cli

    from .conftest import SOL

    solution = tmp_path / "solution.csv"
    shutil.copy(SOL, solution)
    store = create_store(store_path)
    write_settings(store, new_settings("plantclef2025", str(solution), SubmissionLimits(), Timeline(), 2, False), DAY1)
    for team, name in [("a", "partial.csv"), ("b", "perfect.csv")]:
        intake.grade_stored(store, upload(name), name, team, now=DAY1)
    audit = ["audit", str(store_path), "--json", "--permutations", "99", "--resamples", "10"]
    kept = sorted((store_path.parent / "comp.db.uploads").iterdir())[0]
    original = kept.read_bytes()
    kept.write_bytes(upload("over_predicting.csv"))
    out = CliRunner().invoke(cli, audit)
    assert out.exit_code == 3 and "store_upload_lost" in out.output, out.output
    kept.write_bytes(original)
    lines = solution.read_text().splitlines()
    solution.write_text("\n".join(lines[:-1]) + "\n")  # the organizer "fixed" the truth after init
    out = CliRunner().invoke(cli, audit)
    assert out.exit_code == 3 and "store_foreign" in out.output, out.output
    solution.write_text("\n".join(lines) + "\n")
    assert json.loads(CliRunner().invoke(cli, audit).stdout)["teams"]


def _units(name: str) -> tuple:
    """An upload's public unit values and metrics, from the runtime alone (the oracle's input)."""
    from agrieval.scoring.runtime.guard import grade

    from .conftest import SOL

    result = grade(upload(name), str(SOL), "plantclef2025", unit_values=True, filename=name)
    units = result.report.details["public"].pop("ladder_unit_values")
    return units, dict(result.metrics.public)


def test_the_next_upload_after_a_confirmed_rescore_continues_from_the_replayed_ladder(store_path, monkeypatch):
    """A rescore replays each team's Ladder; once confirmed, the team's next upload must continue from that
    replay, not from the state the old scorer left (compared with a replay by ``runtime.ladder`` alone)."""
    from agrieval.scoring.runtime import _ladder as ladder

    store = make_store(store_path, ladder=True)
    for name in ("partial.csv", "perfect.csv"):
        assert intake.grade_stored(store, upload(name), name, "a", now=DAY1).status == "scored"
    score = rescore_module._score
    rescored = {}

    def fixed_scorer(job):  # the fixed scorer finds submission 2 much worse than the old one did
        uid, status, public, private, units, metrics = score(job)
        if uid == 2:
            units = [u * 0.1 for u in units]
            metrics = {k: v * 0.1 for k, v in metrics.items()}
            public *= 0.1
        rescored[uid] = (units, metrics)
        return uid, status, public, private, units, metrics

    monkeypatch.setattr(rescore_module, "_score", fixed_scorer)
    rescore(store, load_competition(store), confirm=True, jobs=1)
    monkeypatch.undo()
    answer = intake.grade_stored(store, upload("baseline_top5_common.csv"), "b.csv", "a", now=DAY1)
    assert answer.status == "scored"

    metric = load_competition(store).definition.primary_metric
    oracle = ladder.State("plantclef2025", metric, "transect", len(rescored[1][0]), load_competition(store)
                          .settings.solution_sha256)
    decisions = [ladder.decide(oracle, *rescored[1]), ladder.decide(oracle, *rescored[2]),
                 ladder.decide(oracle, *_units("baseline_top5_common.csv"))]
    assert [d.released for d in decisions[:2]] == [True, False]  # the replay changed which submission is shown
    import json

    kept = ladder.state_from_dict(json.loads(store.conn.execute("SELECT state FROM ladder").fetchone()[0]))
    assert kept.n_submissions == oracle.n_submissions == 3
    assert [h["released"] for h in kept.history] == [h["released"] for h in oracle.history]
    assert kept.released["shown"] == oracle.released["shown"]
    shown = store.conn.execute("SELECT shown FROM scores WHERE upload = 3").fetchone()[0]
    assert shown == decisions[2].shown[metric] == answer.metrics.public[metric]
