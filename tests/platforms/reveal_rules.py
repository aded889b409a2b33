"""Stand-ins for what each platform's site does around the reveal: who may submit, what gets scored, which
submission a board ranks. Each rule restates the platform's code (repository, commit, file, line), as
scripts/platform_checks/reveal_rules.py checks it against that code itself; CI has no network, so the tests
drive these (tests/platforms/test_reveal_steps.py) with the configurations the bundles write.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CodabenchSite", "Refused", "evalai_created_splits", "evalai_board", "codalab_v1_participate"]


class Refused(Exception):
    """The site refuses the request (PermissionDenied / PermissionError in the platform's code)."""


@dataclass
class Submission:
    owner: str
    phase: int
    public: float
    private: float
    started: bool = False
    migrated: bool = False

    def score(self, task: int):
        return (self.public, self.private)[task] if self.started else None


@dataclass
class CodabenchSite:
    """codalab/codabench c7dbc756, one competition created from a bundle's competition.yaml."""

    config: dict
    participants: dict = field(default_factory=dict)
    submissions: list = field(default_factory=list)

    def __post_init__(self):
        # unpackers/v2.py ~19: auto_run_submissions read with a default of True
        self.auto_run = self.config.get("auto_run_submissions", True)

    def register(self, user: str) -> str:
        # api/views/competitions.py register ~351-375
        self.participants[user] = "approved" if self.config["registration_auto_approve"] else "pending"
        return self.participants[user]

    def approve(self, user: str) -> None:
        self.participants[user] = "approved"

    def submit(self, user: str, phase: int, public: float, private: float) -> Submission:
        """Through the API: no date is checked (the upload page offers only the Current phase)."""
        # api/serializers/submissions.py SubmissionCreationSerializer.validate ~157-163
        if self.participants.get(user) != "approved":
            raise Refused("You do not have access to this competition to make a submission")
        # competitions/models.py Phase.can_user_make_submissions ~326-345 (0: no limit), called by Submission.save
        p = self.config["phases"][phase]
        mine = [s for s in self.submissions if s.owner == user and s.phase == phase]
        if p.get("max_submissions") and len(mine) >= p["max_submissions"]:
            raise Refused("Reached maximum allowed submissions for this phase")
        sub = Submission(user, phase, public, private)
        self.submissions.append(sub)
        # SubmissionCreationSerializer.create ~128-131: started only with auto_run_submissions
        sub.started = self.auto_run
        return sub

    def migrate(self) -> None:
        """competitions/models.py Competition.apply_phase_migration ~116-170: each participant's submission on
        the previous phase's leaderboard (Force_Last: the last finished) is submitted again, limits ignored,
        and started."""
        target = next(i for i, p in enumerate(self.config["phases"]) if p.get("auto_migrate_to_this_phase"))
        for owner, sub in self.board(target - 1).items():
            self.submissions.append(Submission(owner, target, sub.public, sub.private, started=True, migrated=True))

    def task(self, phase: int) -> int:
        return self.config["phases"][phase]["tasks"][0]

    def board(self, phase: int) -> dict:
        """Force_Last (leaderboards/strategies.py ~113): each owner's last scored submission of the phase."""
        last = {}
        for s in self.submissions:
            if s.phase == phase and s.score(self.task(phase)) is not None:
                last[s.owner] = s
        return last

    def scores(self, phase: int) -> dict:
        return {o: s.score(self.task(phase)) for o, s in self.board(phase).items()}

    def delete(self, sub: Submission) -> None:
        # api/views/submissions.py destroy ~199-220: organizers may delete any submission
        self.submissions.remove(sub)


# Cloud-CV/EvalAI 0f040392, apps/challenges/views.py create_challenge_using_zip_file ~2149-2156 and
# create_or_update_github_challenge ~4675-4682: each challenge_phase_splits entry becomes these keys, no other.
EVALAI_COPIED_KEYS = ("challenge_phase_id", "leaderboard_id", "dataset_split_id", "visibility",
                      "leaderboard_decimal_precision", "is_leaderboard_order_descending")


def evalai_created_splits(config: dict) -> list:
    """The phase splits EvalAI stores from a challenge_config.yaml (the model's default for the rest:
    show_leaderboard_by_latest_submission False, apps/challenges/models.py ~1148)."""
    return [dict({k: entry[k] for k in EVALAI_COPIED_KEYS}, show_leaderboard_by_latest_submission=False)
            for entry in config["challenge_phase_splits"]]


def evalai_board(split: dict, rows: list) -> list:
    """apps/jobs/utils.py calculate_distinct_sorted_leaderboard_data ~410-557: ``rows`` are (team, score) in the
    order they were created; newest first, sorted by score unless the split ranks by the latest, first per
    team kept."""
    ordered = list(reversed(rows))  # .order_by("-created_at")
    if not split["show_leaderboard_by_latest_submission"]:
        ordered = sorted(ordered, key=lambda r: r[1], reverse=split["is_leaderboard_order_descending"])
    seen, board = set(), []
    for team, score in ordered:
        if team not in seen:
            seen.add(team)
            board.append((team, score))
    return board


def codalab_v1_participate(config: dict) -> str:
    """codalab/codalab-competitions c7ef5e28, codalab/apps/api/views/competition_views.py participate ~236-239;
    a participant who is not approved cannot submit (CompetitionSubmissionViewSet.perform_create ~590-591)."""
    return "pending" if config.get("has_registration") else "approved"
