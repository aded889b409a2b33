"""Following each bundle's README step by step leaves nothing on the private board to chance (issue 53): the
configuration each bundle writes, read back, driven through the platforms' rules around the reveal
(reveal_rules.py, each restating the platform's code; scripts/platform_checks/reveal_rules.py runs that code).
"""

from __future__ import annotations

import io
import json
import re
import sys
import zipfile

import pandas as pd
import yaml
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from tests.platforms.hook_drivers import COMPETITION, SOLUTION
from tests.platforms.reveal_rules import (
    CodabenchSite,
    Refused,
    codalab_v1_participate,
    evalai_board,
    evalai_created_splits,
)


def _build(root, platform, *extra):
    out = root / f"{platform}{len(extra)}"
    res = CliRunner().invoke(cli, ["bundle", platform, "-c", COMPETITION, "-s", str(SOLUTION), *extra, str(out)])
    assert res.exit_code == 0, res.output
    return out, res.output


def _config(out, upload, name):
    with zipfile.ZipFile(io.BytesIO((out / upload).read_bytes())) as zf:
        return yaml.safe_load(zf.read(name))


def _steps(readme: str) -> dict:
    """The README's numbered steps after "Then": {number: text with its lines joined}."""
    steps, current = {}, None
    for line in readme.split("Then", 1)[1].splitlines():
        m = re.match(r"(\d+)\. (.*)", line)
        if m:
            current = int(m.group(1))
            steps[current] = m.group(2)
        elif current and line.startswith("   "):
            steps[current] += " " + line.strip()
        elif current and not line.strip():
            continue
        else:
            current = None
    return steps


# --- Codabench --------------------------------------------------------------------------------------------------

def _codabench_after_the_end(site: CodabenchSite, steps: dict) -> None:
    """alice and bob register and are approved (step 3) before the end; alice submits in the final phase, bob
    never does. After the end: the reveal (step 5), carol registers and bob tries the private phase."""
    for user in ("alice", "bob"):
        if site.register(user) == "pending":
            assert "Approve each participant" in steps[3] and "Approve no registration after the end" in steps[3]
            site.approve(user)
    site.submit("alice", 1, public=0.3, private=0.2)
    site.submit("alice", 1, public=0.5511, private=0.4333)  # her last: Force_Last
    site.migrate()  # step 5
    site.submit("bob", 2, public=1.0, private=1.0)  # before step 6: scored
    status = site.register("carol")  # a latecomer, following the participant's path
    try:
        site.submit("carol", 2, public=1.0, private=1.0)
    except Refused:
        assert status == "pending"
    if "untick \"Auto-run submissions\"" in steps.get(6, ""):  # step 6
        site.auto_run = False
    for user in ("bob", "carol"):
        try:
            site.submit(user, 2, public=1.0, private=1.0)
        except Refused:
            pass
    if "delete each submission whose author has no finished" in steps.get(7, ""):  # step 7
        finals = {s.owner for s in site.submissions if s.phase == 1 and s.started}
        for sub in [s for s in site.submissions if s.phase == 2 and s.owner not in finals]:
            site.delete(sub)


def test_codabench_readme_steps_leave_only_the_final_submissions_on_the_private_board(tmp_path):
    out, printed = _build(tmp_path, "codabench")
    config = _config(out, "codabench_competition.zip", "competition.yaml")
    assert config["registration_auto_approve"] is False  # the default for a competition with a private phase
    readme = (out / "README.md").read_text()
    steps = _steps(readme)
    assert sorted(steps) == [1, 2, 3, 4, 5, 6, 7]
    # no step relies on what Codabench's code ignores: 0 means no limit, an end date closes only the page
    assert "Do not set a phase's max submissions to 0" in steps[6] and "set the private phase's max" not in readme
    site = CodabenchSite(config)
    _codabench_after_the_end(site, steps)
    assert site.scores(2) == {"alice": 0.4333}
    assert site.participants["carol"] == "pending"
    assert "untick Auto-run submissions (step 6)" in printed and "without a final-phase submission (step 7)" in printed


def test_codabench_auto_approval_without_the_end_steps_ranks_a_latecomer(tmp_path):
    """What --auto-approve costs, and that the check above can fail: without steps 6-7 the latecomer and the
    participant without a final submission are both ranked on the private split."""
    out, printed = _build(tmp_path, "codabench", "--auto-approve")
    config = _config(out, "codabench_competition.zip", "competition.yaml")
    assert config["registration_auto_approve"] is True
    readme = (out / "README.md").read_text()
    assert "Its cost: someone who registers after the end is approved at once" in _steps(readme)[3]
    site = CodabenchSite(config)
    _codabench_after_the_end(site, {3: "", 5: ""})
    assert site.scores(2) == {"alice": 0.4333, "bob": 1.0, "carol": 1.0}
    # the README's steps still remove them
    site = CodabenchSite(config)
    _codabench_after_the_end(site, _steps(readme))
    assert site.scores(2) == {"alice": 0.4333}
    assert "latecomers too" in printed


