"""Leaderboard charts (matplotlib Agg): scores with bootstrap intervals, and public vs private rank.

Every kind of marker has its legend entry, and legends stand beside the axes, never over a point.
``draw_*`` returns the figure (tests look at it); the function without ``draw_`` writes it in the
asked-for format (``agrieval.scoring.writing.figures``). matplotlib is imported inside the functions.
Submission names are drawn as text, never mathtext (``agrieval.scoring.text.plot``).
"""

from __future__ import annotations

from pathlib import Path

from agrieval.scoring.leaderboard._marks import DESCRIPTIONS
from agrieval.scoring.leaderboard.build import Leaderboard
from agrieval.scoring.text.plot import MAX_TICK_LABELS, drawing, inches, label, set_ticks
from agrieval.scoring.writing.figures import FigureFormat, pyplot, save

_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}  # right of the axes
_SPLIT_COLOURS = {"public": "tab:blue", "private": "tab:orange"}
_SHIFT_COLOURS = {"up": "tab:green", "down": "tab:red", "same": "tab:blue"}
# marks.py's marks: a red ring around a flagged team's point, a grey square around a Ladder-held score's
_MARKERS = {"flagged": {"marker": "o", "ms": 13, "mfc": "none", "mec": "tab:red", "mew": 1.8},
            "held": {"marker": "s", "ms": 11, "mfc": "none", "mec": "0.45", "mew": 1.4}}


@drawing()
def _draw_scores_chart(board: Leaderboard):
    from matplotlib.lines import Line2D

    plt = pyplot()
    entries = board.scored
    fig, ax = plt.subplots(figsize=(9.5, inches(max(2.5, 0.42 * len(entries) + 1.2))))
    splits = ["public"] + (["private"] if board.reveal_private else [])
    offsets = {"public": -0.15, "private": 0.15} if board.reveal_private else {"public": 0.0}
    kinds = {"interval": False, "hollow": False}
    for split in splits:
        color = _SPLIT_COLOURS[split]
        for k, e in enumerate(entries):
            s = getattr(e, split)
            if s is None:
                continue
            y = k + offsets[split]
            if s.ci_low == s.ci_low:
                ax.plot([s.ci_low, s.ci_high], [y, y], color=color, lw=2, alpha=0.6)
                if s.ci_low == s.ci_high:  # every resample scored the same: a bar, not nothing behind the point
                    ax.plot([s.ci_low], [y], ls="", marker="|", ms=11, mew=2, color=color, alpha=0.6)
                kinds["interval"] = True
            real = s.vs_leader is None or s.vs_leader.significant
            kinds["hollow"] |= not real
            ax.plot(s.score, y, "o", color=color, mfc=color if real else "white")
            for mark in e.marks:  # a flagged team's or a Ladder-held score, drawn over the point
                ax.plot(s.score, y, **_MARKERS[mark])
                kinds[mark] = True
    set_ticks(ax.set_yticks, range(len(entries)),
              [f"{e.public.rank}. {label(e.name)}" + "".join(f" [{m}]" for m in e.marks) for e in entries])
    ax.invert_yaxis()
    ax.set_xlabel(f"{label(board.metric)} ({board.confidence:.0%} bootstrap interval over {label(board.unit_name)}s)")
    ax.set_title(f"{label(board.competition)}: scores")
    ax.grid(axis="x", alpha=0.3)
    handles = [Line2D([], [], ls="", marker="o", color=_SPLIT_COLOURS[s], label=f"{s} score") for s in splits]
    if kinds["hollow"]:
        handles.append(Line2D([], [], ls="", marker="o", color="0.3", mfc="white",
                              label="hollow: gap to the leader\nnot significant"))
    if kinds["interval"]:
        handles.append(Line2D([], [], color="0.3", lw=2, alpha=0.6, label=f"{board.confidence:.0%} bootstrap interval"
                              "\n(a bar | where its width is 0)"))
    handles += _mark_handles(kinds)
    ax.legend(handles=handles, fontsize=8, **_OUTSIDE)
    return fig


def _mark_handles(kinds: dict) -> list:
    from matplotlib.lines import Line2D


    return [Line2D([], [], ls="", **_MARKERS[m], label=f"[{m}] {DESCRIPTIONS[m]}") for m in _MARKERS if kinds.get(m)]


def scores_chart(board: Leaderboard, path: Path, fmt: FigureFormat | None = None) -> Path:
    """Draw the leaderboard's scores with their intervals into ``path`` (format from ``fmt`` or the suffix)."""
    with drawing():  # mathtext stays off while the figure is drawn into the file too
        return save(_draw_scores_chart(board), path, fmt)


@drawing()
def _draw_rank_chart(board: Leaderboard):
    from matplotlib.lines import Line2D

    plt = pyplot()
    entries = [e for e in board.scored if e.private is not None]
    n = len(entries)
    fig, ax = plt.subplots(figsize=(7.5, 5.5))
    ax.plot([1, n], [1, n], color="0.6", ls="--", lw=1)
    shown = set()
    for e in entries:
        shift = e.rank_shift or 0
        kind = "up" if shift > 0 else "down" if shift < 0 else "same"
        shown.add(kind)
        ax.plot(e.public.rank, e.private.rank, "o", color=_SHIFT_COLOURS[kind])
        for mark in e.marks:
            ax.plot(e.public.rank, e.private.rank, **_MARKERS[mark])
            shown.add(mark)
        if n <= MAX_TICK_LABELS:  # past that the names would be one black smear
            ax.annotate(label(e.name), (e.public.rank, e.private.rank), fontsize=7, xytext=(4, 3),
                        textcoords="offset points")
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
    ax.set_title(title)
    ax.grid(alpha=0.3)
    names = {"up": "moved up in private", "down": "moved down in private", "same": "same rank"}
    handles = [Line2D([], [], ls="", marker="o", color=_SHIFT_COLOURS[k], label=names[k])
               for k in ("up", "down", "same") if k in shown]
    handles.append(Line2D([], [], color="0.6", ls="--", lw=1, label="public rank = private rank"))
    handles += _mark_handles({m: m in shown for m in _MARKERS})
    ax.legend(handles=handles, fontsize=8, **_OUTSIDE)
    return fig


def rank_chart(board: Leaderboard, path: Path, fmt: FigureFormat | None = None) -> Path:
    """Draw each submission's range of ranks over the resamples into ``path`` (format from ``fmt`` or the suffix)."""
    with drawing():
        return save(_draw_rank_chart(board), path, fmt)
