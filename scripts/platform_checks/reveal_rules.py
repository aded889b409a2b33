"""What each platform's site does around the reveal, run with its own code on a bundle's configuration (issue 53).

Usage: python reveal_rules.py CODABENCH_REPO EVALAI_REPO CODALAB_SITE_REPO COMPETITIONS_REPO BUNDLES_DIR

BUNDLES_DIR holds ``codabench/``, ``codabench-auto/`` (built with ``--auto-approve``), ``evalai/``, ``codalab/``
as ``agrieval bundle`` writes them. Every function
named below is taken from the fetched repository by its source (``ast``) and executed as written; what it calls
on the database is a stand-in (named in the report), and nothing of theirs is written into this repository:
- Codabench: ``CompetitionViewSet.register`` (a latecomer registering after the end, with the bundle's
  ``registration_auto_approve``), ``SubmissionCreationSerializer.validate`` (may that person submit?) and
  ``.create`` (is an upload scored with ``auto_run_submissions`` off, README step 6?),
  ``Competition.apply_phase_migration`` (are the re-run entries scored with it off?), and
  ``Phase.can_user_make_submissions`` with a limit of 0 (why the README never says 0);
- EvalAI: which keys of each ``challenge_phase_splits`` entry ``create_challenge_using_zip_file`` and
  ``create_or_update_github_challenge`` pass on (the dict literals of their syntax trees), whether the PATCH of
  README step 2 may set ``show_leaderboard_by_latest_submission`` (``ZipChallengePhaseSplitSerializer``'s
  fields), and the ranking statements of ``calculate_distinct_sorted_leaderboard_data`` (from the ``if`` on that
  key to the loop that keeps one row per team) on rows ordered as its query orders them (``-created_at``);
- CodaLab v1: ``CompetitionViewSet.participate`` with the bundle's ``has_registration``, then the approval check
  of ``CompetitionSubmissionViewSet.perform_create``;
- Hugging Face: ``_num_subs_today`` on a day with a failed submission, and where ``evaluate.run`` calls
  ``generate_submission_file`` (the one use of ``TIME_LIMIT``).
Prints one JSON report; exits 1 when a rule does not hold.
"""

from __future__ import annotations

import ast
import json
import sys
import textwrap
import types
import zipfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetched import commit, read  # noqa: E402


def method(source: str, cls: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return item
    raise LookupError(f"{cls}.{name} not found")


def function(source: str, name: str) -> ast.FunctionDef:
    return next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name)


def as_method(source: str, node: ast.FunctionDef, namespace: dict, base=object):
    """The method compiled, undecorated, in a class deriving from ``base`` (so that ``super()`` works)."""
    node.decorator_list = []
    text = "class _Theirs(_Base):\n" + textwrap.indent(ast.get_source_segment(source, node), "    ")
    namespace = dict(namespace, _Base=base)
    exec(compile(text, "<theirs>", "exec"), namespace)  # noqa: S102 - their code, fetched, run in a scratch process
    return namespace["_Theirs"]


class Denied(Exception):
    pass


def ns(**names):
    return types.SimpleNamespace(**names)


# --- Codabench ----------------------------------------------------------------------------------------------------