def test_codabench_migration_is_started_even_with_auto_run_off(tmp_path):
    """Step 6 may come before the re-run only at a cost the README names: the migration starts its own
    submissions, so turning auto-run off after it loses nothing."""
    out, _ = _build(tmp_path, "codabench")
    site = CodabenchSite(_config(out, "codabench_competition.zip", "competition.yaml"))
    site.register("alice")
    site.approve("alice")
    site.submit("alice", 1, public=0.5, private=0.25)
    site.auto_run = False
    site.migrate()
    assert site.scores(2) == {"alice": 0.25}
    assert "Not before the re-run entries are listed" in _steps((out / "README.md").read_text())[6]


# --- EvalAI -----------------------------------------------------------------------------------------------------

def _final_private(config, splits):
    phase = next(p["id"] for p in config["challenge_phases"] if p["name"] == "Final")
    split = next(d["id"] for d in config["dataset_splits"] if d["codename"] == "private")
    return next(s for s in splits if (s["challenge_phase_id"], s["dataset_split_id"]) == (phase, split))


def test_evalai_step_two_ranks_each_teams_latest_submission(tmp_path):
    out, printed = _build(tmp_path, "evalai")
    config = _config(out, "evalai_challenge.zip", "challenge_config.yaml")
    splits = evalai_created_splits(config)
    private = _final_private(config, splits)
    # team a: a 0.0-public/1.0-private file, then its real last one; team b: one file
    rows = [("a", 1.0), ("b", 0.6), ("a", 0.4)]
    assert evalai_board(private, rows) == [("a", 1.0), ("b", 0.6)]  # as created: best of private, chance wins
    steps = _steps((out / "README.md").read_text())
    assert "Before the end, rank the private split by each team's latest submission" in steps[2]
    assert "`dataset_split_name` is `private`" in steps[2] and "`Final`" in steps[2]
    body = json.loads(re.search(r"-d '(\{.*?\})'", steps[2]).group(1))
    private.update(body)  # the PATCH of step 2 (ZipChallengePhaseSplitSerializer, partial)
    board = evalai_board(private, rows)
    assert sorted(board) == [("a", 0.4), ("b", 0.6)]  # each team's latest, whatever its private score
    assert "make the private split" not in steps[4] and "private split's visibility to public" in steps[4]
    assert "README step 2: show_leaderboard_by_latest_submission" in printed


# --- CodaLab v1 -------------------------------------------------------------------------------------------------

def test_codalab_participants_are_pending_until_the_readme_approves_them(tmp_path):
    out, printed = _build(tmp_path, "codalab")
    config = _config(out, "codalab_competition.zip", "competition.yaml")
    assert codalab_v1_participate(config) == "pending"
    steps = _steps((out / "README.md").read_text())
    assert "Approve each participant" in steps[2] and "`pending`" in steps[2]
    assert "set its leaderboard mode to the default" in " ".join(steps[4].split())
    assert "approve each participant: registrations stay pending" in printed


# --- Hugging Face -----------------------------------------------------------------------------------------------

def test_hf_readme_says_what_the_limits_do_not(tmp_path):
    out, _ = _build(tmp_path, "hf", "--time-limit", "120")
    conf = json.loads((out / "conf.json").read_text())
    assert conf["COMPETITION_TYPE"] == "generic" and conf["TIME_LIMIT"] == 120
    readme = " ".join((out / "README.md").read_text().split())
    assert "A failed upload counts against the daily limit" in readme and "_num_subs_today" in readme
    assert "`TIME_LIMIT` applies only to script competitions" in readme
    assert "the only time limit is the bundled scorer's own guard" in readme
    assert "120 s" in readme


# --- Kaggle -----------------------------------------------------------------------------------------------------

def test_kaggle_a_malformed_row_fails_its_splits_call_only(tmp_path, monkeypatch):
    out, _ = _build(tmp_path, "kaggle")
    monkeypatch.syspath_prepend(str(out))
    sys.modules.pop("agrieval_metric", None)
    import agrieval_metric as metric
    solution = pd.read_csv(out / "solution.csv", dtype=str, keep_default_na=False)
    submission = pd.read_csv(SOLUTION, dtype=str, keep_default_na=False)[list(solution.columns[:2])]
    id_col, pred_col = submission.columns
    private_id = solution.loc[solution["Usage"] == "Private", id_col].iloc[0]
    submission.loc[submission[id_col] == private_id, pred_col] = "[1, 2"  # malformed
    calls = {}
    for usage in ("Public", "Private"):  # as Kaggle calls it: one split's rows, Usage removed
        rows = solution[solution["Usage"] == usage].drop(columns="Usage")
        try:
            calls[usage] = metric.score(rows.copy(), submission[submission[id_col].isin(rows[id_col])].copy(), id_col)
        except metric.ParticipantVisibleError as exc:
            calls[usage] = str(exc)
    assert isinstance(calls["Public"], float)
    assert "[rows_invalid]" in calls["Private"] and private_id not in calls["Private"]
    readme = " ".join((out / "README.md").read_text().split())
    assert "only the call whose rows hold it fails, with that one message (`[rows_invalid]`" in readme
    assert "the other split's call scores the file" in readme
