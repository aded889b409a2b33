"""CTV figures (matplotlib Agg): cross-team heatmaps, VTG distributions, per-team bars, split bars and
learning curves, drawn as a paper prints them: every kind of marker in a legend, legends beside the data
(never over it), whole-number epoch ticks, one colour scale for the heatmaps of one report, one colour per
architecture in every figure (``agrieval.scoring.ctv._arch_colours``), a series that is absent said so where it
would be drawn, one y range for panels that are compared, and in-cell numbers with the tables' decimals.

Each ``draw_*`` returns the figure (tests look at it); ``write(draw_*, path, fmt, ...)`` writes it in the
asked-for format (``agrieval.scoring.writing.figures``). matplotlib is imported inside the
functions so that the rest of ``scoring`` never pays for it. Names (teams, archs) are drawn as text, never
mathtext, through ``agrieval.scoring.text.plot``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agrieval.scoring.ctv._arch_colours import SPLIT_COLOURS, arch_colour
from agrieval.scoring.ctv._on_the_line import probit
from agrieval.scoring.ctv._selection_rules import PAPER_RULE
from agrieval.scoring.ctv._spread import SPREADS, seed_stats
from agrieval.scoring.ctv.cross_team_matrix import CrossTeamMatrix
from agrieval.scoring.ctv.results_table import ResultsTable
from agrieval.scoring.text.plot import MAX_TICK_LABELS, drawing, inches, label, set_ticks
from agrieval.scoring.text.tables import fmt as number_text
from agrieval.scoring.writing.figures import FigureFormat, pyplot, save

# the box plot's parts, named once (the legend's handles are drawn with the same), in no architecture's colour
_MEDIAN, _MEAN = "black", "white"
_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}  # right of the axes
RULE = f"model selection: {PAPER_RULE}"  # every figure of one number per run names the rule that chose its epoch


def write(draw, path: Path, fmt: FigureFormat | None, *args) -> Path:
    """``draw(*args)`` saved to ``path`` in the format ``fmt``."""
    with drawing():  # mathtext off while the figure is drawn into the file too
        return save(draw(*args), path, fmt)


def shared_scale(matrices: Sequence[CrossTeamMatrix]) -> tuple[float, float]:
    """(vmin, vmax) of one colour scale for all the heatmaps of a report: the lowest off-diagonal accuracy
    of any of them, down to a multiple of 5, to 100. Two architectures' matrices then compare by colour."""
    values = [m.off_diagonal()[np.isfinite(m.off_diagonal())] for m in matrices]
    finite = np.concatenate(values) if values else np.zeros(0)
    return (float(np.floor(finite.min() / 5) * 5) if len(finite) else 0.0), 100.0


@drawing()
def draw_heatmap(m: CrossTeamMatrix, scale: tuple[float, float] | None = None, digits: int = 2,
                 spread: str | None = None):
    """``digits``: the decimals of the in-cell numbers, the report tables' (``--digits``); ``spread``: a cell of
    several seeds also shows ± that spread under its mean (``agrieval.scoring.ctv._spread``)."""
    plt = pyplot()
    vmin, vmax = scale or shared_scale([m])
    n = len(m.teams)
    size = max(4.5, 0.55 * n + 2.5)
    fig, ax = plt.subplots(figsize=(inches(size + 1), inches(size)))
    numbers = n <= 40  # one number per cell while they can be read
    spreads = False
    size_pt = 8 if digits <= 1 else 7 if digits == 2 else 6
    im = ax.imshow(m.off_diagonal(), cmap="viridis", vmin=vmin, vmax=vmax)
    for i in range(n if numbers else 0):
        for j in range(n):
            v = m.values[i, j]
            if np.isnan(v):
                continue
            text = number_text(v, digits)
            if spread is not None and len(m.seed_values(i, j)) > 1:
                text += f"\n± {number_text(seed_stats(m.seed_values(i, j))[spread], digits)}"
                spreads = True
            if i == j:
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=True, color="0.85"))
                ax.text(j, i, f"{text}\nval", ha="center", va="center", fontsize=size_pt - 1, color="0.3")
            else:
                ax.text(j, i, text, ha="center", va="center", fontsize=size_pt,
                        color="white" if v < (vmin + vmax) / 2 else "black")
    set_ticks(ax.set_xticks, range(n), m.teams, rotation=45, ha="right")
    set_ticks(ax.set_yticks, range(n), m.teams)
    ax.set_xlabel("test team")
    ax.set_ylabel("training team")
    over = f"; mean ± {SPREADS[spread]} over seeds" if spreads else ""
    ax.set_title(f"TOTO cross-team accuracy (%), {label(m.arch)}{over}\n(diagonal: own-team validation, grey; {RULE})")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="accuracy (%), one scale for all the heatmaps")
    return fig


