"""The one file each organizer uploads, read as the platform's loader reads it (tests/platforms/platform_loaders.py,
facts in docs/platform_checks.md); each check is shown to fail on an upload missing what it needs."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from agrieval.scoring.authoring._bundles.files import zip_bytes
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime._platforms.hf import compute_scores
from agrieval.scoring.runtime.definition import load_definition
from tests.platforms import platform_loaders as loaders
from tests.platforms.hook_drivers import COMPETITION, ROOT, SOLUTION

SUBS = ROOT / "reference_submissions" / COMPETITION / "submissions"
EXPECTED = json.loads((ROOT / "reference_submissions" / "expected_scores.json").read_text())[COMPETITION]["partial"]
PLATFORMS = ("codabench", "codalab", "evalai", "hf", "kaggle")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("organizer")
    for platform in PLATFORMS:
        res = CliRunner().invoke(cli, ["bundle", platform, "-c", COMPETITION, "-s", str(SOLUTION),
                                       "--title", "Demo: plants *in* quadrats", str(root / platform)])
        assert res.exit_code == 0, res.output
    return {p: root / p for p in PLATFORMS}


def _edit(upload: bytes, name: str, change) -> bytes:
    """The upload with ``name`` (a YAML or JSON file) passed through ``change(dict) -> dict``, or removed when
    ``change`` is None; any other member kept."""
    with zipfile.ZipFile(io.BytesIO(upload)) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    if change is None:
        del files[name]
    else:
        files[name] = yaml.safe_dump(change(yaml.safe_load(files[name]))).encode()
    return zip_bytes(files)


def _without(d: dict, key: str) -> dict:
    return {k: v for k, v in d.items() if k != key}


# --- Codabench ----------------------------------------------------------------------------------------------

def test_codabench_upload_is_a_whole_competition(built):
    upload = (built["codabench"] / "codabench_competition.zip").read_bytes()
    assert loaders.codabench(upload) == []
    y = yaml.safe_load(zipfile.ZipFile(io.BytesIO(upload)).read("competition.yaml"))
    assert y["title"] == "Demo: plants *in* quadrats" and y["docker_image"] == "codalab/codalab-legacy:py39"
    assert [p["title"] for p in y["pages"]] == ["Overview", "Evaluation", "Data", "Terms"]
    assert [t["scoring_program"] for t in y["tasks"]] == ["scoring_program_public.zip", "scoring_program_private.zip"]
    # The public split until the end; then the final phase's submissions migrate to the private task's phase.
    assert [(p["name"], p["tasks"], p.get("auto_migrate_to_this_phase", False)) for p in y["phases"]] == [
        ("Development", [0], False), ("Final", [0], False), ("Private leaderboard", [1], True)]
    # the reveal phase ends (Codabench's status task makes a phase current only before its end: docs/organizers.md)
    assert y["phases"][2]["max_submissions"] == 1 and y["phases"][2]["end"] == "2028-03-31 00:01:00"
    # every bundle has a private phase: a registration waits for the organizer (a latecomer is never let in)
    assert y["registration_auto_approve"] is False
    readme = (built["codabench"] / "README.md").read_text()
    assert "Approve each participant" in readme and "approved as they register" not in readme
    assert "Next, Current or Previous" in readme and "no status" in readme
    columns = y["leaderboards"][0]["columns"]
    assert columns[0]["key"] == "transect_f1" and columns[0]["index"] == y["leaderboards"][0]["primary_index"] == 0
    kit = zipfile.ZipFile(io.BytesIO(zipfile.ZipFile(io.BytesIO(upload)).read("starting_kit.zip")))
    assert set(kit.namelist()) == {"README.md", "sample_submission.csv", "validate.py"}
    assert "python validate.py submission.csv" in kit.read("README.md").decode()


@pytest.mark.parametrize("breaks", ["no terms", "empty page", "no scoring program", "phases overlap",
                                    "no image", "no leaderboards"])
def test_codabench_model_refuses_what_v2unpacker_refuses(built, breaks):
    upload = (built["codabench"] / "codabench_competition.zip").read_bytes()

    def change(y):
        if breaks == "no terms":
            return _without(y, "terms")
        if breaks == "no scoring program":
            y["tasks"][1] = _without(y["tasks"][1], "scoring_program")
        if breaks == "phases overlap":
            y["phases"][2]["start"] = y["phases"][1]["end"]
        if breaks == "no image":
            return _without(y, "image")
        if breaks == "no leaderboards":
            return _without(y, "leaderboards")
        return y

    if breaks == "empty page":
        with zipfile.ZipFile(io.BytesIO(upload)) as zf:
            files = {n: zf.read(n) for n in zf.namelist()}
        files["pages/data.html"] = b""
        broken = zip_bytes(files)
    else:
        broken = _edit(upload, "competition.yaml", change)
    assert loaders.codabench(broken) != []


def test_codabench_dates_and_phase_names_are_options(tmp_path):
    res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(SOLUTION), "--dev-start",
                                   "2028-01-01 00:00:00", "--final-start", "2028-02-01 12:00:00", "--end",
                                   "2028-03-01 00:00:00", "--dev-phase-name", "Warm-up", "--final-phase-name",
                                   "Test", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    y = yaml.safe_load((tmp_path / "b" / "competition.yaml").read_text())
    assert [(p["name"], p["start"], p.get("end")) for p in y["phases"]] == [
        ("Warm-up", "2028-01-01 00:00:00", "2028-02-01 11:59:00"),
        ("Test", "2028-02-01 12:00:00", "2028-03-01 00:00:00"),
        ("Private leaderboard", "2028-03-01 00:01:00", "2029-03-01 00:01:00")]
    res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(SOLUTION), "--reveal-end",
                                   "2027-06-30 00:00:00", "--auto-approve", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    y = yaml.safe_load((tmp_path / "r" / "competition.yaml").read_text())
    assert y["phases"][2]["end"] == "2027-06-30 00:00:00" and y["registration_auto_approve"] is True
    assert "Its cost: someone who registers after the end" in (tmp_path / "r" / "README.md").read_text()
    assert "latecomers too" in res.output  # among the next steps
    for bad in ("2027-04-01 00:00:30", "tomorrow"):
        res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(SOLUTION),
                                       "--reveal-end", bad, str(tmp_path / "x")])
        assert res.exit_code == 2 and "--reveal-end" in res.output and not (tmp_path / "x").exists()
    res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(SOLUTION), "--end",
                                   "2026-01-01 00:00:00", str(tmp_path / "c")])
    assert res.exit_code == 2 and "[bad_option]" in res.output and "must follow each other" in res.output
    assert not (tmp_path / "c").exists()


# --- CodaLab v1 ---------------------------------------------------------------------------------------------

def test_codalab_upload_is_a_v1_bundle_with_a_blind_final_phase(built):
    upload = (built["codalab"] / "codalab_competition.zip").read_bytes()
    assert loaders.codalab_v1(upload) == []
    y = yaml.safe_load(zipfile.ZipFile(io.BytesIO(upload)).read("competition.yaml"))
    assert [(p["scoring_program"], p.get("leaderboard_management_mode", "default")) for p in y["phases"].values()] == [
        ("scoring_program_public.zip", "default"), ("scoring_program_private.zip", "hide_results")]
    assert "zip submission.zip submission.csv" in (built["codalab"] / "README.md").read_text()
    kit = zipfile.ZipFile(io.BytesIO(zipfile.ZipFile(io.BytesIO(upload)).read("starting_kit.zip")))
    assert "zip submission.zip submission.csv" in kit.read("README.md").decode()
    assert "zip" in zipfile.ZipFile(io.BytesIO(upload)).read("data.html").decode()


@pytest.mark.parametrize("breaks", ["unknown field", "no data page", "no reference data", "unknown leaderboard"])
def test_codalab_model_refuses_what_unpack_refuses(built, breaks):
    upload = (built["codalab"] / "codalab_competition.zip").read_bytes()

    def change(y):
        if breaks == "unknown field":
            y["version"] = 2  # Competition(**comp_base): no such field
        if breaks == "no data page":
            del y["html"]["data"]
        if breaks == "no reference data":
            del y["phases"][2]["reference_data"]
        if breaks == "unknown leaderboard":
            y["leaderboard"]["columns"]["transect_f1"]["leaderboard"] = {"label": "Other", "rank": 1}
        return y

    assert loaders.codalab_v1(_edit(upload, "competition.yaml", change)) != []


# --- EvalAI -------------------------------------------------------------------------------------------------

def test_evalai_upload_passes_the_config_checks(built):
    upload = (built["evalai"] / "evalai_challenge.zip").read_bytes()
    assert loaders.evalai(upload) == []
    y = yaml.safe_load(zipfile.ZipFile(io.BytesIO(upload)).read("challenge_config.yaml"))
    assert [p["test_annotation_file"] for p in y["challenge_phases"]] == ["annotations/dev.csv", "annotations/test.csv"]
    assert {(s["challenge_phase_id"], s["dataset_split_id"]): s["visibility"] for s in y["challenge_phase_splits"]} \
        == {(1, 1): 3, (2, 1): 3, (2, 2): 1}  # the private split host-only
    # submissions public by default, or the public leaderboard stays empty until each author opts in
    assert [p["is_submission_public"] for p in y["challenge_phases"]] == [True, True]
    readme = (built["evalai"] / "README.md").read_text()
    assert "(1)" not in readme and "is_submission_public: true" in readme and "visibility to public" in readme
    assert y["leaderboard"][0]["schema"]["default_order_by"] == "transect_f1"
    # EvalAI-Starters' action rebuilds evaluation_script.zip from the folder evaluation_script/ (github/utils.py
    # create_challenge_zip_file): the folder must hold what the zip holds.
    outer = zipfile.ZipFile(io.BytesIO(upload))
    inner = zipfile.ZipFile(io.BytesIO(outer.read("evaluation_script.zip")))
    prefix = "evaluation_script/"
    folder = {n[len(prefix):]: outer.read(n) for n in outer.namelist() if n.startswith(prefix)}
    assert folder == {n: inner.read(n) for n in inner.namelist()} and "__init__.py" in folder


@pytest.mark.parametrize("breaks", ["no title", "no terms", "guidelines not html", "annotation missing",
                                    "link key missing", "default order not a label"])
def test_evalai_model_refuses_what_the_validator_refuses(built, breaks):
    upload = (built["evalai"] / "evalai_challenge.zip").read_bytes()
    if breaks == "annotation missing":
        broken = _edit(upload, "annotations/test.csv", None)
    else:
        def change(y):
            if breaks == "no title":
                return _without(y, "title")
            if breaks == "no terms":
                return _without(y, "terms_and_conditions")
            if breaks == "guidelines not html":
                y["submission_guidelines"] = "logo.png"
            if breaks == "link key missing":
                y["challenge_phase_splits"][0] = _without(y["challenge_phase_splits"][0], "visibility")
            if breaks == "default order not a label":
                y["leaderboard"][0]["schema"]["default_order_by"] = "accuracy"
            return y

        broken = _edit(upload, "challenge_config.yaml", change)
    assert loaders.evalai(broken) != []


# --- Hugging Face -------------------------------------------------------------------------------------------

def _repo_files(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name != "README.md"}


def test_hf_repo_files_have_every_key_competition_info_reads(built):
    files = _repo_files(built["hf"])
    assert loaders.hf(files) == []
    conf = json.loads(files["conf.json"])
    assert conf["SCORING_METRIC"] == "transect_f1" and conf["SUBMISSION_ROWS"] == 40
    for key in ("SCORING_METRIC", "END_DATE", "SUBMISSION_ROWS"):
        broken = dict(files, **{"conf.json": json.dumps(_without(conf, key)).encode()})
        assert loaders.hf(broken) != [], key
    assert loaders.hf(_without(files, "DATASET_DESC.md")) != []


def _split_convention(solution: bytes) -> bytes:
    lines = solution.decode().splitlines()
    head = lines[0].replace('"Usage"', '"split"').replace("Usage", "split")
    body = [ln.replace('"Public"', '"public"').replace('"Private"', '"private"').replace(",Public", ",public")
            .replace(",Private", ",private") for ln in lines[1:]]
    return ("\n".join([head] + body) + "\n").encode()


@pytest.mark.parametrize("convention", ["Usage", "split"])
def test_hf_metric_reads_both_split_conventions(tmp_path, convention):
    """The platform's own metrics read a lowercase `split` column (public/private); ours reads it and `Usage`."""
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    solution = SOLUTION.read_bytes()
    (repo / "solution.csv").write_bytes(solution if convention == "Usage" else _split_convention(solution))
    (repo / "submissions" / "team-1.csv").write_bytes((SUBS / "partial.csv").read_bytes())
    params = {"competition_id": str(repo), "team_id": "team", "submission_id": "1", "submission_id_col": "quadrat_id"}
    out = compute_scores(load_definition(COMPETITION), params)
    assert out["public_score"] == pytest.approx(EXPECTED["public"])
    assert out["private_score"] == pytest.approx(EXPECTED["private"])


