"""The pages the kit writes, opened in a real browser (headless Chromium, ``tests/browser.py``): the CTV
report, the own server's exported board, a Codabench bundle's pages. Each page is made from hostile names (a
team, a title, a description) and checked as a reader meets it: every image loads, nothing is requested
outside the page's folder (no network at all), the console has no error, no script runs and each hostile name
reads as itself. The screenshots are kept for review under ``$AGRIEVAL_ARTEFACTS/browser`` (default ``out/``,
git-ignored).
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests import browser as cdp

REPO = Path(__file__).resolve().parents[3]
ARTEFACTS = Path(os.environ.get("AGRIEVAL_ARTEFACTS", REPO / "out")) / "browser"
# Each payload sets window.__pwned if it runs as markup; the alert() one opens a dialog, recorded by the client.
HOSTILE = (
    '<img src=x onerror="window.__pwned=\'img\'">',
    "</td><script>window.__pwned='script'</script>",
    "a &lt; b & <b>c</b>",
    "<svg onload=alert(1)>",
)


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """One Chromium for the session (the tests are in one xdist group: tests/conftest.py)."""
    executable = cdp.chromium()
    home = tmp_path_factory.mktemp("chromium")
    b = cdp.Browser(executable, home / "profile", home / "chromium.log")
    yield b
    b.close()


def agrieval(*args: str, cwd: Path) -> str:
    p = subprocess.run([sys.executable, "-m", "agrieval.scoring.cli.main", *args], cwd=cwd, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def opened(browser, page: Path, shot: str, *, images: int, texts=()) -> cdp.Visit:
    """The page opened, with every check that holds for all pages; its visit for the page's own checks (the
    text of the elements each selector of ``texts`` matches)."""
    visit = browser.visit(page, shot=ARTEFACTS / shot, texts=texts)
    folder = page.parent
    assert visit.outside(folder) == [], visit.requests
    assert visit.errors == [] and visit.failed == [], (visit.errors, visit.failed)
    assert visit.dialogs == [] and visit.pwned is None and visit.scripts == 0, (visit.dialogs, visit.pwned)
    assert len(visit.images) == images, visit.images
    broken = [i for i in visit.images if not (i["complete"] and i["width"] > 0)]
    assert broken == [], broken
    return visit


# -- the CTV report


def _ctv_runs(root: Path) -> list:
    """TOTO runs as `baselines ctv run` writes them, one per training team (its fold, so a folder name: the
    hostile names without '/'), each tested on every team, a hostile test-only team too; the numbers run.json
    stores agree with the predictions, and the accuracies differ per pair so that every table and plot has a
    spread. The teams, for the report's cells."""
    from tests.scoring.ctv.run_folders import write_run

    folds = ["alpha", HOSTILE[0], "a &lt; b & <i>c", "<svg onload=alert(1)>"]
    teams = [*folds, HOSTILE[1]]
    for i, train in enumerate(folds):
        outcomes = {(team, "test"): (2 + (3 * i + 2 * j) % 7, 10) for j, team in enumerate(teams) if team != train}
        test = sum(ok for ok, _ in outcomes.values()) / (10 * len(outcomes))
        outcomes[(train, "val")] = (9, 10)
        write_run(root, "TOTO", "densenet121", train, outcomes, {"val_acc": 0.9, "test_acc": test})
    return teams


def test_the_ctv_report_in_a_browser(browser, tmp_path):
    pytest.importorskip("matplotlib")
    teams = _ctv_runs(tmp_path / "runs")
    agrieval("ctv", "report", str(tmp_path / "runs"), "--out", str(tmp_path / "report"), "--plots",
             cwd=tmp_path)
    page = tmp_path / "report" / "report.html"
    # the plots the report draws from these runs, each an <img> of the page (inline: the page travels alone)
    visit = opened(browser, page, "ctv_report.png", images=len(list((tmp_path / "report" / "plots").iterdir())),
                   texts=["td, th"])
    assert all(i["src"].startswith("data:image/png;base64,") for i in visit.images)
    assert visit.title == "Cross-Team Validation report"
    cells = visit.texts["td, th"]
    for team in teams:
        assert team in cells, (team, sorted(set(cells))[:40])