def codabench(repo: str, bundle: Path) -> dict:
    with zipfile.ZipFile(bundle / "codabench_competition.zip") as zf:
        config = yaml.safe_load(zf.read("competition.yaml"))
    views = read(repo, "src/apps/api/views/competitions.py")
    serializers = read(repo, "src/apps/api/serializers/submissions.py")
    models = read(repo, "src/apps/competitions/models.py")
    out = {"commit": commit(repo), "registration_auto_approve": config["registration_auto_approve"]}

    # register: a latecomer (no organizer, no whitelist) registers after the end
    class Participant:
        def __init__(self, **kw):
            self.__dict__.update(kw, status=None)

        def save(self):
            pass

    participants = []
    competition = ns(registration_auto_approve=config["registration_auto_approve"], all_organizers=[],
                     whitelist_emails=ns(values_list=lambda *a, **k: []), auto_run_submissions=True,
                     participants=ns(filter=lambda user, status: ns(
                         exists=lambda: any(p.user == user and p.status == status for p in participants))))
    created = ns(create=lambda **kw: participants.append(Participant(**kw)) or participants[-1])
    node = method(views, "CompetitionViewSet", "register")
    View = as_method(views, node, {"CompetitionParticipant": ns(objects=created), "IntegrityError": RuntimeError,
                                   "ValidationError": Denied, "Response": lambda data, status: data,
                                   "status": ns(HTTP_201_CREATED=201),
                                   "send_participation_accepted_emails": lambda p: None,
                                   "send_participation_requested_emails": lambda p: None})
    latecomer = ns(email="late@example.org", is_bot=False)
    view = View()
    view.get_object, view.request = (lambda: competition), ns(user=latecomer)
    out["latecomer_registers"] = view.register(view.request, 1)["participant_status"]

    # validate (only on create): may the latecomer submit?
    class Base:
        def validate(self, attrs):
            return attrs

        def create(self, validated_data):
            sub = ns(phase=validated_data["phase"], started=False)
            sub.start = lambda tasks=None: setattr(sub, "started", True)
            return sub

    names = {"CompetitionParticipant": ns(APPROVED="approved"), "PermissionDenied": Denied,
             "ValidationError": Denied}
    Serializer = as_method(serializers, method(serializers, "SubmissionCreationSerializer", "validate"), names, Base)
    Create = as_method(serializers, method(serializers, "SubmissionCreationSerializer", "create"), names, Base)
    s = Serializer()
    s.instance, s.context = None, {"request": ns(user=latecomer)}
    phase = ns(competition=competition, tasks=ns(all=lambda: []))
    try:
        s.validate({"phase": phase})
        out["latecomer_may_submit"] = True
    except Denied as exc:
        out["latecomer_may_submit"], out["latecomer_refused_with"] = False, str(exc)

    # create with auto_run_submissions off (README step 6): an approved participant's upload stays unscored
    competition.auto_run_submissions = False
    out["upload_scored_with_auto_run_off"] = Create().create({"phase": phase}).started

    # apply_phase_migration with auto_run off: the re-run entries are started by the migration itself
    started = []

    class Sub:
        CANCELLED, FINISHED, FAILED, NONE = "Cancelled", "Finished", "Failed", "None"

        def __init__(self, **kw):
            self.__dict__.update(kw)

        def save(self, ignore_submission_limit=False):
            self.ignored_limit = ignore_submission_limit

        def start(self):
            started.append(self)

    final = ns(submissions=ns(exclude=lambda **kw: ns(exists=lambda: False)), index=1)
    final_sub = Sub(participant="alice", owner="alice", data="zip")
    Sub.objects = ns(filter=lambda **kw: [final_sub])
    Migrating = as_method(models, method(models, "Competition", "apply_phase_migration"),
                          {"Submission": Sub, "logger": ns(info=lambda *a: None)})
    comp = Migrating()
    comp.pk, comp.save, comp.auto_run_submissions = 1, (lambda: None), False
    reveal = ns(index=2, save=lambda: None)
    comp.apply_phase_migration(final, reveal)
    out["migrated_entries_started_with_auto_run_off"] = len(started) == 1 and started[0].ignored_limit

    # a phase limit of 0
    Phase = as_method(models, method(models, "Phase", "can_user_make_submissions"),
                      {"now": lambda: ns(date=lambda: None)})
    p = Phase()
    count = ns(count=lambda: 3, filter=lambda **kw: ns(count=lambda: 3))
    p.has_max_submissions, p.max_submissions_per_day, p.max_submissions_per_person = True, 0, 0
    p.competition, p.submissions = ns(allow_robot_submissions=False), ns(
        filter=lambda **kw: ns(exclude=lambda **kw: count))
    out["limit_0_after_3_submissions"] = p.can_user_make_submissions(ns(is_bot=False))[0]
    out["ok"] = (out["latecomer_registers"] == "pending" and out["latecomer_may_submit"] is False
                 and out["upload_scored_with_auto_run_off"] is False
                 and out["migrated_entries_started_with_auto_run_off"] is True
                 and out["limit_0_after_3_submissions"] is True)
    return out