def test_hf_metric_refuses_a_solution_without_a_split_column(tmp_path):
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    (repo / "solution.csv").write_text(SOLUTION.read_text().replace("Usage", "Partition"))
    (repo / "submissions" / "team-1.csv").write_bytes((SUBS / "partial.csv").read_bytes())
    from agrieval.scoring.runtime.problems import HostError

    with pytest.raises(HostError, match="no split column"):
        compute_scores(load_definition(COMPETITION), {"competition_id": str(repo), "team_id": "team",
                                                      "submission_id": "1"})


@pytest.mark.parametrize("name", ["sub.CSV", "sub.txt", "sub.ZIP"])
def test_hf_usual_upload_names_are_fetched_without_the_listing(tmp_path, monkeypatch, name):
    """The Hub path: every usual spelling is downloaded by name; list_repo_files is never called."""
    import types

    repo_files = {"solution.csv": SOLUTION.read_bytes()}
    data = (SUBS / "partial.csv").read_bytes()
    if name.endswith("ZIP"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("partial.csv", data)
        data = buf.getvalue()
    repo_files[f"submissions/team-1.{name.rsplit('.', 1)[1]}"] = data

    class EntryNotFoundError(Exception):
        pass

    def hf_hub_download(repo_id, filename, repo_type, token):
        if filename not in repo_files:
            raise EntryNotFoundError(filename)
        path = tmp_path / "dl" / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(repo_files[filename])
        return str(path)

    class NoListing:
        def __init__(self, *a, **kw):
            raise AssertionError("list_repo_files was called")

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download,
                                                                              HfApi=NoListing))
    out = compute_scores(load_definition(COMPETITION), {"competition_id": "org/demo", "team_id": "team",
                                                        "submission_id": "1", "token": "t"})
    assert out["public_score"] == pytest.approx(EXPECTED["public"])