@drawing()
def draw_vtg_distribution(table: ResultsTable):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    plt = pyplot()
    labels, data, archs = [], [], []
    for protocol in table.protocols():
        for arch in table.archs(protocol):
            labels.append(f"{protocol}\n{label(arch)}")
            data.append([r.vtg for r in table.group(protocol, arch)])
            archs.append(arch)
    fig, ax = plt.subplots(figsize=(inches(max(5, 1.4 * len(labels) + 1.5) + 2.6), 4.2))
    ax.boxplot(data, showmeans=True, widths=0.5, showfliers=False,  # every point is drawn below
               medianprops={"color": _MEDIAN, "lw": 1.5},
               meanprops={"marker": "^", "markerfacecolor": _MEAN, "markeredgecolor": "black", "markersize": 7,
                          "zorder": 4})
    ax.set_xticks(range(1, len(labels) + 1), labels) if len(labels) <= MAX_TICK_LABELS else ax.set_xticks([])
    rng = np.random.default_rng(0)  # fixed jitter: same plot for the same data
    for k, (d, arch) in enumerate(zip(data, archs), 1):
        ax.scatter(k + rng.uniform(-0.12, 0.12, len(d)), d, s=14, alpha=0.7, color=arch_colour(arch), zorder=3)
    ax.axhline(0, color="0.5", lw=0.8, ls="--")
    ax.set_ylabel("VTG = val acc - test acc (points)")
    ax.set_title(f"Validation-test gap per team ({RULE})")
    ax.grid(axis="y", alpha=0.3)
    handles = [Line2D([], [], ls="", marker="o", color=arch_colour(a), alpha=0.7, markersize=4,
                      label=f"one team (its run), {label(a)}") for a in dict.fromkeys(archs)]
    handles += [Line2D([], [], color=_MEDIAN, lw=1.5, label="median"),
                Line2D([], [], ls="", marker="^", markerfacecolor=_MEAN, markeredgecolor="black", markersize=7,
                       label="mean"),
                Patch(facecolor="none", edgecolor="black", label="box: middle half (quartiles)"),
                Line2D([], [], color="black", lw=1, label="whiskers: furthest point within\n1.5 x box height of the box"),
                Line2D([], [], color="0.5", lw=0.8, ls="--", label="no gap (VTG = 0)")]
    ax.legend(handles=handles, fontsize=8, **_OUTSIDE)
    return fig


def _absent(ax, x: float, text: str) -> None:
    """Say, where a bar would stand, that its series is absent (a missing bar is otherwise a zero)."""
    ax.text(x, 2, text, rotation=90, ha="center", va="bottom", fontsize=7, color="0.35")


@drawing()
def draw_team_bars(table: ResultsTable, protocol: str, spread: str | None = None):
    """``spread``: a bar of several seeds carries an error bar of ± that spread (``agrieval.scoring.ctv._spread``)."""
    plt = pyplot()
    archs = table.archs(protocol)
    teams = sorted({r.team for r in table.rows if r.protocol == protocol})
    cell = {(r.arch, r.team): r for r in table.rows if r.protocol == protocol}
    fig, ax = plt.subplots(figsize=(inches(max(6, 0.6 * len(teams) * max(1, len(archs)) + 2)), 4.2))
    width = 0.8 / max(1, len(archs))
    x = np.arange(len(teams))
    errors = False
    for k, arch in enumerate(archs):
        test = [cell[(arch, t)].test_acc if (arch, t) in cell else np.nan for t in teams]
        val = [cell[(arch, t)].val_acc if (arch, t) in cell else np.nan for t in teams]
        pos = x - 0.4 + width * (k + 0.5)
        stats = [seed_stats(cell[(arch, t)].seed_values("test_acc")) if (arch, t) in cell else None for t in teams]
        err = [s[spread] if spread and s and s["n_seeds"] > 1 else np.nan for s in stats]
        errors = errors or not np.all(np.isnan(err))
        ax.bar(pos, test, width, color=arch_colour(arch), label=f"{label(arch)} test",
               yerr=None if np.all(np.isnan(err)) else np.nan_to_num(err), capsize=3)
        ax.scatter(pos, val, marker="_", s=120, color="black", zorder=3,
                   label="validation (tick over each bar)" if k == 0 else None)
        for p, t in zip(pos, test):
            if t != t:
                _absent(ax, p, f"no {label(arch)} run")
    set_ticks(ax.set_xticks, x, teams, rotation=45, ha="right")
    ax.set_ylim(0, 102)  # bars start at 0: a cut axis would make small gaps look large
    role = "training team" if protocol == "TOTO" else "held-out team"
    ax.set_xlabel(role)
    ax.set_ylabel("accuracy (%)")
    over = f"mean over seeds ± {SPREADS[spread]}, " if errors else ""
    ax.set_title(f"{protocol}: test accuracy per {role} (bars) and validation accuracy (ticks)\n{over}{RULE}")
    return _legend_beside(fig, ax, f"± {SPREADS[spread]} over seeds" if errors else None)