# --- EvalAI ---------------------------------------------------------------------------------------------------------

def _split_dict_keys(func: ast.FunctionDef) -> list:
    """Keys of each dict literal holding "challenge_phase" and "dataset_split" (what becomes a phase split)."""
    found = []
    for node in ast.walk(func):
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if "challenge_phase" in keys and "dataset_split" in keys:
                found.append(sorted(keys))
    return found


def evalai(repo: str, bundle: Path) -> dict:
    with zipfile.ZipFile(bundle / "evalai_challenge.zip") as zf:
        config = yaml.safe_load(zf.read("challenge_config.yaml"))
    views = read(repo, "apps/challenges/views.py")
    serializers = read(repo, "apps/challenges/serializers.py")
    utils = read(repo, "apps/jobs/utils.py")
    out = {"commit": commit(repo)}
    out["yaml_keys_of_a_phase_split"] = sorted({k for e in config["challenge_phase_splits"] for k in e})
    out["created_with_keys"] = {name: _split_dict_keys(function(views, name))
                                for name in ("create_challenge_using_zip_file", "create_or_update_github_challenge")}
    meta = method(serializers, "ZipChallengePhaseSplitSerializer", "__init__")  # the class exists
    cls = next(n for n in ast.walk(ast.parse(serializers))
               if isinstance(n, ast.ClassDef) and n.name == "ZipChallengePhaseSplitSerializer")
    fields = next(ast.literal_eval(a.value) for n in ast.walk(cls) if isinstance(n, ast.ClassDef) and n.name == "Meta"
                  for a in n.body if isinstance(a, ast.Assign) and a.targets[0].id == "fields")
    out["patch_may_set_it"] = bool(meta) and "show_leaderboard_by_latest_submission" in fields

    # The ranking statements, run on rows ordered by -created_at: team a (1.0, then 0.4), team b (0.6)
    func = function(utils, "calculate_distinct_sorted_leaderboard_data")
    body = func.body
    start = next(i for i, n in enumerate(body) if isinstance(n, ast.If)
                 and "show_leaderboard_by_latest_submission" in ast.unparse(n.test))
    end = next(i for i in range(start, len(body)) if isinstance(body[i], ast.For)
               and "distinct_sorted_leaderboard_data" in ast.unparse(body[i]))
    ranking = compile(ast.Module(body=body[start:end + 1], type_ignores=[]), "<theirs>", "exec")
    created = [("a", 1.0), ("b", 0.6), ("a", 0.4)]
    rows = [{"submission__participant_team__team_name": t, "submission__participant_team": t, "filtering_score": s,
             "filtering_error": 0, "submission__is_baseline": False} for t, s in reversed(created)]
    boards = {}
    for latest in (False, True):
        scope = {"challenge_phase_split": ns(show_leaderboard_by_latest_submission=latest),
                 "leaderboard_data": [dict(r) for r in rows], "is_leaderboard_order_descending": True,
                 "all_banned_participant_team": set()}
        exec(ranking, scope)  # noqa: S102
        boards["latest" if latest else "default"] = [(r["submission__participant_team"], r["filtering_score"])
                                                      for r in scope["distinct_sorted_leaderboard_data"]]
    out["private_board"] = boards
    dropped = all("show_leaderboard_by_latest_submission" not in k
                  for keys in out["created_with_keys"].values() for k in keys)
    out["yaml_key_dropped_at_creation"] = dropped
    out["ok"] = (dropped and out["patch_may_set_it"] and boards["default"] == [("a", 1.0), ("b", 0.6)]
                 and sorted(boards["latest"]) == [("a", 0.4), ("b", 0.6)])
    return out


# --- CodaLab v1 -----------------------------------------------------------------------------------------------------