# --- Kaggle -------------------------------------------------------------------------------------------------

def test_kaggle_metric_is_an_attachable_module(built, tmp_path):
    """A utility script is imported by its name: the notebook's cell imports `agrieval_metric` from it."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import runpy; ns = runpy.run_path(sys.argv[1] + "
            "'/metric_notebook.py'); import pandas as pd; sol = pd.read_csv(sys.argv[2]); "
            "sub = pd.read_csv(sys.argv[3]); pub = sol[sol.Usage == 'Public'].drop(columns=['Usage']); "
            "print(ns['score'](pub, sub[sub.quadrat_id.isin(pub.quadrat_id)], 'quadrat_id'))")
    res = subprocess.run([sys.executable, "-c", code, str(built["kaggle"]), str(SOLUTION), str(SUBS / "partial.csv")],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert float(res.stdout) == pytest.approx(EXPECTED["public"]["transect_f1"])
    assert "utility script" in (built["kaggle"] / "README.md").read_text()


# --- every bundle -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_bundle_carries_a_sample_submission_that_validates(built, platform):
    sample = built[platform] / "sample_submission.csv"
    res = CliRunner().invoke(cli, ["validate", str(sample), "-c", COMPETITION, "-s", str(SOLUTION)])
    assert res.exit_code == 0, res.output
    lines = sample.read_text().splitlines()
    assert lines[0] == '"quadrat_id","species_ids"' and len(lines) == 41
    assert all(line.endswith(',"[]"') for line in lines[1:])  # no label of the solution


def test_multiclass_sample_submission_repeats_one_class_and_validates(tmp_path):
    """An AgrI row must hold exactly one class (an empty one is rejected): the minimal valid file repeats one."""
    ag = ROOT / "reference_submissions" / "agrichallenge2024" / "solution.csv"
    res = CliRunner().invoke(cli, ["bundle", "hf", "-c", "agrichallenge2024", "-s", str(ag), str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    sample = tmp_path / "b" / "sample_submission.csv"
    assert {line.split(",")[1] for line in sample.read_text().splitlines()[1:]} == {"caroubier"}
    res = CliRunner().invoke(cli, ["validate", str(sample), "-c", "agrichallenge2024", "-s", str(ag)])
    assert res.exit_code == 0, res.output
    empty = tmp_path / "empty.csv"
    empty.write_text("\n".join(line.split(",")[0] + "," for line in sample.read_text().splitlines()[1:]))
    empty.write_text("image_id,label\n" + empty.read_text() + "\n")
    res = CliRunner().invoke(cli, ["validate", str(empty), "-c", "agrichallenge2024", "-s", str(ag)])
    assert res.exit_code == 1  # why the sample is not empty


def test_bundle_warns_when_the_solution_ids_reveal_labels(tmp_path):
    sol = tmp_path / "solution.csv"
    sol.write_text("image_id,label,Usage,team\nteam_a/caroubier/img_00.jpg,caroubier,Public,team_a\n"
                   "team_a/chene/img_01.jpg,chene,Private,team_a\n")
    res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", "agrichallenge2024", "-s", str(sol),
                                                   str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    assert "warning [ids_reveal_labels]" in res.stderr
    assert "ids_reveal_labels" in (tmp_path / "b" / "README.md").read_text()
    clean = tmp_path / "clean.csv"
    clean.write_text("image_id,label,Usage,team\nteam_a/3f2a,caroubier,Public,team_a\n"
                     "team_a/9c1b,chene,Private,team_a\n")
    res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", "agrichallenge2024", "-s",
                                                   str(clean), str(tmp_path / "c")])
    assert res.exit_code == 0 and "ids_reveal_labels" not in res.stderr
    assert "ids_reveal_labels" not in (tmp_path / "c" / "README.md").read_text()


def test_same_inputs_same_upload(built, tmp_path):
    res = CliRunner().invoke(cli, ["bundle", "codabench", "-c", COMPETITION, "-s", str(SOLUTION),
                                   "--title", "Demo: plants *in* quadrats", str(tmp_path / "again")])
    assert res.exit_code == 0
    assert (tmp_path / "again" / "codabench_competition.zip").read_bytes() == \
        (built["codabench"] / "codabench_competition.zip").read_bytes()


@pytest.mark.parametrize("platform", ["codabench", "codalab"])
def test_the_uploaded_public_program_is_the_folder_the_worker_checks_ran(built, platform):
    """scripts/platform_checks/*_worker.py run the folder scoring_program/; the upload carries its zip."""
    name = {"codabench": "codabench_competition.zip", "codalab": "codalab_competition.zip"}[platform]
    with zipfile.ZipFile(built[platform] / name) as outer:
        inner = zipfile.ZipFile(io.BytesIO(outer.read("scoring_program_public.zip")))
        in_zip = {n: inner.read(n) for n in inner.namelist()}
        ref = zipfile.ZipFile(io.BytesIO(outer.read("reference_data.zip")))
        assert ref.read("solution.csv") == SOLUTION.read_bytes()
    folder = built[platform] / "scoring_program"
    assert in_zip == {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# What each README tells the organizer about dates, statuses and the reveal, in the organizer's words (issue 33).
SAYS = {"codabench": ("Next, Current or Previous", "The reveal is automatic"),
        "codalab": ("until the competition's end date", "is blind"),
        "evalai": ("takes submissions from its start date to its end date", "set the\nprivate split's visibility"),
        "hf": ("the private leaderboard appears by itself", "submissions are refused"),
        "kaggle": ("shows the private leaderboard when the competition\nends",)}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_readme_says_what_the_platform_does_with_the_dates_and_the_reveal(built, platform):
    readme = (built[platform] / "README.md").read_text()
    flat = " ".join(readme.split())
    for phrase in SAYS[platform]:
        assert " ".join(phrase.split()) in flat, phrase
    assert "(1)" not in readme



# Where each README's steps start: the platform's own place to create a competition, named with its source.
CREATES = {"codabench": ("Benchmarks -> Management -> Upload", "Competition-Creation-Bundle.md"),
           "codalab": ("Create Competition", "templates/web/my/index.html"),
           "evalai": ("EvalAI-Starters", "host-challenge.md"),
           "hf": ("https://huggingface.co/spaces/competitions/create", "competitions/create.py"),
           "kaggle": ("https://www.kaggle.com/c/about/community", "docs/facts/platforms.md")}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_every_readme_starts_from_creating_the_competition_and_cites_where_its_steps_come_from(built, platform):
    flat = " ".join((built[platform] / "README.md").read_text().split())
    where, source = CREATES[platform]
    assert where in flat and source in flat
    assert flat.index(where) < flat.index("## Submission limits")  # before anything else is to be set
    for hedge in ("unconfirmed", "was not found", "check the names of the buttons"):
        assert hedge not in flat


def test_the_hf_upload_line_works_from_any_folder(tmp_path, monkeypatch):
    """The printed upload command names the bundle by its absolute path, one shell word even when the path
    holds a blank and a quote, so that it runs from wherever the organizer is."""
    import shlex

    work = tmp_path / "organizer's files"
    work.mkdir()
    monkeypatch.chdir(work)
    res = CliRunner().invoke(cli, ["bundle", "huggingface", "-c", COMPETITION, "-s", str(SOLUTION), "my bundle"])
    assert res.exit_code == 0, res.output
    line = next(l for l in res.output.splitlines() if "huggingface-cli upload" in l)
    words = shlex.split(line.split(": ", 1)[1].split("upload: ", 1)[-1])
    assert words[:3] == ["huggingface-cli", "upload", "ORG/NAME"]
    assert Path(words[3]).is_absolute() and Path(words[3]) == work / "my bundle"
    assert (Path(words[3]) / "conf.json").is_file() and words[4] == "."
    assert words[5:] == ["--repo-type=dataset", "--exclude", "README.md"]
    readme = (work / "my bundle" / "README.md").read_text()
    assert "huggingface-cli upload ORG/NAME BUNDLE . --repo-type=dataset --exclude README.md" in readme


def test_a_custom_competition_bundle_says_a_validate_command_participants_can_run(tmp_path, monkeypatch):
    """A bundle of the organizer's own TOML (orchard, grouped by 'orchard_row'): the README's `agrieval validate`
    command runs, from the bundle's folder, on a participant's agrieval (which has never heard of orchard) and
    checks the file as orchard's; the evaluation page names the grouping; --description lands as text."""
    import shlex

    toml = (ROOT / "scoring" / "competitions" / "agrichallenge2024.toml").read_text(encoding="utf-8")
    toml = toml.replace('name = "agrichallenge2024"', 'name = "orchard"', 1).replace('name = "team"',
                                                                                    'name = "orchard_row"', 1)
    (tmp_path / "orchard.toml").write_text(toml, encoding="utf-8")
    agri = ROOT / "reference_submissions" / "agrichallenge2024"
    hostile = "Trees <img src=x onerror=alert(1)> & rows"
    for platform in ("kaggle", "codabench"):
        res = CliRunner().invoke(cli, ["bundle", platform, "-c", str(tmp_path / "orchard.toml"), "-s",
                                       str(agri / "solution.csv"), "--description", hostile,
                                       str(tmp_path / platform)])
        assert res.exit_code == 0, res.output
    readme = (tmp_path / "kaggle" / "README.md").read_text(encoding="utf-8")
    command = "agrieval validate submission.csv --competition competition.json"
    assert f"`{command}`" in readme and (tmp_path / "kaggle" / "competition.json").is_file()
    # the participant: in the folder of what they downloaded, their file beside it, the command as written
    monkeypatch.chdir(tmp_path / "kaggle")
    (tmp_path / "kaggle" / "submission.csv").write_bytes((agri / "submissions" / "constant_chene.csv").read_bytes())
    words = shlex.split(command)
    assert words[0] == "agrieval"
    res = CliRunner().invoke(cli, words[1:])
    assert res.exit_code == 0 and "submission.csv: valid for orchard" in res.output, res.output
    with zipfile.ZipFile(tmp_path / "codabench" / "codabench_competition.zip") as z:
        evaluation = z.read("pages/evaluation.html").decode()
        overview = z.read("pages/overview.html").decode()
    assert "the accuracy within each group (orchard_row)" in evaluation and "(team)" not in evaluation
    assert "<p>Trees &lt;img src=x onerror=alert(1)&gt; &amp; rows</p>" in overview and "<img" not in overview
