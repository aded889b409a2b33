"""CTV figures (PNG, matplotlib Agg): cross-team heatmaps, VTG distributions,
per-team bars. matplotlib is imported inside each function so that the rest of
``scoring`` never pays for it. Names (teams, archs) are drawn as text, never
mathtext, through ``scoring.text.plot``.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from scoring.runtime.atomic import write_bytes
from scoring.ctv.cross_team_matrix import CrossTeamMatrix
from scoring.ctv.results_table import ResultsTable
from scoring.text.plot import MAX_TICK_LABELS, drawing, inches, label, set_ticks


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    buf = io.BytesIO()
    # Fixed metadata so that the same data give the same bytes.
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    _pyplot().close(fig)
    write_bytes(path, buf.getvalue())
    return path


@drawing()
def heatmap(m: CrossTeamMatrix, path: Path) -> Path:
    plt = _pyplot()
    n = len(m.teams)
    size = max(4.5, 0.55 * n + 2.5)
    fig, ax = plt.subplots(figsize=(inches(size + 1), inches(size)))
    numbers = n <= 40  # one number per cell while they can be read
    off = m.off_diagonal()
    finite = off[np.isfinite(off)]
    vmin = float(np.floor(finite.min() / 5) * 5) if len(finite) else 0
    im = ax.imshow(off, cmap="viridis", vmin=vmin, vmax=100)
    for i in range(n if numbers else 0):
        for j in range(n):
            v = m.values[i, j]
            if np.isnan(v):
                continue
            if i == j:
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=True, color="0.85"))
                ax.text(j, i, f"{whole_percent(v)}\nval", ha="center", va="center", fontsize=7, color="0.3")
            else:
                ax.text(j, i, whole_percent(v), ha="center", va="center", fontsize=8,
                        color="white" if v < (vmin + 100) / 2 else "black")
    set_ticks(ax.set_xticks, range(n), m.teams, rotation=45, ha="right")
    set_ticks(ax.set_yticks, range(n), m.teams)
    ax.set_xlabel("test team")
    ax.set_ylabel("training team")
    ax.set_title(f"TOTO cross-team accuracy (%), {label(m.arch)}\n(diagonal: own-team validation, grey)")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="accuracy (%)")
    return _save(fig, path)


def whole_percent(value: float) -> str:
    """A percentage to the nearest whole number, halves rounded up as a reader expects (72.5 -> 73).

    ``f"{v:.0f}"`` rounds half to even (72.5 -> 72, 73.5 -> 74); the decimal text of the float is rounded
    instead, so 72.5 is 73 and 72.49999 stays 72.
    """
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(repr(float(value))).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


@drawing()
def vtg_distribution(table: ResultsTable, path: Path) -> Path:
    plt = _pyplot()
    labels, data = [], []
    for protocol in table.protocols():
        for arch in table.archs(protocol):
            labels.append(f"{protocol}\n{label(arch)}")
            data.append([r.vtg for r in table.group(protocol, arch)])
    fig, ax = plt.subplots(figsize=(inches(max(5, 1.4 * len(labels) + 1.5)), 4.2))
    ax.boxplot(data, showmeans=True, widths=0.5, showfliers=False)  # points are drawn below
    ax.set_xticks(range(1, len(labels) + 1), labels) if len(labels) <= MAX_TICK_LABELS else ax.set_xticks([])
    rng = np.random.default_rng(0)  # fixed jitter: same plot for the same data
    for k, d in enumerate(data, 1):
        ax.scatter(k + rng.uniform(-0.12, 0.12, len(d)), d, s=14, alpha=0.7, color="tab:blue", zorder=3)
    ax.axhline(0, color="0.5", lw=0.8, ls="--")
    ax.set_ylabel("VTG = val acc - test acc (points)")
    ax.set_title("Validation-test gap per team")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


@drawing()
def team_bars(table: ResultsTable, protocol: str, path: Path) -> Path:
    plt = _pyplot()
    archs = table.archs(protocol)
    teams = sorted({r.team for r in table.rows if r.protocol == protocol})
    cell = {(r.arch, r.team): r for r in table.rows if r.protocol == protocol}
    fig, ax = plt.subplots(figsize=(inches(max(6, 0.6 * len(teams) * max(1, len(archs)) + 2)), 4.2))
    width = 0.8 / max(1, len(archs))
    x = np.arange(len(teams))
    for k, arch in enumerate(archs):
        test = [cell[(arch, t)].test_acc if (arch, t) in cell else np.nan for t in teams]
        val = [cell[(arch, t)].val_acc if (arch, t) in cell else np.nan for t in teams]
        pos = x - 0.4 + width * (k + 0.5)
        ax.bar(pos, test, width, label=f"{label(arch)} test")
        ax.scatter(pos, val, marker="_", s=120, color="black", zorder=3, label="val" if k == 0 else None)
    set_ticks(ax.set_xticks, x, teams, rotation=45, ha="right")
    ax.set_ylim(0, 102)  # bars start at 0: a cut axis would make small gaps look large
    role = "training team" if protocol == "TOTO" else "held-out team"
    ax.set_xlabel(role)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(f"{protocol}: test accuracy per {role} (bars) and validation accuracy (ticks)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


@drawing()
def split_bars(split_accuracy: list[dict], path: Path) -> Path:
    """Train/val/test mean accuracy per (protocol, arch) with ±std error bars (the paper's Figs 4 and 10)."""
    plt = _pyplot()
    labels = [f"{g['protocol']}\n{label(g['arch'])}" for g in split_accuracy]
    fig, ax = plt.subplots(figsize=(inches(max(5, 1.6 * len(labels) + 1.5)), 4.2))
    x = np.arange(len(labels))
    for k, split in enumerate(("train", "val", "test")):
        mean = [g[split]["mean"] if g[split]["n_runs"] else np.nan for g in split_accuracy]
        std = [g[split]["std"] if g[split]["n_runs"] else np.nan for g in split_accuracy]
        ax.bar(x + (k - 1) * 0.27, mean, 0.27, yerr=np.nan_to_num(std), capsize=3, label=split)
    ax.set_xticks(x, labels) if len(labels) <= MAX_TICK_LABELS else ax.set_xticks([])
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 102)
    ddofs = sorted({f"{g['protocol']} ddof={g['ddof']}" for g in split_accuracy})
    ax.set_title(f"Train / val / test accuracy, mean ± std over runs ({', '.join(ddofs)})")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


@drawing()
def learning_curves(curves: list[dict], path: Path) -> Path:
    """Mean ± std band of the per-epoch accuracies, one panel per (protocol, arch) (the paper's Figs 5 and 11)."""
    plt = _pyplot()
    keys = sorted({(g["protocol"], g["arch"]) for g in curves})
    fig, axes = plt.subplots(1, len(keys), figsize=(inches(4.5 * len(keys)), 3.8), squeeze=False)
    for ax, (protocol, arch) in zip(axes[0], keys):
        rows = [g for g in curves if (g["protocol"], g["arch"]) == (protocol, arch)]
        for split in ("train", "val", "test"):
            pts = [(g["epoch"], g[split]["mean"], g[split]["std"]) for g in rows if g[split]["n_runs"]]
            if not pts:
                continue
            e, m, s = (np.array(v, dtype=float) for v in zip(*pts))
            s = np.nan_to_num(s)
            ax.plot(e, m, label=split)
            ax.fill_between(e, m - s, m + s, alpha=0.2)
        ax.set_title(f"{protocol} {label(arch)} (ddof={rows[0]['ddof']})")
        ax.set_xlabel("epoch")
        ax.set_ylabel("accuracy (%)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return _save(fig, path)
