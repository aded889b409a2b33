"""Issue 22: names, run files and tables are data at every sink, never markup.

A run file's ``arch``, a team name or a submission file name lands in
report.md, report.html, leaderboard.md, PNG figures and progress lines; each
test here failed before the sinks escaped their text (agrieval.scoring.text).
"""

from __future__ import annotations

import html.parser
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from tests.scoring.ctv.run_folders import write_run

REF = Path(__file__).resolve().parents[3] / "reference_submissions"
PC = REF / "plantclef2025"


class Elements(html.parser.HTMLParser):
    """Every start tag with its attributes, and the text, of an HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, tuple(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def elements(page: str) -> Elements:
    p = Elements()
    p.feed(page)
    p.close()
    return p


def _toto(root: Path, arch: str, team: str = "b") -> Path:
    write_run(root, "TOTO", "net", "a", {("a", "val"): (9, 10), (team, "test"): (6, 10)}, {"arch": arch})
    write_run(root, "TOTO", "net", team, {(team, "val"): (8, 10), ("a", "test"): (5, 10)}, {"arch": arch})
    return root


def _report(runs: Path, out: Path, *extra: str):
    return CliRunner().invoke(cli, ["ctv", "report", str(runs), "--out", str(out), *extra])


@pytest.mark.parametrize("target", ["SECRET", "/dev/zero", "/no/such/file.png"])
def test_an_arch_naming_an_image_never_embeds_a_local_file(tmp_path, target):
    secret = tmp_path / "secret.png"
    secret.write_text("TOP-SECRET-CONTENT")
    path = str(secret) if target == "SECRET" else target
    runs = _toto(tmp_path / "runs", f"x\n![x]({path})")
    res = _report(runs, tmp_path / "out")
    assert res.exit_code == 0, res.output
    page = (tmp_path / "out" / "report.html").read_text()
    assert "base64" not in page  # no image was embedded at all (no --plots)
    assert not [t for t, _ in elements(page).tags if t == "img"]
    md = (tmp_path / "out" / "report.md").read_text()
    assert f"\\]({path})" in md  # the arch is text: its brackets are escaped
    assert not re.search(r"(?<!\\)\]\(", md)


def test_the_html_step_embeds_only_images_the_report_wrote(tmp_path):
    from agrieval.scoring.text.markdown_html import to_html

    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG-SECRET")
    (tmp_path / "plots").mkdir()
    (tmp_path / "plots" / "a.png").write_bytes(b"\x89PNG-OURS")
    md = f"# t\n\n![ours](plots/a.png)\n\n![theirs]({secret})\n\n![zero](/dev/zero)\n\n![gone](plots/b.png)\n"
    page = to_html(md, "t", images={"plots/a.png": tmp_path / "plots" / "a.png",
                                    "plots/b.png": tmp_path / "plots" / "b.png"})
    srcs = [dict(a)["src"] for t, a in elements(page).tags if t == "img"]
    import base64

    assert [base64.b64decode(s.split(",", 1)[1]) for s in srcs] == [b"\x89PNG-OURS"]


@pytest.mark.parametrize("shape", ["link", "fifo", "folder", "over the cap"])
def test_a_figure_of_ours_replaced_by_another_shape_is_not_embedded(tmp_path, shape):
    """The figure is read by the opening rule (a regular file under the cap, not a link): a link to a secret,
    a FIFO (a plain read would hang), a folder or a huge file in its place leaves the figure out."""
    import os

    from agrieval.scoring.text import markdown_html

    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG-SECRET")
    figure = tmp_path / "a.png"
    if shape == "link":
        figure.symlink_to(secret)
    elif shape == "fifo":
        os.mkfifo(figure)
    elif shape == "folder":
        figure.mkdir()
    else:
        with open(figure, "wb") as fh:
            fh.truncate(markdown_html.MAX_IMAGE_BYTES + 1)
    page = markdown_html.to_html("# t\n\n![a](a.png)\n", "t", images={"a.png": figure})
    assert "<img" not in page and "SECRET" not in page and "not available" in page


HOSTILE_ARCHS = ["<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "<script>alert(1)</script>",
                 "a|b|c", "**bold** `code` ~~s~~", "x\n# heading\n| a | b |", "$^^^$", "\x1b[31mred\u202e"]


@pytest.mark.parametrize("arch", HOSTILE_ARCHS)
def test_a_hostile_arch_is_text_in_report_md_and_html(tmp_path, arch):
    pytest.importorskip("cmarkgfm")
    import cmarkgfm
    from cmarkgfm.cmark import Options

    runs = _toto(tmp_path / "runs", arch, team="t<b>&amp;")
    res = _report(runs, tmp_path / "out")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "out" / "report.md").read_text()
    calm = tmp_path / "calm"
    _report(_toto(tmp_path / "calm_runs", "plainarch", team="plainteam"), calm)
    for page, calm_page in ((cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE),
                             cmarkgfm.github_flavored_markdown_to_html((calm / "report.md").read_text(),
                                                                       options=Options.CMARK_OPT_UNSAFE)),
                            ((tmp_path / "out" / "report.html").read_text(), (calm / "report.html").read_text())):
        got, calm_el = elements(page), elements(calm_page)
        # the same elements as a report of plain names: none came from the names
        assert sorted({t for t, _ in got.tags}) == sorted({t for t, _ in calm_el.tags})
        assert len(got.tags) == len(calm_el.tags)
        assert not [a for _, attrs in got.tags for a in attrs if a[0] in ("href", "onerror")]
    assert "\x1b" not in md and "\u202e" not in md


def test_plots_draw_names_with_dollars_and_carets(tmp_path):
    pytest.importorskip("matplotlib")
    runs = _toto(tmp_path / "runs", "$^^^$", team="$\\frac{")
    res = _report(runs, tmp_path / "out", "--plots")
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output and "Warning" not in res.output
    assert (tmp_path / "out" / "report.html").read_text().count("<img") >= 3


def _board(tmp_path, names, *extra):
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in names:
        shutil.copy(PC / "submissions" / "partial.csv", subs / name)
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["leaderboard", str(subs), "-s", str(PC / "solution.csv"), "-c", "plantclef2025",
                                   "--out", str(out), "--resamples", "20", *extra])
    return res, out


def test_leaderboard_md_holds_names_as_text(tmp_path):
    pytest.importorskip("cmarkgfm")
    import cmarkgfm
    from cmarkgfm.cmark import Options

    names = ["<img src=x onerror=alert(1)>.csv", "[x](javascript:alert(1)).csv", "a|b.csv", "*x*_y_.csv",
             "http:x.csv", "www.evil.example.csv"]
    res, out = _board(tmp_path, names)
    assert res.exit_code == 0, res.output
    page = cmarkgfm.github_flavored_markdown_to_html((out / "leaderboard.md").read_text(),
                                                     options=Options.CMARK_OPT_UNSAFE)
    got = elements(page)
    assert {t for t, _ in got.tags} <= {"h1", "p", "code", "em", "table", "thead", "tbody", "tr", "th", "td"}
    assert not [a for _, attrs in got.tags for a in attrs if a[0] != "align"]
    text = "".join(got.text)
    for name in names:
        assert name[:-4] in text  # shown as written


def test_a_newline_in_a_file_name_does_not_split_the_progress_line(tmp_path):
    res, out = _board(tmp_path, ["two\nlines.csv", "ok.csv"])
    assert res.exit_code == 0, res.output
    progress = [line for line in res.stderr.splitlines() if line.startswith("[")]
    assert len(progress) == 2 and any("two%0Alines" in line for line in progress), res.stderr
    assert "| two%0Alines |" in (out / "leaderboard.md").read_text()


def test_leaderboard_plots_draw_mathtext_names(tmp_path):
    pytest.importorskip("matplotlib")
    res, out = _board(tmp_path, ["$^^^$.csv", "$\\frac{.csv", "ok.csv"], "--plots", "--reveal-private")
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output and "Warning" not in res.output
    assert (out / "scores.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "ranks.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((out / "leaderboard.json").read_text())["entries"]


HOSTILE_FILE = "a\x1b[2J\rb\nc\u202e.csv"


@pytest.mark.parametrize("command", ["validate", "score"])
def test_terminal_lines_never_carry_a_names_control_characters(tmp_path, command):
    sub = tmp_path / HOSTILE_FILE
    shutil.copy(PC / "submissions" / "malformed" / "float_labels.csv", sub)
    args = [command, str(sub), "-c", "plantclef2025"] + (["-s", str(PC / "solution.csv")] if command == "score" else [])
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 1, res.output
    for ch in ("\x1b", "\r", "\u202e"):
        assert ch not in res.output, repr(res.output)
    assert all("error [" in line or "INVALID" in line or "competition:" in line or not line.strip()
               for line in res.output.splitlines()), res.output


def test_rank_agreement_error_line_is_one_line(tmp_path):
    a = tmp_path / "a\nb\x1b.csv"
    a.write_text("team,v\nx,1\nx,2\n")
    res = CliRunner().invoke(cli, ["rank-agreement", str(a), str(a), "--key", "team", "--value", "v"])
    assert res.exit_code in (1, 2), res.output
    assert len(res.stderr.strip().splitlines()) == 1 and "\x1b" not in res.stderr, repr(res.stderr)


def test_ctv_summarize_markdown_holds_names_as_text(tmp_path):
    pytest.importorskip("cmarkgfm")
    import cmarkgfm
    from cmarkgfm.cmark import Options

    table = tmp_path / "r.csv"
    rows = [("TOTO", "<img src=x onerror=1>", f"[t{i}](javascript:x)", 90 - i, 70 + i) for i in range(4)]
    rows += [("TOTO", "b|`x`", f"[t{i}](javascript:x)", 80 - i, 60 + 2 * i) for i in range(4)]
    table.write_text("protocol,arch,team,val_acc,test_acc\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    out = tmp_path / "s.md"
    res = CliRunner().invoke(cli, ["ctv", "summarize", str(table), "--out", str(out)])
    assert res.exit_code == 0, res.output
    got = elements(cmarkgfm.github_flavored_markdown_to_html(out.read_text(), options=Options.CMARK_OPT_UNSAFE))
    assert {t for t, _ in got.tags} <= {"h3", "p", "strong", "table", "thead", "tbody", "tr", "th", "td"}
    assert not [a for _, attrs in got.tags for a in attrs if a[0] != "align"]


def test_a_heatmap_of_many_teams_is_bounded(tmp_path):
    """1,500 test teams in one predictions file made a 121,000-pixel figure: MemoryError (exit 3)."""
    pytest.importorskip("matplotlib")
    import numpy as np

    from agrieval.scoring.ctv import _plots as plots
    from agrieval.scoring.ctv.cross_team_matrix import CrossTeamMatrix
    from agrieval.scoring.text.plot import MAX_INCHES

    n = 1200
    m = CrossTeamMatrix("net", [f"t{i}" for i in range(n)], np.random.default_rng(0).uniform(50, 100, (n, n)))
    plots.write(plots.draw_heatmap, tmp_path / "h.png", None, m)
    image = pytest.importorskip("PIL.Image")

    with image.open(tmp_path / "h.png") as img:
        assert max(img.size) <= 1.5 * MAX_INCHES * 110  # (bbox "tight" adds the colorbar's labels)