def codalab_v1(repo: str, bundle: Path) -> dict:
    with zipfile.ZipFile(bundle / "codalab_competition.zip") as zf:
        config = yaml.safe_load(zf.read("competition.yaml"))
    views = read(repo, "codalab/apps/api/views/competition_views.py")
    stored = {}

    class Status:
        PENDING, APPROVED = "pending", "approved"
        objects = ns(get=lambda codename: codename)

    def get_or_create(user, competition, defaults):
        stored.update(defaults)
        return ns(id=1, **defaults), True

    webmodels = ns(ParticipantStatus=Status, CompetitionParticipant=ns(objects=ns(get_or_create=get_or_create)))
    View = as_method(views, method(views, "CompetitionAPIViewSet", "participate"),
                     {"webmodels": webmodels, "Response": lambda *a, **k: a, "json": json})
    view = View()
    view.get_object = lambda: ns(has_registration=config.get("has_registration", False),
                                 creator=ns(organizer_status_updates=False), url_redirect=None)
    view.request = ns(user=ns(participation_status_updates=False))
    view._send_mail = lambda *a, **k: None
    view.participate(None, 1)
    out = {"commit": commit(repo), "has_registration": config.get("has_registration"),
           "participant_status": stored["status"]}
    Create = as_method(views, method(views, "CompetitionSubmissionViewSet", "perform_create"),
                       {"webmodels": ns(CompetitionParticipant=ns(objects=ns(
                           get=lambda **kw: ns(is_approved=stored["status"] == "approved")))),
                        "ObjectDoesNotExist": LookupError, "PermissionDenied": Denied})
    view = Create()
    view.kwargs, view.request = {"competition_id": 1}, ns(user="p")
    try:
        view.perform_create(None, None)
        out["pending_may_submit"] = True
    except Denied:
        out["pending_may_submit"] = False
    out["ok"] = out["participant_status"] == "pending" and out["pending_may_submit"] is False
    return out


# --- Hugging Face ---------------------------------------------------------------------------------------------------

def hf(repo: str) -> dict:
    subs = read(repo, "competitions/submissions.py")
    evaluate = read(repo, "competitions/evaluate.py")
    Counter = as_method(subs, method(subs, "Submissions", "_num_subs_today"), {})
    info = {"submissions": [{"datetime": "2027-03-02 10:00:00", "status": 4},   # FAILED
                            {"datetime": "2027-03-02 11:00:00", "status": 3}]}  # SUCCESS
    out = {"commit": commit(repo), "failed_counted_today": Counter()._num_subs_today("2027-03-02", info)}
    run = function(evaluate, "run")
    guarded = [ast.unparse(n.test) for n in ast.walk(run) if isinstance(n, ast.If)
               and any(isinstance(c, ast.Call) and getattr(c.func, "id", "") == "generate_submission_file"
                       for c in ast.walk(n))]
    users = [n.name for n in ast.parse(evaluate).body if isinstance(n, ast.FunctionDef)
             and "time_limit" in ast.unparse(n)]
    out["generate_submission_file_only_if"] = guarded
    out["functions_reading_time_limit"] = users
    out["ok"] = (out["failed_counted_today"] == 2 and guarded == ["params.competition_type == 'script'"]
                 and users == ["generate_submission_file"])
    return out


def main(argv: list) -> int:
    if len(argv) != 6:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    codabench_repo, evalai_repo, codalab_repo, competitions_repo, bundles = argv[1:]
    bundles = Path(bundles)
    report = {"codabench": codabench(codabench_repo, bundles / "codabench"),
              # --auto-approve, for contrast (what the option costs): the latecomer is approved and may submit
              "codabench_auto_approve": codabench(codabench_repo, bundles / "codabench-auto"),
              "evalai": evalai(evalai_repo, bundles / "evalai"),
              "codalab_v1": codalab_v1(codalab_repo, bundles / "codalab"),
              "hf": hf(competitions_repo)}
    contrast = report.pop("codabench_auto_approve")
    shown = ("registration_auto_approve", "latecomer_registers", "latecomer_may_submit")
    report["codabench"]["with_auto_approve"] = {k: contrast[k] for k in shown}
    report["ok"] = all(part["ok"] for part in report.values()) and contrast["latecomer_may_submit"] is True
    print(json.dumps(report, indent=1, default=str))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
