"""Random sequences of grade, select, void, rescore and the clock against an independent model of the rules
(hypothesis ``RuleBasedStateMachine``): every answer (scored, its number, each refusal's code) and every board
(each rule, public and private: value and rank per team) must be the model's.

The model is written from docs/own_server.md, not from the store's code: limits per UTC day and in total count
scored uploads (voided ones too), rejected uploads count against their own rate over the last hour, the deadline
refuses uploads and the selection deadline selections, a team's latest selection counts, a voided submission or
team is never ranked, a tie keeps the earlier submission, ranks are competition ranks (1, 1, 3). The scores are the
real scorer's, computed once per file (grading itself is replaced by that cache so that the runs stay short).
"""

from __future__ import annotations

import copy
import datetime as dt
import math

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from agrieval.scoring._server import intake
from agrieval.scoring._server.boards import store_board
from agrieval.scoring._server.limits import SubmissionLimits
from agrieval.scoring._server.rescore import rescore
from agrieval.scoring._server.settings import load_competition
from agrieval.scoring._server.submission_log import LogError
from agrieval.scoring._server.timeline import Timeline
from agrieval.scoring.runtime import guard

from .conftest import DAY1, REF, SOL, make_store

FILES = ["partial.csv", "perfect.csv", "over_predicting.csv", "baseline_top5_common.csv", "malformed/missing_row.csv"]
TEAMS = ["a", "b", "c"]
LIMITS = SubmissionLimits(per_day=2, total=4, rejected_per_hour=2)
DEADLINE = DAY1 + dt.timedelta(days=3)
SELECTION_DEADLINE = DAY1 + dt.timedelta(days=4)
K = 2
_REAL_GRADE = guard.grade
_CACHE: dict = {}


def _graded(name: str):
    """The real scorer's result for a file (computed once per test session)."""
    if name not in _CACHE:
        _CACHE[name] = _REAL_GRADE((REF / "submissions" / name).read_bytes(), str(SOL), "plantclef2025",
                                   reveal_private=True, filename=name)
    return _CACHE[name]


def _cached_grade(data, solution, definition, *, filename=None, **kwargs):
    return copy.deepcopy(_graded(filename))


def _values(name: str):
    """(raw public, private, shown) of a scored file, as the model reads them off the real result."""
    result = _graded(name)
    metric = result.report.primary_metric
    raw = result.report.details.get("public_raw", result.metrics.public)[metric]
    return raw, result.metrics.private[metric], result.metrics.public[metric]


def _first_max(rows, key):
    best = None
    for r in rows:
        if best is None or key(r) > key(best):
            best = r
    return best


def _ranks(values: dict) -> dict:
    """Competition ranks, higher is better, ties share the best rank; None for a missing value."""
    have = [v for v in values.values() if v is not None]
    return {t: None if v is None else 1 + sum(o > v for o in have) for t, v in values.items()}


