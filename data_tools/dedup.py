"""Duplicate groups of a catalog and the keep/drop decision for each file.

Files with identical pHash form a group (the study's rule); with ``radius`` >
0, files within that Hamming distance are joined too, transitively (a chain of
near copies is one group). In each group one file is kept by a keep rule
(``keep_rules.PRESETS``), the others are dropped with the criterion they lost
on. Unreadable files are dropped with reason ``unreadable``. Nothing is deleted
here; ``apply_drops`` moves or links the drop list only when asked.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from agrieval.data_tools._hamming import hash_groups, hex_to_uint64
from agrieval.data_tools._keep_rules import rank_in_groups
from agrieval.data_tools.catalog import check_unchanged, source_file
from agrieval.data_tools.errors import DataError
from agrieval.data_tools.tables import table_row
from agrieval.data_tools.walk import os_walk_listing
from agrieval.scoring.text.file_names import unescape_name
from agrieval.scoring.writing.policy import OutputPlan, OutputRefused, folded
from agrieval.scoring.writing.table_paths import inside

DEDUP_COLUMNS = ["group_id", "group_size", "keep", "action", "reason", "kept_path"]


ORDERS = ("sorted", "walk")


def notebook_order(df: pd.DataFrame) -> pd.Series:
    """Each readable row's position in the notebook's duplicate list (for ``--order walk``).

    The notebook lists the pool with ``os.walk`` (file-system order), keeps
    the rows whose hash occurs more than once, and sorts them by hash with
    pandas' default sort (not stable: equal hashes may be reordered, and the
    notebook inherits that); "first" in its last tie-break is the first row of
    a group in that list. Rows are re-listed from their root as it is now.
    """
    position: dict[tuple[str, str], int] = {}
    for root in sorted(set(df["root"])):
        for path in os_walk_listing(root):
            position[(root, path)] = len(position)
    walk = pd.Series([position.get((r, p), -1) for r, p in zip(df["root"], df["path"])], index=df.index)
    missing = df.index[walk < 0]
    if len(missing):
        r = df.loc[missing[0]]
        raise DataError("source_changed", f"{Path(r['root']) / r['path']} is in the catalog but not on disk; "
                        "--order walk re-lists the pool where the catalog found it")
    listed = df.assign(_walk=walk).sort_values("_walk", kind="stable")
    dup = listed[listed.duplicated("phash", keep=False)].sort_values(by="phash")
    order = pd.Series(np.arange(len(df)) + len(dup), index=listed.index)  # singletons: no tie to break
    order[dup.index] = np.arange(len(dup))
    return order.reindex(df.index)


def dedup(catalog_df: pd.DataFrame, *, preset: str = "paper", radius: int = 0,
          team_order: Sequence[str] | None = None, deprioritise: Sequence[str] | None = None,
          order: str = "sorted") -> pd.DataFrame:
    """The catalog with ``group_id``, ``group_size``, ``keep``, ``action``, ``reason``, ``kept_path`` added.

    Group ids number the groups 1, 2, ... in path order of their first file;
    unreadable files get group 0. ``deprioritise`` None means the preset's
    default (``AI-4o`` under ``official``, as the notebook). ``order`` is the
    official rule's last tie-break: ``sorted`` (catalog order) or ``walk``
    (``notebook_order``).
    """
    if not 0 <= radius <= 64:
        raise DataError("bad_option", f"--radius must be between 0 and 64, got {radius}")
    if order not in ORDERS:
        raise DataError("bad_option", f"--order must be one of {ORDERS}, got {order!r}")
    if order == "walk" and preset != "official":
        raise DataError("bad_option", "--order walk is the official preset's last tie-break; the paper preset "
                        "breaks the last tie by path")
    df = catalog_df.drop(columns=[c for c in DEDUP_COLUMNS if c in catalog_df.columns]).reset_index(drop=True)
    if preset != "official":  # official keeps the catalog's row order: it is its last tie-break
        df = df.sort_values("path", kind="stable")
        df.attrs["table_rows"] = df.index.to_numpy()  # input lines, for messages (tables.table_row)
        df = df.reset_index(drop=True)
    readable = df["readable"].astype(bool).to_numpy()
    try:
        hashes = hex_to_uint64(df.loc[readable, "phash"])
    except ValueError as exc:
        raise DataError("bad_table", f"a readable row has a malformed phash ({exc})") from None

    group_id = np.zeros(len(df), dtype=np.int64)
    labels = hash_groups(hashes, radius)
    # renumber 1.. in order of first appearance (rows are in path or catalog order)
    _, first = np.unique(labels, return_index=True)
    rank = np.empty(labels.max() + 1 if len(labels) else 0, dtype=np.int64)
    rank[labels[np.sort(first)]] = np.arange(1, len(first) + 1)
    group_id[readable] = rank[labels]
    df["group_id"] = group_id
    sizes = df.loc[readable].groupby("group_id")["group_id"].transform("size")
    df["group_size"] = 0
    df.loc[readable, "group_size"] = sizes.astype(np.int64)

    df["keep"] = False
    df["reason"] = "unreadable"
    df["kept_path"] = ""
    sub = df.loc[readable]
    if len(sub) and order == "walk":
        sub = sub.assign(_order=notebook_order(sub))
    if len(sub):
        keep, reason, winner = rank_in_groups(sub, sub["group_id"], preset, team_order=team_order,
                                              deprioritise=deprioritise)
        if order == "walk":
            reason = reason.replace("catalog order", "walk order")
        df.loc[readable, "keep"] = keep
        df.loc[readable, "reason"] = reason
        df.loc[readable, "kept_path"] = df.loc[winner.to_numpy(), "path"].to_numpy()
    df["action"] = np.where(df["keep"], "keep", "drop")
    df["keep"] = df["keep"].astype(bool)
    return df


def summarize_dedup(df: pd.DataFrame, *, show: int = 20) -> str:
    readable = df[df["readable"]]
    groups = readable.groupby("group_id")
    sizes = groups.size()
    dup = df[(~df["keep"]) & df["readable"]]
    lines = [f"{len(df)} files: {int(df['keep'].sum())} kept, {len(dup)} duplicates dropped, "
             f"{int((~df['readable']).sum())} unreadable dropped; "
             f"{(sizes > 1).sum()} duplicate groups; {dup['bytes'].sum() / 1e6:.2f} MB recovered"]
    hist = sizes.value_counts().sort_index()
    lines.append("group size histogram: " + ", ".join(f"{k}:{v}" for k, v in hist.items()))
    teams = groups["team"].nunique()
    cross = teams[teams > 1].index
    lines.append(f"cross-team groups: {len(cross)}")
    norm = groups["class"].nunique()
    conflict = norm[norm > 1].index
    lines.append(f"groups spanning several classes (label conflicts): {len(conflict)}")
    for gid in list(cross)[:show]:
        members = readable[readable["group_id"] == gid]
        lines.append(f"  group {gid}: " + ", ".join(
            f"{p} ({'keep' if k else 'drop: ' + r})" for p, k, r in zip(members["path"], members["keep"],
                                                                       members["reason"])))
    if len(cross) > show:
        lines.append(f"  ... {len(cross) - show} more cross-team groups in the output table")
    for gid in list(conflict)[:show]:
        members = readable[readable["group_id"] == gid]
        lines.append(f"  label conflict, group {gid}: " + ", ".join(members["path"]))
    return "\n".join(lines)


def plan_drops(df: pd.DataFrame, target: str | Path, *, how: str,
               plan: OutputPlan | None = None) -> list[tuple[str, str]]:
    """The (source, destination) pairs that move or link every dropped file to ``target/<relative path>``.

    Checked before anything is touched (``agrieval.scoring.writing.policy``): ``target`` is
    not inside a catalogued root; no destination exists (never replaced, even with
    ``--overwrite``: it may be a file moved there before); no two drops share a
    destination, names compared case-folded and NFC-normalised (a catalog of
    several roots, or ``IMG.jpg``/``img.jpg``); a source to move is unchanged.
    """
    if how not in ("move", "link"):
        raise ValueError("how must be 'move' or 'link'")
    plan = plan or OutputPlan()
    plan.add_sources(*(unescape_name(r) for r in sorted(set(df["root"]))))
    what = f"--{how}-to"
    target = plan.claim_dir(target, what=f"{what} folder")
    pairs = []
    for r in df[~df["keep"]].itertuples():
        where = table_row(df, r.Index)
        src = source_file(r.root, r.path, where=where)
        dst = inside(target, r.path, where=where, columns=("path",), nested=(0,))
        try:
            plan.claim(dst, what=f"{what} destination of {src}", replaceable=False)
        except OutputRefused as exc:
            first = next((s for s, d in pairs if folded(d) == folded(dst)), None)
            if exc.code == "output_collision" and first is not None:
                raise OutputRefused("output_collision", f"{first} and {src} would both go to {dst} (same relative "
                                    "path, up to case and Unicode normalisation); the second would replace the "
                                    "first. Move the drops of each root to its own folder", path=dst) from None
            raise
        if how == "move":
            check_unchanged(r, where=where)
        pairs.append((str(src), str(dst)))
    return pairs


def execute_drops(pairs: list[tuple[str, str]], *, how: str) -> None:
    """Carry out ``plan_drops``: never replaces a destination, also one that appeared since planning."""
    for src, dst in pairs:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if how == "link":
            os.symlink(src, dst)  # fails if dst exists
        else:
            _move_no_replace(src, dst)


def _move_no_replace(src: str, dst: str) -> None:
    # os.rename and shutil.move replace an existing destination; a hard link never does.
    try:
        os.link(src, dst)
    except FileExistsError:
        raise OutputRefused("output_exists", f"{dst} appeared while moving; {src} was left in place",
                            path=dst) from None
    except OSError:  # another file system, or one without hard links: reserve the name, then copy
        fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        os.close(fd)
        shutil.copy2(src, dst)
    os.unlink(src)


def apply_drops(df: pd.DataFrame, target: str | Path, *, how: str, dry_run: bool = True,
                plan: OutputPlan | None = None) -> list[tuple[str, str]]:
    """Move (``how="move"``) or symlink (``how="link"``) every dropped file to ``target/<relative path>``.

    Returns the (source, destination) pairs; refuses before touching anything
    (``plan_drops``).
    """
    pairs = plan_drops(df, target, how=how, plan=plan)
    if not dry_run:
        execute_drops(pairs, how=how)
    return pairs
