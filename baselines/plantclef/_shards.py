"""Sharded prediction: each process (a torchrun rank, a SLURM array task) predicts one shard of the images and
writes its own tile scores; ``merge-tiles`` joins them into the file one process would have written.

Shard I of N holds the images at positions I, I+N, I+2N, ... of the sorted image list. Its tile scores go to
``<stem>.shard-I-of-N.parquet`` (and its image stats next to it), with ``shard: "I/N"`` in the run settings.
Under torchrun (``WORLD_SIZE`` > 1 and ``RANK`` set in the environment) the shard is the rank's unless
``--shard`` is given. No collective runs: the ranks share nothing but the file system.

The merge checks that the N files are shards 0..N-1 of one run (settings equal but for the shard), then
concatenates them; the tile scores are sorted by (image, tile, rank) and the stats by (image, level) when
written, so the merged files equal, byte for byte, those of a one-process run of the same settings (the
per-tile numbers are the model's on the same tiles; on a GPU, batch composition may change the last bits).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

# Imported inside functions, so that importing this module loads only what it needs: baselines.plantclef.full_probs,
# baselines.plantclef.image_stats, baselines.plantclef.tile_scores (they load pyarrow, ssl).

_SHARD = re.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``'I/N'`` with 0 <= I < N; ``None`` stays None."""
    if text is None:
        return None
    m = _SHARD.match(text.strip())
    if not m or int(m[2]) < 1 or int(m[1]) >= int(m[2]):
        raise ValueError(f"shard {text!r} is not I/N with 0 <= I < N (e.g. 0/4)")
    return int(m[1]), int(m[2])


def from_environment() -> tuple[int, int] | None:
    """The torchrun rank as a shard, when there are several."""
    world, rank = os.environ.get("WORLD_SIZE"), os.environ.get("RANK")
    if world is None or rank is None or int(world) <= 1:
        return None
    return parse_shard(f"{rank}/{world}")


# What differs between the shards of one run: which shard, and which of its images it left out unreadable.
PER_SHARD = ("shard", "skipped_unreadable")


def shard_items(items: list, shard: tuple[int, int] | None) -> list:
    return items if shard is None else items[shard[0]::shard[1]]


def shard_path(path: Path, shard: tuple[int, int]) -> Path:
    stem = path.name[:-len(".parquet")] if path.name.endswith(".parquet") else path.name
    return path.with_name(f"{stem}.shard-{shard[0]}-of-{shard[1]}.parquet")


def merge_tile_scores(paths: list[Path], out: Path, *, overwrite: bool = False) -> tuple[int, int]:
    """Join shard files into ``out`` (and its stats sidecar); returns (images, tiles)."""
    from agrieval.baselines.plantclef._full_probs import concat_parts, full_path, read_full, write_full
    from agrieval.baselines.plantclef._image_stats import ImageStats, read_stats, stats_path, write_stats
    from agrieval.baselines.plantclef.tile_scores import TileScoresError, read_tile_scores, write_tile_scores

    read = [(p, *read_tile_scores(p)) for p in paths]
    shards = {}
    for p, _, meta in read:
        if "shard" not in meta:
            raise TileScoresError(f"{p}: not a shard (no shard in its settings); merge-tiles joins predict --shard "
                                  "outputs")
        i, n = parse_shard(meta["shard"])
        if i in shards:
            raise TileScoresError(f"{p}: shard {i}/{n} given twice ({shards[i]})")
        shards[i] = p
    first = {k: v for k, v in read[0][2].items() if k not in PER_SHARD}
    n = parse_shard(read[0][2]["shard"])[1]
    for p, _, meta in read[1:]:
        if {k: v for k, v in meta.items() if k not in PER_SHARD} != first or parse_shard(meta["shard"])[1] != n:
            raise TileScoresError(f"{p}: made with other settings than {read[0][0]}; shards must come from one run")
    skipped = sorted(f for _, _, meta in read for f in meta.get("skipped_unreadable", []))
    if skipped:  # each shard's record of the images it left out (--skip-unreadable), joined
        first = {**first, "skipped_unreadable": skipped}
    missing = sorted(set(range(n)) - set(shards))
    if missing:
        raise TileScoresError(f"shard(s) {', '.join(f'{i}/{n}' for i in missing)} missing")
    frame = pd.concat([f for _, f, _ in read], ignore_index=True)
    sides = [stats_path(p) for p in paths]
    if any(s.is_file() for s in sides):
        if not all(s.is_file() for s in sides):
            raise TileScoresError("some shards have image stats and some do not; merge all or none")
        stats = ImageStats.concat([read_stats(s, expect_meta=m) for s, (_, _, m) in zip(sides, read)])
        write_stats(stats_path(out), stats, first, overwrite=overwrite)
    fulls = [full_path(p) for p in paths]
    if any(f.is_file() for f in fulls):
        if not all(f.is_file() for f in fulls):
            raise TileScoresError("some shards have full probabilities and some do not; merge all or none")
        read_parts = [read_full(f, expect_meta=m) for f, (_, _, m) in zip(fulls, read)]
        merged = {k: v for dense, _ in read_parts for k, v in dense.items()}
        write_full(full_path(out), *concat_parts([(merged, read_parts[0][1])]), read_parts[0][1], first,
                   overwrite=overwrite)
    write_tile_scores(out, frame, first, overwrite=overwrite)
    return frame["image_id"].nunique(), len(frame.drop_duplicates(["image_id", "tile"]))