def test_the_ctv_report_with_vector_figures_in_a_browser(browser, tmp_path):
    pytest.importorskip("matplotlib")
    agrieval("ctv", "report", str(REPO / "examples" / "ctv" / "runs"), "--out", str(tmp_path / "report"),
             "--plots", "--format", "svg", cwd=tmp_path)
    visit = opened(browser, tmp_path / "report" / "report.html", "ctv_report_svg.png",
                   images=len(list((tmp_path / "report" / "plots").iterdir())))
    assert all(i["src"].startswith("data:image/svg+xml;base64,") for i in visit.images)


# -- the own server's board


def test_the_own_servers_board_in_a_browser(browser, tmp_path):
    ref = REPO / "reference_submissions" / "plantclef2025"
    agrieval("server", "init", "comp.db", "-c", "plantclef2025", "-s", str(ref / "solution.csv"), cwd=tmp_path)
    teams = ["alpha", *HOSTILE]
    uploads = sorted((ref / "submissions").glob("*.csv"))[:len(teams)]
    for team, upload in zip(teams, uploads):
        agrieval("grade", str(upload), "--team", team, "--store", "comp.db", cwd=tmp_path)
    agrieval("server", "export", "comp.db", "--out", "public", cwd=tmp_path)
    for name in ("leaderboard", "submissions"):
        page = tmp_path / "public" / f"{name}.html"
        visit = opened(browser, page, f"server_{name}.png", images=0, texts=["td"])
        with (tmp_path / "public" / f"{name}.csv").open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        # each team is a cell of the page, as the participant typed it (the CSV neutralises formulas only)
        cells = visit.texts["td"]
        assert sorted(c for c in cells if c in teams) == sorted(teams * (len(rows) // len(teams))), cells


# -- a platform's pages


def test_a_codabench_bundles_pages_in_a_browser(browser, tmp_path):
    title, description = "Orchard " + HOSTILE[1], "Trees " + HOSTILE[0] + " " + HOSTILE[2]
    agri = REPO / "reference_submissions" / "agrichallenge2024"
    agrieval("bundle", "codabench", "-c", "agrichallenge2024", "-s", str(agri / "solution.csv"), "--title", title,
             "--description", description, "cb", cwd=tmp_path)
    pages = tmp_path / "upload"
    with zipfile.ZipFile(tmp_path / "cb" / "codabench_competition.zip") as z:
        z.extractall(pages)  # what the organizer uploads, as the platform unpacks it
    names = sorted(p.name for p in (pages / "pages").glob("*.html"))
    assert names == ["data.html", "evaluation.html", "overview.html", "terms.html"]
    for name in names:
        visit = opened(browser, pages / "pages" / name, f"codabench_{name}.png", images=0, texts=["h2", "p"])
        if name == "overview.html":
            assert visit.texts["h2"] == [title] and description in visit.texts["p"], visit.texts
    # the logo the upload names: a picture the browser decodes
    opened(browser, pages / "logo.png", "codabench_logo.png", images=1)


def test_without_chromium_the_browser_tests_skip_with_the_reason_or_fail_when_required(monkeypatch):
    monkeypatch.setattr(cdp.shutil, "which", lambda name: None)  # a laptop without Chromium
    monkeypatch.delenv("AGRIEVAL_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"no Chromium here .*`make browser` installs"):
        cdp.chromium()
    monkeypatch.setenv("AGRIEVAL_REQUIRE_BROWSER", "1")  # make test where it can install Chromium, and CI
    with pytest.raises(pytest.fail.Exception, match="no Chromium here"):
        cdp.chromium()