@drawing()
def draw_split_bars(split_accuracy: list[dict]):
    """Train/val/test mean accuracy per (protocol, arch) with ±std error bars (the paper's Figs 4 and 10).

    The splits have colours of their own (no architecture's); a split a group has no predictions for is
    written where its bar would be ("no train predictions": the public script's runs, or
    ``--no-predict-train``), never left as a gap that reads as zero."""
    plt = pyplot()
    labels = [f"{g['protocol']}\n{label(g['arch'])}" for g in split_accuracy]
    fig, ax = plt.subplots(figsize=(inches(max(5, 1.6 * len(labels) + 1.5) + 1.6), 4.2))
    x = np.arange(len(labels))
    for k, split in enumerate(("train", "val", "test")):
        mean = [g[split]["mean"] if g[split]["n_runs"] else np.nan for g in split_accuracy]
        std = [g[split]["std"] if g[split]["n_runs"] else np.nan for g in split_accuracy]
        pos = x + (k - 1) * 0.27
        ax.bar(pos, mean, 0.27, yerr=np.nan_to_num(std), capsize=3, color=SPLIT_COLOURS[split], label=split)
        for p, m in zip(pos, mean):
            if m != m:
                _absent(ax, p, f"no {split} predictions")
    ax.set_xticks(x, labels) if len(labels) <= MAX_TICK_LABELS else ax.set_xticks([])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 102)
    ddofs = sorted({f"{g['protocol']} ddof={g['ddof']}" for g in split_accuracy})
    ax.set_title(f"Train / val / test accuracy, mean ± std over runs ({', '.join(ddofs)})\n{RULE}")
    return _legend_beside(fig, ax, "± std over runs")


def _legend_beside(fig, ax, error_bars: str | None):
    """The bars' legend beside the axes, with the error bars' own entry (``error_bars``: its text; None: no
    error bars), drawn as they are (an empty error bar: nothing on the axes); a grid along y."""
    if error_bars:
        ax.errorbar([np.nan], [np.nan], yerr=[1.0], fmt="none", ecolor="black", capsize=3, label=error_bars)
    ax.legend(fontsize=8, **_OUTSIDE)
    ax.grid(axis="y", alpha=0.3)
    return fig


