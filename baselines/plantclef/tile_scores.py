"""Per-tile top-k scores as Parquet: re-aggregate without the model or a GPU.

One row per (image, tile, rank):

==============  =======  ================================================
column          type     meaning
==============  =======  ================================================
``image_id``    string   quadrat id (file name without suffix)
``tile``        int32    tile index within the image (levels in order)
``level``       int16    tiling level index (see metadata ``levels``)
``x0 y0 x1 y1`` int32    tile box in the EXIF-rotated image, half-open
``rank``        int16    0 = the tile's most probable class
``class_index`` int32    model output index
``species_id``  int64    species id of that output (class mapping)
``prob``        float32  softmax probability (flip-averaged with TTA)
``tile_p2``     float32  sum over all classes of p_t(c)^2 (same on every
                         rank of a tile; z-scores). Optional: older files
                         lack it and only z-scores need it.
==============  =======  ================================================

Optional, with ``predict --save-ties``: ``argsort_class``/``_species``/``_prob``
and ``topk<K>_...`` (``tie_rules``): on the row of rank r, the r-th class that
numpy's argsort or ``torch.topk(p, K)`` picks on the full vector.

Next to it, ``<name>.stats.parquet`` holds the per-image statistics over every
class (``image_stats``) that make ``max``, ``mean``, ``bma`` and multi-scale
aggregation exact whatever the saved top-k.

The file's key-value metadata ``agrieval.plantclef`` holds the run settings
(model, checkpoint, weights used, preprocessing, tiling levels, top-k) as JSON.
Rows are sorted by (image_id, tile, rank) so that equal runs give equal files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from agrieval.baselines.plantclef._ensemble import ensemble_tiles, tile_zscores
from agrieval.baselines.plantclef._full_probs import read_full, write_full
from agrieval.baselines.plantclef._image_stats import ImageStats, read_stats, stats_path, write_stats
from agrieval.baselines.plantclef._tie_rules import COLUMN as TIE_COLUMN
from agrieval.scoring.runtime.atomic import atomic_write
from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_json

META_KEY = b"agrieval.plantclef"
_SCHEMA = pa.schema([
    ("image_id", pa.string()), ("tile", pa.int32()), ("level", pa.int16()),
    ("x0", pa.int32()), ("y0", pa.int32()), ("x1", pa.int32()), ("y1", pa.int32()),
    ("rank", pa.int16()), ("class_index", pa.int32()), ("species_id", pa.int64()), ("prob", pa.float32()),
    ("tile_p2", pa.float32()),
])
_OPTIONAL = ("tile_p2",)
COLUMNS = [c for c in _SCHEMA.names if c not in _OPTIONAL]


def _tie_field(column: str) -> pa.Field:
    kind = TIE_COLUMN.match(column)[2]
    return pa.field(column, {"class": pa.int32(), "species": pa.int64(), "prob": pa.float32()}[kind])


class TileScoresError(ValueError):
    """A tile-scores file is missing, not Parquet, or lacks a column; the message names the file."""


def tile_frame(image_ids: list[str], counts: list[int], boxes: np.ndarray, levels: np.ndarray,
               probs: np.ndarray, indices: np.ndarray, species: np.ndarray,
               p2: np.ndarray | None = None, ties: dict | None = None) -> pd.DataFrame:
    """Long frame for one batch: ``probs``/``indices`` are ``(T, k)`` for the T tiles of the batch."""
    n_tiles, k = probs.shape
    per_image_tile = np.concatenate([np.arange(c, dtype=np.int32) for c in counts]) if counts else np.zeros(0, np.int32)
    tile_ids = np.repeat(np.repeat(np.asarray(image_ids, dtype=object), counts), k)
    extra = ties or {}
    return pd.DataFrame({
        "image_id": tile_ids,
        "tile": np.repeat(per_image_tile, k),
        "level": np.repeat(levels.astype(np.int16), k),
        "x0": np.repeat(boxes[:, 0], k), "y0": np.repeat(boxes[:, 1], k),
        "x1": np.repeat(boxes[:, 2], k), "y1": np.repeat(boxes[:, 3], k),
        "rank": np.tile(np.arange(k, dtype=np.int16), n_tiles),
        "class_index": indices.reshape(-1).astype(np.int32),
        "species_id": species[indices.reshape(-1)].astype(np.int64),
        "prob": probs.reshape(-1).astype(np.float32),
        "tile_p2": (np.repeat(p2, k) if p2 is not None else np.full(n_tiles * k, np.nan)).astype(np.float32),
        **extra,
    })


def _table(frame: pd.DataFrame, meta: dict) -> pa.Table:
    frame = frame.sort_values(["image_id", "tile", "rank"], kind="mergesort").reset_index(drop=True)
    if "tile_p2" not in frame:
        frame = frame.assign(tile_p2=np.float32(np.nan))
    schema = pa.schema(list(_SCHEMA) + [_tie_field(c) for c in frame.columns if TIE_COLUMN.match(c)])
    table = pa.Table.from_pandas(frame[schema.names], schema=schema, preserve_index=False)
    return table.replace_schema_metadata({META_KEY: json.dumps(meta, sort_keys=True).encode()})


def write_tile_scores(path: str | Path, frame: pd.DataFrame, meta: dict, *, overwrite: bool = True) -> None:
    """Write ``frame`` and ``meta`` to ``path`` as one zstd-compressed Parquet file, atomically (a temporary name,
    then renamed); ``overwrite=False`` refuses an existing file."""
    with atomic_write(path, "wb", encoding=None, overwrite=overwrite) as fh:
        pq.write_table(_table(frame, meta), fh, compression="zstd")


def read_tile_scores(path: str | Path) -> tuple[pd.DataFrame, dict]:
    """The tile scores that ``predict --save-tile-scores`` wrote (a Parquet file): the frame of the required
    columns (and the optional ones present) and the run's metadata; ``TileScoresError`` if the file is missing,
    not Parquet or lacks a column."""
    path = Path(path)
    if not path.is_file():
        raise TileScoresError(f"tile scores {path} not found (write them with predict --save-tile-scores)")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise TileScoresError(f"{path}: not a Parquet file ({exc})") from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise TileScoresError(f"{path}: missing column(s) {', '.join(missing)}; expected {', '.join(COLUMNS)}")
    raw = (table.schema.metadata or {}).get(META_KEY)
    meta = json.loads(raw) if raw else {}
    frame = table.select(COLUMNS + [c for c in table.column_names if c in _OPTIONAL or TIE_COLUMN.match(c)]).to_pandas()
    if frame[["image_id", "species_id", "prob"]].isna().any().any():
        raise TileScoresError(f"{path}: null image_id, species_id or prob")
    return frame, meta


class PartStore:
    """Parts of an unfinished run (a hidden folder next to the output), for ``--resume``.

    Each part holds whole images; ``settings.json`` pins the settings so a resumed
    run cannot mix tiles made with different options.
    """

    def __init__(self, folder: Path):
        self.folder = folder

    def exists(self) -> bool:
        return self.folder.is_dir()

    def start(self, settings: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with atomic_write(self.folder / "settings.json") as fh:
            fh.write(json.dumps(settings, sort_keys=True, indent=1))

    def settings(self) -> dict | None:
        p = self.folder / "settings.json"
        if not p.is_file():
            return None
        try:  # (the one opening rule: a parts folder may come from another machine or person)
            return read_json(p, max_bytes=64 << 20, what="tile-scores settings")
        except UntrustedFileError as exc:
            raise TileScoresError(f"{p}: {exc.message}") from None

    def parts(self) -> list[Path]:
        return sorted(self.folder.glob("part-*.parquet"))

    def write(self, frame: pd.DataFrame, meta: dict, stats=None, full=None) -> None:
        n = len(self.parts())
        if full is not None:  # (ids per row, tile per row, probs, species): before the part, like the stats
            write_full(self.folder / f"full-{n:06d}.parquet", *full, meta, overwrite=True)
        if stats is not None:  # stats first: a part without its stats is never seen as done
            write_stats(self.folder / f"stats-{n:06d}.parquet", stats, overwrite=True)
        write_tile_scores(self.folder / f"part-{n:06d}.parquet", frame, meta, overwrite=False)

    def read_stats(self):
        """The parts' image stats concatenated, or None when a part has none."""
        parts = self.parts()
        files = [p.with_name(p.name.replace("part-", "stats-")) for p in parts]
        if not parts or not all(f.is_file() for f in files):
            return None
        return ImageStats.concat([read_stats(f) for f in files])

    def read_full(self):
        """The parts' full probabilities as (image id -> (T, C), species), or None."""
        parts = self.parts()
        files = [p.with_name(p.name.replace("part-", "full-")) for p in parts]
        if not parts or not all(f.is_file() for f in files):
            return None
        read = [read_full(f) for f in files]
        return {k: v for dense, _ in read for k, v in dense.items()}, read[0][1]

    def read_all(self) -> pd.DataFrame:
        frames = [read_tile_scores(p)[0] for p in self.parts()]
        if not frames:
            return pd.DataFrame({c: pd.Series(dtype=_SCHEMA.field(c).type.to_pandas_dtype()) for c in COLUMNS})
        return pd.concat(frames, ignore_index=True)

    def done_ids(self) -> set[str]:
        return {i for p in self.parts() for i in pq.read_table(p, columns=["image_id"]).column(0).unique().to_pylist()}

    def remove(self) -> None:
        # Our own scratch folder, never user data.
        shutil.rmtree(self.folder, ignore_errors=True)


def load_scores(paths: list[str | Path], tile_transform: str = "none"):
    """Tile scores (and their image stats when the sidecar exists) of one file, or the ensemble of several
    (``ensemble.ensemble_tiles``; z-scored file by file first when ``tile_transform`` is ``zscore``).
    Returns ``(frame, stats or None, n_classes or None)``."""
    frames, stats, n_classes = [], [], set()
    for p in paths:
        frame, meta = read_tile_scores(p)
        side = stats_path(p)
        stats.append(read_stats(side, expect_meta=meta) if side.is_file() else None)
        frames.append(frame)
        n_classes.add(meta.get("n_classes"))
    if len(n_classes) > 1:
        raise TileScoresError(f"the tile-score files come from models with different class counts {sorted(n_classes)}")
    n = n_classes.pop()
    if len(frames) == 1:
        return frames[0], stats[0], n
    if tile_transform == "zscore":
        frames = [tile_zscores(f, n) for f in frames]
    merged = ensemble_tiles(frames, n)
    return merged, ImageStats.ensemble(stats) if all(s is not None for s in stats) else None, n
