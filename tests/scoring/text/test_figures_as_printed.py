"""The figures as a paper prints them, checked on the matplotlib objects and the files written:
a legend entry for every kind of marker, legends that cover no data, whole-number epoch ticks, one colour
scale across a report's heatmaps, and --format png|svg|pdf with --dpi (by the files' first bytes)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("matplotlib")

from matplotlib.collections import PathCollection  # noqa: E402

from agrieval.scoring.authoring.definitions import load_competition  # noqa: E402
from agrieval.scoring.cli.main import cli  # noqa: E402
from agrieval.scoring.ctv import _plots as plots  # noqa: E402
from agrieval.scoring.ctv._arch_colours import arch_colour  # noqa: E402
from agrieval.scoring.ctv.results_table import read_results  # noqa: E402
from agrieval.scoring.leaderboard import plots as lb_plots  # noqa: E402
from agrieval.scoring.leaderboard.build import build_leaderboard  # noqa: E402
from agrieval.scoring.writing.figures import pyplot  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
RESULTS = REPO / "examples/ctv/RESULTS.csv"
RUNS = REPO / "examples/ctv/runs"
AGRI = REPO / "reference_submissions/agrichallenge2024"
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}


def _curves(epochs, archs=("densenet121", "swin_tiny")):
    out = []
    for arch in archs:
        for e in epochs:
            g = {"protocol": "TOTO", "arch": arch, "epoch": e, "ddof": 0}
            for k, s in enumerate(("train", "val", "test")):
                g[s] = {"n_runs": 3, "mean": 50.0 + 7 * e - 4 * k, "std": 2.0}
            out.append(g)
    return out


@pytest.fixture(scope="module")
def boards():
    definition = load_competition("agrichallenge2024")
    # alpha this small: no gap to the leader is significant, so hollow points are drawn too
    return {alpha: build_leaderboard(AGRI / "submissions", AGRI / "solution.csv", definition, reveal_private=True,
                                     n_resamples=200, seed=0, alpha=alpha) for alpha in (0.05, 0.0001)}


def _figures(boards):
    table = read_results(RESULTS)
    from agrieval.scoring.ctv import _paper_figures as paper_figures
    from agrieval.scoring.ctv.report import build_report  # noqa: F401 (the split accuracies come from the bundled runs)
    from agrieval.scoring.ctv.run_set import read_runs
    from agrieval.scoring.ctv.summarize import summarize

    runset = read_runs([RUNS])
    ddof = summarize(runset.results_table()).ddof
    return {
        "vtg": plots.draw_vtg_distribution(table),
        "bars_TOTO": plots.draw_team_bars(table, "TOTO"),
        "bars_LOTO": plots.draw_team_bars(table, "LOTO"),
        "splits": plots.draw_split_bars(paper_figures.split_accuracy(runset.records, ddof)),
        "curves": plots.draw_learning_curves(_curves([1, 2, 3])),
        "scores": lb_plots._draw_scores_chart(boards[0.05]),
        "scores_hollow": lb_plots._draw_scores_chart(boards[0.0001]),
        "ranks": lb_plots._draw_rank_chart(boards[0.05]),
    }


def test_every_legend_stands_beside_the_data_never_over_it(boards):
    for name, fig in _figures(boards).items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
        assert legends, name
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for ax in fig.axes:
                if ax.get_label() == "<colorbar>":
                    continue
                assert not box.overlaps(ax.get_window_extent(renderer)), (name, ax.get_title())
        pyplot().close(fig)


def test_the_vtg_box_plot_has_a_legend_entry_for_every_mark():
    fig = plots.draw_vtg_distribution(read_results(RESULTS))
    ax = fig.axes[0]
    handles = ax.get_legend().legend_handles
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    # what the axes hold: the points (one collection per box, in its arch's colour), medians, means, boxes,
    # whiskers, the zero line
    archs = ["densenet121", "swin_tiny"]
    assert len(handles) == 7 and labels[:4] == [f"one team (its run), {a}" for a in archs] + ["median", "mean"]
    assert any(isinstance(c, PathCollection) for c in ax.collections)
    by_label = dict(zip(labels, handles))
    point_colours = {tuple(np.round(c.get_facecolor()[0][:3], 3)) for c in ax.collections}
    from matplotlib.colors import to_rgb

    assert point_colours == {tuple(np.round(to_rgb(arch_colour(a)), 3)) for a in archs}
    lines = [line for line in ax.get_lines()]
    median_colours = {line.get_color() for line in lines if line.get_linestyle() == "-" and line.get_marker() in
                      ("None", "", None) and len(set(np.asarray(line.get_ydata(), dtype=float))) == 1
                      and line.get_color() == by_label["median"].get_color()}
    assert median_colours == {by_label["median"].get_color()}
    means = [line for line in lines if line.get_marker() == "^"]
    assert means and all(m.get_markerfacecolor() == by_label["mean"].get_markerfacecolor() for m in means)
    assert "whiskers" in " ".join(labels) and "box" in " ".join(labels) and "VTG = 0" in " ".join(labels)
    pyplot().close(fig)


def test_the_scores_chart_has_a_legend_entry_for_every_kind_of_mark(boards):
    for alpha, board in boards.items():
        fig = lb_plots._draw_scores_chart(board)
        ax = fig.axes[0]
        points = {(line.get_color(), line.get_markerfacecolor() == "white")
                  for line in ax.get_lines() if line.get_marker() == "o"}
        kinds = {c for c, _ in points} | ({"hollow"} if any(h for _, h in points) else set())
        kinds |= {"interval"} if any(line.get_marker() in ("None", "", None) for line in ax.get_lines()) else set()
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert len(labels) == len(kinds), (alpha, labels, kinds)
        assert any("hollow" in label for label in labels) == (alpha == 0.0001)
        pyplot().close(fig)


def test_the_rank_chart_names_every_colour_it_draws(boards):
    fig = lb_plots._draw_rank_chart(boards[0.05])
    ax = fig.axes[0]
    colours = {line.get_color() for line in ax.get_lines() if line.get_marker() == "o"}
    handles = ax.get_legend().legend_handles
    assert {h.get_color() for h in handles if h.get_marker() == "o"} == colours
    assert len(handles) == len(colours) + 1  # and the dashed line of equal ranks
    pyplot().close(fig)


@pytest.mark.parametrize("epochs", [[1], [1, 2], [1, 2, 3], list(range(1, 21)), [3, 7, 12]])
def test_epoch_ticks_are_whole_numbers(epochs):
    fig = plots.draw_learning_curves(_curves(epochs))
    fig.canvas.draw()
    for ax in fig.axes:
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
        assert ticks and all(float(t).is_integer() for t in ticks), (epochs, ticks)
        assert all(label.get_text().lstrip("−-").isdigit() for label in ax.get_xticklabels() if label.get_text())
    legend = next(ax.get_legend() for ax in fig.axes if ax.get_legend())  # one legend, beside the first row
    assert len(legend.get_texts()) == 3  # train, val, test: each its line over its band
    pyplot().close(fig)


def test_learning_curve_swatches_are_the_bands_and_lines_they_label_and_panels_share_a_y_range():
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgba

    fig = plots.draw_learning_curves(_curves([1, 2, 3]))
    axes = fig.axes
    assert len({ax.get_ylim() for ax in axes}) == 1  # panels read against each other: one range
    band_colours = {to_rgba(c.get_facecolor()[0]) for ax in axes for c in ax.collections
                    if isinstance(c, PolyCollection)}
    line_colours = {to_rgba(line.get_color()) for ax in axes for line in ax.get_lines()}
    legend = next(ax.get_legend() for ax in axes if ax.get_legend())
    swatch_bands = {to_rgba(h.get_facecolor()) for h in legend.legend_handles}  # each swatch: band under line
    assert len(band_colours) == 3 and swatch_bands == band_colours  # colour and transparency as drawn
    assert {to_rgba(c)[:3] for c in band_colours} == {to_rgba(c)[:3] for c in line_colours}
    assert {to_rgba(c)[:3] for c in line_colours} == {to_rgba(plots.SPLIT_COLOURS[s])[:3] for s in
                                                      ("train", "val", "test")}
    pyplot().close(fig)


def test_a_split_without_predictions_is_named_where_its_bar_would_be():
    from agrieval.scoring.ctv import _paper_figures as paper_figures
    from agrieval.scoring.ctv.run_set import read_runs
    from agrieval.scoring.ctv.summarize import summarize

    runset = read_runs([RUNS])
    groups = paper_figures.split_accuracy(runset.records, summarize(runset.results_table()).ddof)
    fig = plots.draw_split_bars(groups)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("no train predictions") == sum(not g["train"]["n_runs"] for g in groups) > 0
    pyplot().close(fig)


def test_an_architecture_has_one_colour_in_every_figure():
    from matplotlib.colors import to_hex

    table = read_results(RESULTS)
    seen: dict[str, set] = {}
    for protocol in ("TOTO", "LOTO"):
        fig = plots.draw_team_bars(table, protocol)
        for handle, text in zip(fig.axes[0].get_legend().legend_handles, fig.axes[0].get_legend().get_texts()):
            if text.get_text().endswith(" test"):
                seen.setdefault(text.get_text()[:-5], set()).add(to_hex(handle.get_facecolor()))
        pyplot().close(fig)
    assert seen and all(colours == {arch_colour(a)} for a, colours in seen.items())
    # keyed by the name, not by the order: swin_tiny alone or after swin_base, the same colour
    assert arch_colour("swin_tiny") != arch_colour("swin_base") and arch_colour("x1") == arch_colour("x1")


def test_heatmap_numbers_have_the_tables_decimals():
    from agrieval.scoring.ctv.cross_team_matrix import toto_matrices
    from agrieval.scoring.ctv.run_set import read_runs
    from agrieval.scoring.text.tables import fmt

    m = toto_matrices(read_runs([RUNS]).records)[0]
    for digits in (0, 2):
        fig = plots.draw_heatmap(m, digits=digits)
        texts = {t.get_text().split("\n")[0] for t in fig.axes[0].texts}
        assert texts == {fmt(v, digits) for v in m.values.ravel() if v == v}
        pyplot().close(fig)


def test_a_zero_width_interval_is_drawn_as_a_bar(boards):
    fig = lb_plots._draw_scores_chart(boards[0.05])
    ax = fig.axes[0]
    zero = [e for e in boards[0.05].scored for s in (e.public, e.private) if s is not None and s.ci_low == s.ci_high]
    bars = [line for line in ax.get_lines() if line.get_marker() == "|"]
    assert zero and len(bars) == sum(1 for e in boards[0.05].scored for s in (e.public, e.private)
                                     if s is not None and s.ci_low == s.ci_high)
    pyplot().close(fig)


def test_a_report_draws_all_its_heatmaps_on_one_colour_scale(tmp_path, monkeypatch):
    from agrieval.scoring.ctv.report import build_report

    seen = []
    write = plots.save

    def keep(fig, path, fmt=None):
        images = [im for ax in fig.axes for im in ax.get_images()]
        if images:
            seen.append((Path(path).name, images[0].get_clim()))
        return write(fig, path, fmt)

    monkeypatch.setattr(plots, "save", keep)
    build_report([RUNS], tmp_path / "rep", plots=True)
    assert len(seen) == 3 and len({clim for _, clim in seen}) == 1, seen
    lows = []
    for m in __import__("agrieval.scoring.ctv.cross_team_matrix", fromlist=["x"]).toto_matrices(
            __import__("agrieval.scoring.ctv.run_set", fromlist=["x"]).read_runs([RUNS]).records):
        off = m.off_diagonal()
        lows.append(np.nanmin(off))
    assert seen[0][1] == (np.floor(min(lows) / 5) * 5, 100.0)
    assert len({np.floor(low / 5) * 5 for low in lows}) > 1  # per matrix, the scales would differ


def _png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_leaderboard_writes_the_asked_for_format_with_the_same_bytes_twice(tmp_path, fmt):
    outs = []
    for k in range(2):
        out = tmp_path / f"lb{k}"
        res = CliRunner().invoke(cli, ["leaderboard", str(AGRI / "submissions"), "-s", str(AGRI / "solution.csv"),
                                       "-c", "agrichallenge2024", "--reveal-private", "--plots", "--format", fmt,
                                       "--resamples", "50", "--out", str(out)])
        assert res.exit_code == 0, res.output
        outs.append(out)
    for chart in ("scores", "ranks"):
        data = (outs[0] / f"{chart}.{fmt}").read_bytes()
        assert data.startswith(MAGIC[fmt]) and (fmt != "svg" or b"<svg" in data[:2000])
        assert data == (outs[1] / f"{chart}.{fmt}").read_bytes()
        assert not (outs[0] / f"{chart}.png").exists() or fmt == "png"


def test_dpi_sets_the_resolution(tmp_path):
    sizes = {}
    for dpi in (100, 300):
        out = tmp_path / f"lb{dpi}"
        res = CliRunner().invoke(cli, ["leaderboard", str(AGRI / "submissions"), "-s", str(AGRI / "solution.csv"),
                                       "-c", "agrichallenge2024", "--plots", "--dpi", str(dpi), "--resamples", "50",
                                       "--out", str(out)])
        assert res.exit_code == 0, res.output
        sizes[dpi] = _png_size((out / "scores.png").read_bytes())
    assert sizes[300][0] == pytest.approx(sizes[100][0] * 3, rel=0.02)
    assert sizes[300][1] == pytest.approx(sizes[100][1] * 3, rel=0.02)


@pytest.mark.parametrize("fmt", ["svg", "pdf"])
def test_ctv_report_in_a_vector_format(tmp_path, fmt):
    out = tmp_path / "rep"
    res = CliRunner().invoke(cli, ["ctv", "report", str(RUNS), "--out", str(out), "--plots", "--format", fmt])
    assert res.exit_code == 0, res.output
    figures = sorted(out.glob(f"plots/*.{fmt}"))
    assert len(figures) == 8 and not list(out.glob("plots/*.png"))  # with accuracy on the line
    assert all(f.read_bytes().startswith(MAGIC[fmt]) for f in figures)
    html = (out / "report.html").read_text()
    if fmt == "svg":
        assert html.count("data:image/svg+xml;base64,") == len(figures)
    else:  # no browser shows a PDF inline: linked
        assert html.count('.pdf">') == len(figures) and "data:image" not in html


@pytest.mark.parametrize("command", [["ctv", "report", str(RUNS)], ["leaderboard", str(AGRI / "submissions"), "-s",
                                                                    str(AGRI / "solution.csv"), "-c",
                                                                    "agrichallenge2024"]])
def test_format_or_dpi_without_plots_is_a_usage_error(tmp_path, command):
    res = CliRunner().invoke(cli, [*command, "--out", str(tmp_path / "o"), "--format", "svg", "--dpi", "300"])
    assert res.exit_code == 2 and "--format and --dpi apply only with --plots" in res.output
    assert not (tmp_path / "o").exists()


def test_learning_curves_are_a_grid_with_toto_first():
    """As the paper's Figs 5 and 11: one row per protocol, TOTO on top, one column per architecture."""
    curves = [dict(g, protocol=p) for p in ("LOTO", "TOTO") for g in _curves([1, 2, 3], archs=("net_b", "net_a"))]
    fig = plots.draw_learning_curves(curves)
    titles = [ax.get_title() for ax in fig.axes]
    assert [t.split(" (")[0] for t in titles] == ["TOTO net_a", "TOTO net_b", "LOTO net_a", "LOTO net_b"]
    rows = sorted({round(ax.get_position().y0, 3) for ax in fig.axes}, reverse=True)
    assert len(rows) == 2 and fig.axes[0].get_position().y0 == pytest.approx(rows[0], abs=1e-3)  # TOTO on top
    pyplot().close(fig)
