"""Which copy of a duplicate group is kept: ordered tie-break rules, as named presets.

Each rule is a list of criteria; a group's rows are sorted by them (first
criterion first) and the first row is kept. A dropped row's ``reason`` is the
first criterion on which it lost to the kept one.

``paper`` (the paper's text): larger file (bytes) > more pixels (w*h) > has an
EXIF device > team order (``team_order``, otherwise alphabetical) > path.

``official`` (the study's public notebook ``2.clean_duplicates.ipynb``): file
size rounded to 0.01 MB (MiB, Python's ``round(bytes / 2**20, 2)``) > more
pixels > known device > not a deprioritised team (``deprioritise``; default
``AI-4o``, the team the notebook hard-codes) > list order (the ``_order``
column: catalog order, or the notebook's walk order with ``--order walk``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Criterion:
    name: str     # the reason a loser gets
    key: Callable[[pd.DataFrame, dict], pd.Series]  # smaller is better


def _team_rank(df: pd.DataFrame, opts: dict) -> pd.Series:
    order = list(opts.get("team_order") or [])
    rest = sorted(set(df["team"]) - set(order))
    rank = {t: k for k, t in enumerate(order + rest)}
    return df["team"].map(rank)


# The notebook demotes this team in the last-but-one tie-break, by name.
OFFICIAL_DEPRIORITISED = ("AI-4o",)


def _list_order(df: pd.DataFrame, opts: dict) -> pd.Series:
    return df["_order"] if "_order" in df.columns else pd.Series(np.arange(len(df)), index=df.index)


PRESETS: dict[str, list[Criterion]] = {
    "paper": [
        Criterion("smaller file", lambda df, o: -df["bytes"]),
        Criterion("fewer pixels", lambda df, o: -(df["width"] * df["height"])),
        Criterion("no EXIF device", lambda df, o: (df["device"] == "unknown").astype(int)),
        Criterion("team order", _team_rank),
        Criterion("path order", lambda df, o: df["path"].rank(method="dense")),
    ],
    "official": [
        # the notebook's own expression, Python's round
        Criterion("smaller file (0.01 MB)", lambda df, o: -df["bytes"].map(lambda b: round(b / 2**20, 2))),
        Criterion("fewer pixels", lambda df, o: -(df["width"] * df["height"])),
        Criterion("no EXIF device", lambda df, o: (df["device"] == "unknown").astype(int)),
        Criterion("deprioritised team", lambda df, o: df["team"].isin(set(o.get("deprioritise") or [])).astype(int)),
        Criterion("catalog order", _list_order),
    ],
}


def rank_in_groups(df: pd.DataFrame, groups: pd.Series, preset: str, *, team_order: Sequence[str] | None = None,
                   deprioritise: Sequence[str] | None = None) -> tuple[pd.Series, pd.Series, pd.Series]:
    """(keep flag, reason, index of the kept row) for every row, groups given by ``groups``."""
    if preset not in PRESETS:
        raise ValueError(f"unknown keep-rule preset {preset!r}; choose from {sorted(PRESETS)}")
    if deprioritise is None and preset == "official":
        deprioritise = OFFICIAL_DEPRIORITISED
    opts = {"team_order": team_order, "deprioritise": deprioritise}
    criteria = PRESETS[preset]
    keys = pd.DataFrame({f"k{n}": c.key(df, opts).astype(float) for n, c in enumerate(criteria)}, index=df.index)
    keys["group"] = groups
    ordered = keys.sort_values(["group"] + [f"k{n}" for n in range(len(criteria))], kind="stable")
    winner_of_group = ordered.groupby("group", sort=False).head(1)
    winner_index = pd.Series(winner_of_group.index, index=winner_of_group["group"].to_numpy())
    winner = groups.map(winner_index)
    keep = pd.Series(winner.to_numpy() == df.index.to_numpy(), index=df.index)
    reason = pd.Series("", index=df.index, dtype=object)
    undecided = ~keep
    for n, c in enumerate(criteria):
        mine = keys[f"k{n}"]
        theirs = keys.loc[winner.to_numpy(), f"k{n}"].to_numpy()
        lost = undecided & (mine.to_numpy() != theirs)
        reason[lost] = c.name
        undecided &= ~lost
    return keep, reason, winner
