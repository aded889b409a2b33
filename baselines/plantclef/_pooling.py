"""Sharing predictions across the images of one transect (or plot).

``groups`` maps image id -> transect (``transects.transect_map``, the scoring
core's rules). Images of a group are taken in sorted id order, the order in
which "first seen" is counted.

==============  ===============================================================  ====================
mode            each image of a group gets                                       source
==============  ===============================================================  ====================
``mean``        species scored by the mean over the group's images of S (0 if     agrieval
                absent), before the keep rule
``union``       every species kept in any image of the group (score = max)        DS@GT 2024/2025
                                                                                  ``union_agg``
``count-topk``  the k species predicted by the most images of the group; ties     DS@GT 2025
                in first-seen order (``Counter.most_common(k)``)                  ``union_agg_topk``
``min-images``  the species predicted by >= N images of the group, first-seen     Chlorophyll Crew
                order; a group of one image keeps its list; when no species       ``combine_same_
                reaches N, **every** image gets the group's first image's list    plot_threshold``
==============  ===============================================================  ====================

``count-topk`` and ``min-images`` pool the final per-image lists (after the
keep rule and the cap), as those teams did.

``contains`` is the 2025 winner's plot grouping (``src/lib.rs`` ~503-516): the
tiles of image i are every tile whose name contains i's id (``s.contains(id)``),
so an id that is a substring of another id also takes that image's tiles; the
score is the max over them, before the keep rule (``pool_contains``).

Image order (``ORDERS``): ``id`` sorts the ids; ``file-name`` sorts the file
names with ``.jpg`` as DS@GT's ``orderBy("image_name")`` does
(``submission.py`` ~109): ``A-1-2.jpg`` comes before ``A-1.jpg`` because ``-``
sorts before ``.``, where the ids sort ``A-1`` first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

MODES = ("union", "mean", "count-topk", "min-images", "contains")
ORDERS = ("id", "file-name")


def order_key(order: str):
    if order not in ORDERS:
        raise ValueError(f"image order {order!r} is not one of {', '.join(ORDERS)}")
    return None if order == "id" else (lambda image_id: image_id + ".jpg")


def _members(groups: Mapping[str, str], key=None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for image_id in sorted(groups, key=key):
        out.setdefault(groups[image_id], []).append(image_id)
    return out


def pool_mean(scored: pd.DataFrame, groups: Mapping[str, str]) -> pd.DataFrame:
    """S'(image, s) = (1/n_g) sum_{i in g} S(i, s); best probability and first-seen: min/max over g."""
    g = scored.assign(group=scored["image_id"].map(groups))
    n_images = pd.Series(list(groups.values())).value_counts()
    pooled = g.groupby(["group", "species_id"], as_index=False).agg(score=("score", "sum"), prob=("prob", "max"),
                                                                   first=("first", "min"))
    pooled["score"] = pooled["score"] / pooled["group"].map(n_images).to_numpy()
    members = pd.DataFrame({"image_id": list(groups), "group": list(groups.values())})
    return members.merge(pooled, on="group").drop(columns="group")


def pool_union(kept: pd.DataFrame, groups: Mapping[str, str]) -> pd.DataFrame:
    """Each image gets every species kept in any image of its group (score, probability = max)."""
    g = kept.assign(group=kept["image_id"].map(groups))
    pooled = g.groupby(["group", "species_id"], as_index=False).agg(score=("score", "max"), prob=("prob", "max"),
                                                                   first=("first", "min"))
    members = pd.DataFrame({"image_id": list(groups), "group": list(groups.values())})
    return members.merge(pooled, on="group").drop(columns="group")


@dataclass(frozen=True)
class GroupingNote:
    """A warning about how images were grouped, printed with the submission's warnings."""

    text: str

    def render(self) -> str:
        return self.text


def contained_ids(ids: list[str]) -> list[tuple[str, str]]:
    """Each (inner, outer) pair of distinct ids where ``outer`` contains ``inner``, sorted."""
    unique = sorted(set(ids), key=len)
    return sorted((a, b) for n, a in enumerate(unique) for b in unique[n + 1:] if len(a) < len(b) and a in b)


def containment_notes(ids: list[str], group_mode: str | None) -> list[GroupingNote]:
    """A note when ``contains`` grouping mixes images: some test ids contain others."""
    if group_mode != "contains":
        return []
    pairs = contained_ids(ids)
    if not pairs:
        return []
    inner, outer = pairs[0]
    return [GroupingNote(f"--group-mode contains: {len(pairs)} pair(s) of image ids contain one another (e.g. "
                         f"{outer!r} contains {inner!r}), so {inner!r} also takes the tiles of {outer!r} (the "
                         "winner's s.contains(id)); give --group-mode none to keep each image to its own tiles")]


def pool_contains(scored: pd.DataFrame, ids: list[str]) -> pd.DataFrame:
    """Each image i gets, per species, the max score over the images whose id contains i's id (itself
    included); best probability max, first-seen min."""
    frames = []
    for i in ids:
        donors = [j for j in ids if i in j]
        g = scored[scored["image_id"].isin(donors)]
        if len(g):
            frames.append(g.groupby("species_id", as_index=False).agg(score=("score", "max"), prob=("prob", "max"),
                                                                    first=("first", "min")).assign(image_id=i))
    if not frames:
        return scored.iloc[0:0]
    return pd.concat(frames, ignore_index=True)


def pool_count_topk(lists: Mapping[str, list[int]], groups: Mapping[str, str], k: int,
                    key=None) -> dict[str, list[int]]:
    """DS@GT ``union_agg_topk``: per group, ``Counter(all species of all its images).most_common(k)``."""
    out = dict(lists)
    for images in _members(groups, key).values():
        counts = Counter(s for i in images for s in lists.get(i, []))
        pooled = [s for s, _ in counts.most_common(k)]
        for i in images:
            out[i] = list(pooled)
    return out


def pool_min_images(lists: Mapping[str, list[int]], groups: Mapping[str, str], n: int,
                    key=None) -> dict[str, list[int]]:
    """Chlorophyll Crew ``combine_same_plot_threshold``: keep species predicted by >= n images of the group."""
    out = dict(lists)
    for images in _members(groups, key).values():
        if len(images) == 1:
            continue
        counts = Counter(s for i in images for s in lists.get(i, []))
        kept = [s for s, c in counts.items() if c >= n]
        pooled = kept if kept else list(lists.get(images[0], []))
        for i in images:
            out[i] = list(pooled)
    return out