class Rules(RuleBasedStateMachine):
    folders = None  # pytest's tmp_path_factory, set by the test

    def __init__(self):
        super().__init__()
        self.tmp = self.folders.mktemp("model")
        self.store = make_store(self.tmp / "comp.db", limits=LIMITS, selection_limit=K,
                                timeline=Timeline(None, DEADLINE, SELECTION_DEADLINE, None))
        self.competition = load_competition(self.store)  # (loaded once: the solution is read and fingerprinted)
        self.now = DAY1
        self.uploads = []  # dicts: team, at, status, number, file, voided
        self.teams = set()
        self.voided_teams = set()
        self.selections = {}  # team -> the latest selection (a tuple of numbers)

    def _mine(self, team, *statuses):
        return [u for u in self.uploads if u["team"] == team and u["status"] in statuses]

    def _expected_refusal(self, team):
        if team in self.voided_teams:
            return "team_voided"
        if self.now >= DEADLINE:
            return "competition_closed"
        hour = [u for u in self._mine(team, "rejected") if self.now - dt.timedelta(hours=1) < u["at"] <= self.now]
        if len(hour) >= LIMITS.rejected_per_hour:
            return "rejected_rate_reached"
        scored = self._mine(team, "scored")
        if len(scored) >= LIMITS.total or sum(u["at"].date() == self.now.date() for u in scored) >= LIMITS.per_day:
            return "submission_limit_reached"
        return None

    @rule(team=st.sampled_from(TEAMS), file=st.sampled_from(FILES))
    def grade(self, team, file):
        refusal = self._expected_refusal(team)
        self.teams.add(team)
        answer = intake.grade_stored(self.store, (REF / "submissions" / file).read_bytes(), file, team, now=self.now,
                                     competition=self.competition)
        if refusal is not None:
            assert answer.status == "rejected" and [e.code for e in answer.errors] == [refusal]
            self.uploads.append({"team": team, "at": self.now, "status": "refused", "voided": False, "number": None})
            return
        expected = _graded(file).status
        assert answer.status == expected
        upload = {"team": team, "at": self.now, "status": expected, "file": file, "voided": False, "number": None}
        if expected == "scored":
            upload["number"] = len(self._mine(team, "scored")) + 1
            assert answer.report.details["submission"] == upload["number"]
        self.uploads.append(upload)

    @rule(minutes=st.sampled_from([0, 1, 30, 61, 13 * 60, 24 * 60]))
    def time_passes(self, minutes):
        self.now += dt.timedelta(minutes=minutes)

    @rule(team=st.sampled_from(TEAMS), numbers=st.lists(st.integers(1, 5), max_size=3))
    def select(self, team, numbers):
        chosen = tuple(sorted(set(numbers)))
        have = {u["number"] for u in self._mine(team, "scored") if not u["voided"]}
        if self.now >= SELECTION_DEADLINE:
            expected = "selection_closed"
        elif len(chosen) > K or team not in self.teams or not set(chosen) <= have:
            expected = "bad_selection"
        else:
            expected = None
        try:
            intake.select(self.store, team, numbers, now=self.now)
        except LogError as exc:
            assert exc.code == expected
        else:
            assert expected is None
            self.selections[team] = chosen

    @rule(team=st.sampled_from(TEAMS), number=st.integers(1, 5))
    def void_submission(self, team, number):
        target = [u for u in self._mine(team, "scored") if u["number"] == number and not u["voided"]]
        try:
            intake.void_submission(self.store, team, number, "test", now=self.now)
        except LogError as exc:
            assert exc.code == "bad_void" and not target
        else:
            target[0]["voided"] = True

    @rule(team=st.sampled_from(TEAMS))
    def void_team(self, team):
        try:
            intake.void_team(self.store, team, "test", now=self.now)
        except LogError as exc:
            assert exc.code == "bad_void" and (team not in self.teams or team in self.voided_teams)
        else:
            assert team in self.teams and team not in self.voided_teams
            self.voided_teams.add(team)

    @rule(confirm=st.booleans())
    def rescore(self, confirm):
        report = rescore(self.store, self.competition, confirm=confirm, jobs=1, now=self.now)
        assert report["rank_changes"] == [] and report["status_changes"] == []  # the same scorer: nothing moves

    def _model_board(self, rule, reveal):
        public, private = {}, {}
        # a team is listed when it has an upload that is not voided (refused ones too); one whose only uploads were
        # voided is left off (as the store does: noticed, docs/own_server.md's "Attacked")
        for team in sorted({u["team"] for u in self.uploads if not u["voided"]}):
            scored = [u for u in self._mine(team, "scored") if not u["voided"]]
            public[team] = private[team] = None
            if not scored:
                continue
            value = {id(u): _values(u["file"]) for u in scored}
            if rule == "last":
                shown, counted = scored[-1], [scored[-1]]
            else:
                shown = _first_max(scored, lambda u: value[id(u)][2])
                if rule == "best":
                    counted = [_first_max(scored, lambda u: value[id(u)][0])]
                else:
                    picked = set(self.selections.get(team, ()))
                    counted = [u for u in scored if u["number"] in picked][:K]
                    if not counted:
                        best = sorted(range(len(scored)), key=lambda i: (-value[id(scored[i])][0], i))[:K]
                        counted = [scored[i] for i in sorted(best)]
            public[team] = value[id(shown)][2]
            private[team] = value[id(_first_max(counted, lambda u: value[id(u)][1]))][1]
        ranked = {t: (None if t in self.voided_teams else v) for t, v in public.items()}
        model = {t: (public[t], r, t in self.voided_teams) for t, r in _ranks(ranked).items()}
        if reveal:
            private_ranks = _ranks({t: (None if t in self.voided_teams else v) for t, v in private.items()})
            model = {t: (*row, private[t], private_ranks[t]) for t, row in model.items()}
        return model

    @invariant()
    def boards_are_the_models(self):
        definition = self.competition.definition
        for rule_name in ("best", "last", "selected"):
            for reveal in (False, True):
                board = store_board(self.store, definition, rule_name, reveal_private=reveal)
                got = {}
                for r in board.rows:
                    public = None if math.isnan(r.choice.public) else r.choice.public
                    row = (public, r.public_rank, r.voided)
                    if reveal:
                        private = None if math.isnan(r.choice.private) else r.choice.private
                        row = (*row, private, r.private_rank)
                    got[r.team] = row
                assert got == self._model_board(rule_name, reveal), (rule_name, reveal)

    def teardown(self):
        self.store.close()


def test_the_store_follows_the_rules(tmp_path_factory, monkeypatch):
    monkeypatch.setattr(guard, "grade", _cached_grade)
    monkeypatch.setattr(Rules, "folders", tmp_path_factory)
    run_state_machine_as_test(Rules, settings=settings(
        max_examples=25, stateful_step_count=20, deadline=None, derandomize=True,
        suppress_health_check=[HealthCheck.too_slow]))
