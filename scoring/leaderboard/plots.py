"""Leaderboard charts (PNG, matplotlib Agg): scores with bootstrap intervals,
and public vs private rank. matplotlib is imported inside the functions.
Submission names are drawn as text, never mathtext (``scoring.text.plot``)."""

from __future__ import annotations

import io
from pathlib import Path

from scoring.runtime.atomic import write_bytes
from scoring.leaderboard.build import Leaderboard
from scoring.text.plot import MAX_TICK_LABELS, drawing, inches, label, set_ticks


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    write_bytes(path, buf.getvalue())
    return path


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


@drawing()
def scores_chart(board: Leaderboard, path: Path) -> Path:
    plt = _pyplot()
    entries = board.scored
    fig, ax = plt.subplots(figsize=(7.5, inches(max(2.5, 0.42 * len(entries) + 1.2))))
    splits = ["public"] + (["private"] if board.reveal_private else [])
    offsets = {"public": -0.15, "private": 0.15} if board.reveal_private else {"public": 0.0}
    for split, color in zip(splits, ("tab:blue", "tab:orange")):
        for k, e in enumerate(entries):
            s = getattr(e, split)
            if s is None:
                continue
            y = k + offsets[split]
            if s.ci_low == s.ci_low:
                ax.plot([s.ci_low, s.ci_high], [y, y], color=color, lw=2, alpha=0.6)
            real = s.vs_leader is None or s.vs_leader.significant
            ax.plot(s.score, y, "o", color=color, mfc=color if real else "white",
                    label=split if k == 0 else None)
    set_ticks(ax.set_yticks, range(len(entries)), [f"{e.public.rank}. {label(e.name)}" for e in entries])
    ax.invert_yaxis()
    ax.set_xlabel(f"{label(board.metric)} ({board.confidence:.0%} bootstrap interval over {label(board.unit_name)}s)")
    ax.set_title(f"{label(board.competition)}: scores (hollow: gap to leader not significant)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    return _save(fig, path)


@drawing()
def rank_chart(board: Leaderboard, path: Path) -> Path:
    plt = _pyplot()
    entries = [e for e in board.scored if e.private is not None]
    n = len(entries)
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot([1, n], [1, n], color="0.6", ls="--", lw=1)
    for e in entries:
        shift = e.rank_shift or 0
        color = "tab:green" if shift > 0 else "tab:red" if shift < 0 else "tab:blue"
        ax.plot(e.public.rank, e.private.rank, "o", color=color)
        if n <= MAX_TICK_LABELS:  # past that the names would be one black smear
            ax.annotate(label(e.name), (e.public.rank, e.private.rank), fontsize=7, xytext=(4, 3), textcoords="offset points")
    if n <= 25:
        ax.set_xticks(range(1, n + 1))
        ax.set_yticks(range(1, n + 1))
    ax.set_xlim(0.5, n + 0.5)
    ax.set_ylim(n + 0.5, 0.5)  # rank 1 at the top
    ax.set_xlabel("public rank")
    ax.set_ylabel("private rank")
    rho = (board.agreement or {}).get("spearman", {}).get("statistic")
    title = "Public vs private rank"
    if rho is not None and rho == rho:
        title += f" (Spearman rho = {rho:.3f})"
    ax.set_title(title + "\ngreen: moved up, red: moved down")
    ax.grid(alpha=0.3)
    return _save(fig, path)
