"""The participant's validator (`validate.py`, every bundle): Python 3.8+ and numpy alone, the test ids built in,
the grader's verdicts and codes; and the generated pages define every metric they name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from tests.platform_pythons import python
from tests.platforms.hook_drivers import COMPETITION, SOLUTION

SUBS = Path(SOLUTION).parent / "submissions"


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("kit") / "hf"
    res = CliRunner().invoke(cli, ["bundle", "hf", "-c", COMPETITION, "-s", str(SOLUTION), str(out)])
    assert res.exit_code == 0, res.output
    return out


def _run(kit: Path, interpreter: str, *args: str) -> subprocess.CompletedProcess:
    # -I: no PYTHONPATH, no user site, no current folder on the path: only the interpreter and its numpy
    return subprocess.run([interpreter, "-I", str(kit / "validate.py"), *args], capture_output=True, text=True,
                          cwd=kit.parent, timeout=120)


@pytest.mark.parametrize("label", ["py3.8-numpy1.21", "py3.10"])
def test_the_validator_runs_with_python_and_numpy_alone(kit, label, tmp_path):
    interpreter = python(label)
    ok = _run(kit, interpreter, str(kit / "sample_submission.csv"))
    assert ok.returncode == 0 and "OK: the file would be accepted" in ok.stdout, ok.stderr
    partial = _run(kit, interpreter, str(SUBS / "partial.csv"))
    assert partial.returncode == 0
    bad = tmp_path / "bad.csv"
    lines = (kit / "sample_submission.csv").read_text().splitlines()
    bad.write_text("\n".join(lines[:-1]) + "\n")  # the last test id left out
    missing = _run(kit, interpreter, str(bad))
    assert missing.returncode == 1 and "[missing_ids]" in missing.stdout and "REJECTED" in missing.stdout
    usage = _run(kit, interpreter)
    assert usage.returncode == 2 and "usage: python validate.py" in usage.stderr


def test_the_validator_gives_the_graders_codes(kit, tmp_path):
    import sys

    from agrieval.scoring.runtime.guard import grade

    for name in ("partial", "perfect", "empty_lists"):
        r = _run(kit, sys.executable, str(SUBS / f"{name}.csv"))
        assert r.returncode == 0, r.stdout
    numpy_style = tmp_path / "numpy_style.csv"
    sample = (kit / "sample_submission.csv").read_text().splitlines()
    first_id = sample[1].split(",")[0]
    numpy_style.write_text(sample[0] + "\n" + "\n".join(f'{line.split(",")[0]},"[1355868 1355869]"'
                                                     for line in sample[1:]) + "\n")
    r = _run(kit, sys.executable, str(numpy_style))
    graded = grade(numpy_style, SOLUTION, COMPETITION)
    assert r.returncode == 1 and graded.exit_code == 1
    assert "[non_integer_label]" in r.stdout and "separate them with commas" in r.stdout
    assert {e.code for e in graded.errors} <= {"non_integer_label", "too_many_problems"} and first_id


REF = Path(SOLUTION).parents[1]
PAGE_CASES = [("codabench", "plantclef2025", REF / "plantclef2025" / "solution.csv"),
              ("codalab", "plantclef2026", REF / "plantclef2025" / "solution.csv"),
              ("evalai", "agrichallenge2024", REF / "agrichallenge2024" / "solution.csv")]


def _pages(out: Path, platform: str) -> dict:
    import io
    import zipfile

    names = {"codabench": ("codabench_competition.zip", "pages/{}.html", {"evaluation": "evaluation", "data": "data",
                                                                         "overview": "overview"}),
             "codalab": ("codalab_competition.zip", "{}.html", {"evaluation": "evaluation", "data": "data",
                                                                 "overview": "overview"}),
             "evalai": ("evalai_challenge.zip", "{}.html", {"evaluation": "evaluation_details",
                                                             "data": "submission_guidelines",
                                                             "overview": "description"})}
    upload, pattern, files = names[platform]
    with zipfile.ZipFile(io.BytesIO((out / upload).read_bytes())) as zf:
        return {page: zf.read(pattern.format(name)).decode() for page, name in files.items()}


@pytest.mark.parametrize("platform, competition, solution", PAGE_CASES)
def test_every_metric_named_is_defined_and_every_example_validates_as_the_page_says(tmp_path, platform,
                                                                                     competition, solution):
    import html
    import re

    from agrieval.scoring.authoring._bundles.metric_pages import METRICS
    from agrieval.scoring.runtime.definition import load_definition
    from agrieval.scoring.runtime.validate import validate_file

    out = tmp_path / platform
    res = CliRunner().invoke(cli, ["bundle", platform, "-c", competition, "-s", str(solution), "--per-day", "4",
                                   str(out)])
    assert res.exit_code == 0, res.output
    pages = _pages(out, platform)
    named = set(re.findall(r"<li><code>([a-z_0-9]+)</code></li>", pages["evaluation"]))
    named |= set(re.findall(r"Primary metric: <code>([a-z_0-9]+)</code>", pages["evaluation"]))
    defined = set(re.findall(r"<dt><code>([a-z_0-9]+)</code>", pages["evaluation"]))
    assert named and named <= defined <= set(METRICS)
    right = html.unescape(re.search(r"A file that is accepted</h3>\n<pre>(.*?)</pre>", pages["data"], re.S)[1])
    wrong_code, wrong = re.search(r"A file that is rejected \(<code>([a-z_]+)</code>\)</h3>\n<pre>(.*?)</pre>",
                                  pages["data"], re.S).groups()
    definition = load_definition(competition)
    assert [p.code for p in validate_file(right.encode(), definition) if p.severity == "error"] == []
    got = [p.code for p in validate_file(html.unescape(wrong).encode(), definition) if p.severity == "error"]
    assert wrong_code in got
    # the limits and the reveal the pages state agree with the README
    readme = (out / "README.md").read_text()
    assert "At most 4 submissions a day" in pages["data"] and "submissions per participant and day: 4" in readme
    assert "shown after the end" in pages["overview"] and "when the organizers publish it" not in pages["overview"]


def test_plantclef2026_is_the_2025_test_set_and_metric():
    from agrieval.scoring.runtime.definition import load_definition
    from agrieval.scoring.runtime.guard import grade

    d25, d26 = load_definition("plantclef2025"), load_definition("plantclef2026")
    assert "2025 test set and metric" in d26.title and d26.url.endswith("plantclef-2026")
    assert (d26.primary_metric, d26.labels, d26.grouping, d26.split, d26.limits) == \
        (d25.primary_metric, d25.labels, d25.grouping, d25.split, d25.limits)
    for sub in sorted(SUBS.glob("*.csv")):
        a = grade(sub, SOLUTION, "plantclef2025", reveal_private=True)
        b = grade(sub, SOLUTION, "plantclef2026", reveal_private=True)
        assert (a.status, a.metrics.to_dict(), [e.code for e in a.errors]) == \
            (b.status, b.metrics.to_dict(), [e.code for e in b.errors])


MARKDOWN_PAGES = {"hf": ("COMPETITION_DESC.md", "SUBMISSION_DESC.md"),
                  "kaggle": ("pages/overview.md", "pages/submission.md")}


@pytest.mark.parametrize("platform", sorted(MARKDOWN_PAGES))
@pytest.mark.parametrize("competition, solution", [("plantclef2025", REF / "plantclef2025" / "solution.csv"),
                                                   ("agrichallenge2024", REF / "agrichallenge2024" / "solution.csv")])
def test_the_markdown_pages_define_every_metric_and_their_examples_validate_as_they_say(tmp_path, platform,
                                                                                         competition, solution):
    """The Markdown pages of `bundle hf` and `bundle kaggle` say what the other platforms' HTML pages say:
    each leaderboard key defined with its formula, an accepted and a rejected file (checked with the grader),
    the limits and the reveal, agreeing with the README (and Hugging Face's conf.json)."""
    import json
    import re

    from agrieval.scoring.authoring._bundles.metric_pages import METRICS
    from agrieval.scoring.runtime.definition import load_definition
    from agrieval.scoring.runtime.validate import validate_file

    out = tmp_path / platform
    res = CliRunner().invoke(cli, ["bundle", platform, "-c", competition, "-s", str(solution), "--per-day", "4",
                                   "--selection-limit", "3", str(out)])
    assert res.exit_code == 0, res.output
    overview, submission = ((out / name).read_text() for name in MARKDOWN_PAGES[platform])
    definition = load_definition(competition)
    defined = set(re.findall(r"^- `([a-z_0-9]+)`", overview, re.M))
    assert definition.primary_metric in defined and defined <= set(METRICS)
    assert "(the ranking metric)" in overview

    def block(title: str) -> tuple:
        m = re.search(rf"## {title}( \(`([a-z_]+)`\))?\n\n((?:    .*\n)+)", submission)
        return m[2], "".join(line[4:] + "\n" for line in m[3].splitlines())

    _, right = block("A file that is accepted")
    code, wrong = block("A file that is rejected")
    assert [p.code for p in validate_file(right.encode(), definition) if p.severity == "error"] == []
    assert code in [p.code for p in validate_file(wrong.encode(), definition) if p.severity == "error"]
    readme = (out / "README.md").read_text()
    assert "At most 4 submissions a day" in submission and "submissions per participant and day: 4" in readme
    assert "(up to 3)" in submission or "up to 3, chosen" in submission
    assert "shown after the end" in overview
    if platform == "hf":
        conf = json.loads((out / "conf.json").read_text())
        assert conf["SUBMISSION_LIMIT"] == 4 and conf["SELECTION_LIMIT"] == 3
        assert f"until {conf['END_DATE']}" in submission and conf["SCORING_METRIC"] in defined