@drawing()
def draw_learning_curves(curves: list[dict]):
    """Mean ± std band of the per-epoch accuracies, one panel per (protocol, arch) (the paper's Figs 5 and 11).

    The panels share one y range (they are read against each other); each split's legend swatch is its line
    over its band, in its colour; a split a panel has no points for is named in the panel."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    plt = pyplot()
    order = ("TOTO", "LOTO")  # the paper's order: TOTO (its Fig 5) before LOTO (Fig 11)
    protocols = sorted({g["protocol"] for g in curves}, key=lambda p: (order.index(p) if p in order else 2, p))
    archs = sorted({g["arch"] for g in curves})
    # a grid as the paper's figures: one row per protocol, one column per architecture
    fig, grid = plt.subplots(len(protocols), len(archs), figsize=(inches(4.2 * len(archs) + 2.2),
                                                                  3.3 * len(protocols) + 0.4),
                             squeeze=False, sharey=True, sharex=True)
    drawn: list[str] = []
    lows, highs = [], []
    for (r, protocol), (c, arch) in ((rc, ac) for rc in enumerate(protocols) for ac in enumerate(archs)):
        ax = grid[r][c]
        rows = [g for g in curves if (g["protocol"], g["arch"]) == (protocol, arch)]
        if not rows:
            ax.text(0.5, 0.5, f"no {protocol} runs of {label(arch)}", transform=ax.transAxes, ha="center",
                    fontsize=8, color="0.35")
            continue
        missing = []
        for split in ("train", "val", "test"):
            pts = [(g["epoch"], g[split]["mean"], g[split]["std"]) for g in rows if g[split]["n_runs"]]
            if not pts:
                missing.append(split)
                continue
            e, m, s = (np.array(v, dtype=float) for v in zip(*pts))
            s = np.nan_to_num(s)
            colour = SPLIT_COLOURS[split]
            lows.append(float(np.min(m - s)))
            highs.append(float(np.max(m + s)))
            ax.plot(e, m, color=colour, marker="o" if len(e) == 1 else None, label=split)
            if len(e) == 1:  # a band one epoch wide has no width: the std as an error bar
                ax.errorbar(e, m, yerr=s, color=colour, alpha=0.5, capsize=4, fmt="none")
            else:
                ax.fill_between(e, m - s, m + s, color=colour, alpha=0.2, lw=0)
            if split not in drawn:
                drawn.append(split)
        if missing:
            ax.text(0.02, 0.02, "not recorded: " + ", ".join(missing) + (" (run without --eval-test-every-epoch)" if missing == ["test"] else ""), transform=ax.transAxes, fontsize=7,
                    color="0.35", ha="left", va="bottom")
        ax.set_title(f"{protocol} {label(arch)} ({len({g['epoch'] for g in rows})} epochs, ddof={rows[0]['ddof']})",
                     fontsize=10)
        if r == len(protocols) - 1:
            ax.set_xlabel("epoch")
        # epochs are whole numbers: ticks at the epochs themselves when few, else whole numbers only (no 1.5)
        epochs = sorted({g["epoch"] for g in rows})
        if len(epochs) <= 12:
            ax.set_xticks(epochs)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if len(epochs) == 1:
            ax.set_xlim(epochs[0] - 0.5, epochs[0] + 0.5)
        ax.grid(alpha=0.3)
    for row in grid:
        row[0].set_ylabel("accuracy (%)")
    if lows:  # one range for every panel, from the lowest band to the highest, with a margin
        pad = max(1.0, 0.05 * (max(highs) - min(lows)))
        grid[0][0].set_ylim(max(0.0, min(lows) - pad), max(highs) + pad)
    # a swatch per split as drawn: its line over its band, in its colour
    handles = [(Patch(facecolor=SPLIT_COLOURS[s], alpha=0.2, lw=0), Line2D([], [], color=SPLIT_COLOURS[s]))
               for s in drawn]
    names = [f"{s}: mean over runs,\nband ± std over runs" for s in drawn]
    grid[0][-1].legend(handles, names, fontsize=8, **_OUTSIDE)  # one legend, beside the first row
    return fig


@drawing()
def draw_on_the_line(points: list[dict], fits: list[dict]):
    """Validation (x) against cross-team test accuracy (y) on probit axes, one panel per protocol (TOTO first):
    every (run, epoch) a dot in its architecture's colour, the fitted line, y = x dashed (no gap), R^2 and
    each architecture's effective robustness in the legend (Miller et al. 2021,
    ``agrieval.scoring.ctv._on_the_line``)."""
    from scipy.stats import norm


    plt = pyplot()
    fig, axes = plt.subplots(1, len(fits), figsize=(inches(5.2 * len(fits) + 2.4), 4.6), squeeze=False)
    ticks = np.array([1, 5, 10, 20, 30, 50, 70, 80, 90, 95, 99, 99.9])
    for ax, fit in zip(axes[0], fits):
        pts = [p for p in points if p["protocol"] == fit["protocol"]]
        x_all, y_all = probit([p["val"] for p in pts]), probit([p["test"] for p in pts])
        lo = float(min(x_all.min(), y_all.min())) - 0.25
        hi = float(max(x_all.max(), y_all.max())) + 0.25
        er = {a["arch"]: a["effective_robustness"] for a in fit["archs"]}
        for arch in sorted({p["arch"] for p in pts}):
            k = np.array([p["arch"] == arch for p in pts])
            text = f"{label(arch)}: ER {er[arch]:+.2f} pts" if arch in er else label(arch)
            ax.scatter(x_all[k], y_all[k], s=14, alpha=0.7, color=arch_colour(arch), label=text)
        grid = np.linspace(lo, hi, 50)
        ax.plot(grid, grid, color="0.5", lw=1, ls="--", label="y = x (val = test)")
        if fit["slope"] == fit["slope"]:
            ax.plot(grid, fit["slope"] * grid + fit["intercept"], color="black", lw=1.5,
                    label=f"fit: slope {fit['slope']:.2f}, R² {fit['r2']:.2f}")
        shown = ticks[(norm.ppf(ticks / 100) >= lo) & (norm.ppf(ticks / 100) <= hi)]
        for setter in (ax.set_xticks, ax.set_yticks):
            setter(norm.ppf(shown / 100), [f"{t:g}" for t in shown])
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("validation accuracy, training team(s) (%, probit scale)")
        ax.set_ylabel("test accuracy, other team(s) (%, probit scale)")
        n_runs = len({(p["arch"], p["fold"], p["seed"]) for p in pts})
        kind = "final points of" if all(p["epoch"] is None for p in pts) else "epochs of"
        ax.set_title(f"{fit['protocol']}: {fit['n_points']} points ({kind} {n_runs} runs)"
                     + ("" if kind.startswith("final") else ", no selection"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1)  # below, never over data
    return fig

