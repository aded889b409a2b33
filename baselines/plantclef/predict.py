"""``predict``: quadrat folder -> tiles -> model -> per-tile top-k -> aggregation -> validated submission.

Resumable: tile scores are written in parts to a hidden folder next to the
output (``.<name>.parts/``) every ``flush_images`` images; ``--resume`` reads
them back and predicts only the images not yet there. The folder is removed
once the submission is written.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from agrieval.baselines._device import resolve_device
from agrieval.baselines._sbatch import StopRequested, stop_file_present
from agrieval.baselines.plantclef._full_probs import concat_parts, full_path, write_full
from agrieval.baselines.plantclef._image_stats import ImageStats, stats_path, write_stats
from agrieval.baselines.plantclef._loader import ImageListError, list_quadrats, make_loader
from agrieval.baselines.plantclef._pooling import containment_notes
from agrieval.baselines.plantclef._prior import PriorError, file_digest, load_prior
from agrieval.baselines.plantclef._shards import shard_items, shard_path
from agrieval.baselines.plantclef._tie_rules import columns
from agrieval.baselines.plantclef.aggregate import aggregate
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.classes import load_class_mapping
from agrieval.baselines.plantclef.inference import TileScorer
from agrieval.baselines.plantclef.model import ModelSpec, build_model, normalisation
from agrieval.baselines.plantclef.preprocess import PreprocessConfig, quadrat_boxes, upright_size
from agrieval.baselines.plantclef.tile_scores import PartStore, tile_frame, write_tile_scores
from agrieval.baselines.plantclef.transects import transect_map
from agrieval.baselines.submission import write_validated
from agrieval.data_tools._progress import Progress
from agrieval.data_tools._untrusted_images import ImageUnreadable
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.writing.policy import OutputPlan


class ResumeError(RuntimeError):
    """Unfinished parts exist and cannot be resumed as asked."""


@dataclass
class RunOptions:
    """How a prediction run executes (device, batching, what it saves, sharding, speed switches): options that
    do not change the model or the aggregation."""

    device: str = "auto"
    batch_size: int = 64  # tiles per forward pass
    workers: int | None = None  # None: auto
    save_top_k: int = 10
    save_ties: tuple = ()  # tie_rules.parse_specs: each team's top-k call made on the full vector
    score_scale: float = 1.0  # scores = softmax * scale (DS@GT: 100) before the top-k
    prior: Path | None = None  # prior.load_prior: per-image prior multiplied into every tile (DS@GT)
    shard: tuple[int, int] | None = None  # shards: this process predicts images I, I+N, ... only
    save_full: bool = False  # full_probs: every class of every tile, dense (Chlorophyll's merge reads it)
    flip_tta: bool = False
    amp: bool = True
    channels_last: bool = True
    compile: bool = False  # torch.compile the model (first batch pays the compilation)
    image_stats: str = "image"  # "image" | "level" | "none": max / sum / BMA over every class (image_stats)
    flush_images: int = 256
    progress: bool = True
    skip_unreadable: bool = False  # leave out (and record) an image that cannot be decoded, instead of stopping


@dataclass
class PredictResult:
    """What ``run_predict`` wrote (the submission, the tile scores if saved) and did: counts, seconds, model
    information, warnings and the images it skipped."""

    submission: Path | None  # None for a shard: the submission comes after merge-tiles
    tile_scores: Path | None
    n_images: int
    n_tiles: int
    n_resumed: int
    seconds: float
    model_info: dict
    warnings: list = field(default_factory=list)
    skipped: list = field(default_factory=list)  # the rule's message for each image left out unreadable




def _check_vocabulary(species: np.ndarray, definition: CompetitionDefinition, source: Path | None) -> None:
    """Fail before any inference when the mapping names species the competition would reject."""
    vocab = definition.labels
    if vocab is None:
        return
    outside = [int(s) for s in species if int(s) not in vocab]
    if outside:
        raise ValueError(f"class mapping {source or '(given)'}: {len(outside)} species id(s) are not in the "
                         f"{definition.name} vocabulary (e.g. {outside[:3]}); is it the mapping of this checkpoint?")


def _parts_folder(out: Path) -> Path:
    return out.parent / f".{out.name}.parts"


def _predict_tiles(images: Path, out: Path, *, checkpoint: Path | None, class_mapping: Path | None,
                  species: np.ndarray | None = None, spec: ModelSpec, preprocess: PreprocessConfig,
                  opts: RunOptions, resume: bool, overwrite: bool,
                  definition: CompetitionDefinition,
                  model: torch.nn.Module | None = None
                  ) -> tuple[pd.DataFrame, dict, list[str], int, ImageStats | None]:
    """Tile scores of every image of ``images`` (resuming from parts), their metadata, the ids,
    how many images were resumed and the image stats (None with ``opts.image_stats == "none"``).
    ``model`` replaces the built model (tests' stub models)."""
    items = shard_items(list_quadrats(images), opts.shard)
    if species is None:
        species = load_class_mapping(class_mapping)
    _check_vocabulary(species, definition, class_mapping)
    if model is None:
        model, info = build_model(spec, len(species), checkpoint)
    else:
        info = {**spec.describe(), "num_classes": len(species), "checkpoint": None, "weights": type(model).__name__}
    device = resolve_device(opts.device)
    if opts.prior and not Path(opts.prior).is_file():  # before its digest is taken for the settings
        raise PriorError(f"prior file {opts.prior} not found")
    settings = {"images": str(images.resolve()), "model": info, "preprocess": preprocess.describe(),
                "save_top_k": opts.save_top_k, "flip_tta": opts.flip_tta, "n_classes": int(len(species)),
                **({"save_ties": [f"{r}:{k}" for r, k in opts.save_ties], "ties_made_with": _tie_env(device)}
                   if opts.save_ties else {}),
                **({"score_scale": opts.score_scale} if opts.score_scale != 1.0 else {}),
                **({"save_full": True} if opts.save_full else {}),
                **({"shard": f"{opts.shard[0]}/{opts.shard[1]}"} if opts.shard else {}),
                **({"prior": {"file": Path(opts.prior).name, "sha256": file_digest(opts.prior)}} if opts.prior else {}),
                "image_stats": opts.image_stats,
                "class_mapping": str(class_mapping) if class_mapping else None}
    if opts.image_stats not in ("image", "level", "none"):
        raise ValueError(f"image stats {opts.image_stats!r} is not one of image, level, none")
    store = PartStore(_parts_folder(out))
    if store.exists():
        if resume:
            if store.settings() != settings:
                raise ResumeError(f"{store.folder} holds tiles made with other settings; rerun with the same "
                                  "options, or with --overwrite to start again")
        elif overwrite:
            store.remove()
        else:
            raise ResumeError(f"{store.folder} holds an unfinished run; pass --resume to continue it or "
                              "--overwrite to start again")
    started_here = not store.exists()
    if started_here:
        store.start(settings)
    try:
        return _predict_into(store, items, settings, model=model, species=species, device=device, opts=opts,
                             preprocess=preprocess)
    except BaseException:
        # a run refused before it saved any image (a bad prior, an unreadable image, a bad option) leaves
        # nothing behind that would stop the corrected command ("holds an unfinished run")
        if started_here and not store.done_ids():
            store.remove()
        raise


def _predict_into(store: PartStore, items, settings: dict, *, model, species, device, opts: RunOptions,
                  preprocess: PreprocessConfig):
    priors = load_prior(opts.prior, [i for i, _ in items], len(species)) if opts.prior else None
    done = store.done_ids()
    todo = [it for it in items if it[0] not in done]
    n_resumed = len(items) - len(todo)
    skipped: list[str] = []

    if todo:
        mean, std = normalisation(model)
        scorer = TileScorer(model, device, opts.save_top_k, mean, std, batch_size=opts.batch_size,
                            flip_tta=opts.flip_tta, amp=opts.amp, channels_last=opts.channels_last,
                            compile=opts.compile, save_ties=tuple(opts.save_ties), score_scale=opts.score_scale,
                            save_full=opts.save_full)
        workers = opts.workers if opts.workers is not None else (min(16, os.cpu_count() or 1)
                                                                 if device.type == "cuda" else 0)
        tiles_per_image = _tiles_per_image(todo, preprocess, opts.skip_unreadable)
        images_per_batch = max(1, opts.batch_size // tiles_per_image)
        loader = make_loader(todo, preprocess, images_per_batch, workers, pin_memory=device.type == "cuda")
        bar = Progress(len(todo), "predict", enabled=opts.progress)
        n_levels = len(preprocess.levels) if opts.image_stats == "level" else 1
        with_stats = opts.image_stats != "none"
        pending: list[pd.DataFrame] = []
        pending_stats: list[ImageStats] = []
        pending_full: list[tuple] = []
        n_pending = 0

        def flush():
            full = None
            if pending_full:
                full = ([i for f in pending_full for i in f[0]], np.concatenate([f[1] for f in pending_full]),
                        np.concatenate([f[2] for f in pending_full]), species)
            store.write(pd.concat(pending, ignore_index=True), settings,
                        ImageStats.concat(pending_stats) if pending_stats else None, full)

        try:
            for batch in loader:
                for image_id, message in batch.unreadable:
                    if not opts.skip_unreadable:
                        raise ImageListError(f"{message}; fix or remove it and rerun with --resume (the images "
                                             "before it are kept), or add --skip-unreadable to leave it out (recorded "
                                             "in the run's settings)")
                    skipped.append(message)
                if not batch.image_ids:
                    bar.update(len(batch.unreadable))
                    continue
                image_pos = np.repeat(np.arange(len(batch.counts)), batch.counts)
                group = image_pos * n_levels + (batch.levels.astype(np.int64) if n_levels > 1 else 0)
                tile_prior = None if priors is None else torch.from_numpy(
                    np.repeat(np.stack([priors[i] for i in batch.image_ids]), batch.counts, axis=0))
                out = scorer.score(batch.tiles, torch.from_numpy(group) if with_stats else None,
                                   len(batch.counts) * n_levels, prior=tile_prior)
                pending.append(tile_frame(batch.image_ids, batch.counts, batch.boxes, batch.levels,
                                          out.probs.numpy(), out.indices.numpy(), species, out.p2.numpy(),
                                          _tie_columns(out, species, opts.save_top_k)))
                if opts.save_full:
                    pending_full.append((list(np.repeat(np.asarray(batch.image_ids, dtype=object), batch.counts)),
                                         np.concatenate([np.arange(c, dtype=np.int32) for c in batch.counts]),
                                         out.full))
                if with_stats:
                    pending_stats.append(_batch_stats(batch.image_ids, group, n_levels, out, species,
                                                      per_level=opts.image_stats == "level"))
                n_pending += len(batch.image_ids)
                bar.update(len(batch.image_ids) + len(batch.unreadable))
                if n_pending >= opts.flush_images:
                    flush()
                    pending, pending_stats, pending_full, n_pending = [], [], [], 0
                if stop_file_present():  # SLURM's warning (the job script's trap): save what is done, stop
                    raise StopRequested(f"stop requested after {bar.done} "
                                        f"of {len(todo)} images; --resume continues from the saved parts")
        finally:
            if pending:  # keep what was computed, also on Ctrl-C
                flush()
            bar.close()
    frame = store.read_all()
    stats = store.read_stats() if opts.image_stats != "none" else None
    if skipped:  # the run's record (tile scores' and stats' settings) names what it left out
        settings = {**settings, "skipped_unreadable": sorted(skipped)}
    return frame, settings, [i for i, _ in items], n_resumed, stats


def _tie_env(device: torch.device) -> dict:
    """What decides the tied picks: argsort's result depends on numpy and the CPU's SIMD sort, topk's on the
    device."""
    return {"numpy": np.__version__, "torch": torch.__version__, "topk_device": device.type,
            "numpy_cpu_features": sorted(k for k, on in _cpu_features().items() if on)}


def _cpu_features() -> dict:
    core = getattr(np, "_core", None) or np.core  # numpy 2 renamed the private module
    return getattr(core._multiarray_umath, "__cpu_features__", {})


def _tie_columns(out, species: np.ndarray, save_k: int) -> dict | None:
    if not out.ties:
        return None

    return columns(out.ties, out.tie_probs, species, save_k)


def _batch_stats(image_ids: list[str], group: np.ndarray, n_levels: int, out, species: np.ndarray,
                 per_level: bool) -> ImageStats:
    """One row per group that has tiles; level -1 when the stats pool all levels of an image."""
    present = np.unique(group)
    keys = pd.DataFrame({"image_id": [image_ids[g // n_levels] for g in present],
                         "level": (present % n_levels if per_level else np.full(len(present), -1)).astype(np.int16),
                         "n_tiles": np.bincount(group, minlength=len(image_ids) * n_levels)[present].astype(np.int32)})
    return ImageStats(keys, out.group_max.numpy()[present], out.group_sum.numpy()[present],
                      out.group_bma.numpy()[present], np.asarray(species, dtype=np.int64))


def _tiles_per_image(todo: list[tuple[str, Path]], preprocess: PreprocessConfig, skip_unreadable: bool) -> int:
    """Tile count of the first readable image, from its header only (the one image rule)."""
    for _, path in todo:
        try:
            w, h = upright_size(path)
        except ImageUnreadable as exc:
            if skip_unreadable:
                continue  # the loader meets it again, and the loop records it
            raise ImageListError(f"{exc.message}; fix or remove it, or pass --skip-unreadable to leave it "
                                 "out (recorded in the run's settings)") from None
        return len(quadrat_boxes(w, h, preprocess))
    return 1


def predictions(frame: pd.DataFrame, ids: list[str], agg: AggregationConfig, definition: CompetitionDefinition,
                stats: ImageStats | None = None, n_classes: int | None = None,
                members: list[pd.DataFrame] | None = None, genus=None, dense=None) -> list[list[int]]:
    """Species lists in ``ids`` order; a transect mode groups by ``agg.transect_rule`` (default: the
    competition's)."""
    groups = transect_map(ids, definition, agg.transect_rule) if agg.group_mode not in (None, "contains") else None
    by_id = aggregate(frame, agg, image_ids=ids, groups=groups, stats=stats, n_classes=n_classes, members=members,
                      genus=genus, dense=dense)
    return [by_id[i] for i in ids]


def _run_shard(images, plan, *, save_tile_scores, started, resume, overwrite, opts, **kw) -> PredictResult:
    """One shard: its tile scores (and stats) only; the submission is made after ``merge-tiles``."""
    if save_tile_scores is None:
        raise ValueError("a shard writes tile scores only: give --save-tile-scores (its path gets .shard-I-of-N)")
    tiles_out = shard_path(Path(save_tile_scores), opts.shard)
    plan.claim(tiles_out, what="tile scores", may_exist=resume)
    plan.claim(stats_path(tiles_out), what="image stats", may_exist=resume)
    if opts.save_full:
        plan.claim(full_path(tiles_out), what="full probabilities", may_exist=resume)
    frame, settings, ids, n_resumed, stats = _predict_tiles(Path(images), tiles_out, opts=opts, resume=resume,
                                                           overwrite=overwrite, **kw)
    if stats is not None:
        write_stats(stats_path(tiles_out), stats, settings)
    full = PartStore(_parts_folder(tiles_out)).read_full() if opts.save_full else None
    if full is not None:
        write_full(full_path(tiles_out), *concat_parts([full]), full[1], settings)
    write_tile_scores(tiles_out, frame, settings)
    PartStore(_parts_folder(tiles_out)).remove()
    n_tiles = int(frame.drop_duplicates(["image_id", "tile"]).shape[0]) if len(frame) else 0
    return PredictResult(None, tiles_out, len(ids), n_tiles, n_resumed, time.perf_counter() - started,
                         settings["model"], [], settings.get("skipped_unreadable", []))


def run_predict(images: Path, out: Path, *, checkpoint: Path | None, class_mapping: Path | None,
                spec: ModelSpec, preprocess: PreprocessConfig, agg: AggregationConfig,
                definition: CompetitionDefinition, opts: RunOptions, save_tile_scores: Path | None = None,
                resume: bool = False, overwrite: bool = False,
                species: np.ndarray | None = None, model: torch.nn.Module | None = None,
                genus=None) -> PredictResult:
    """Predict every quadrat image under ``images`` and write the submission to ``out`` (through the output
    policy: never among the images, never onto the checkpoint or the class mapping); with ``opts.shard``, one
    shard of the images, resumable (``resume``). Returns what was written and how long it took."""
    started = time.perf_counter()
    out = Path(out)

    # The output policy: never among the quadrat images, never onto the checkpoint or the class mapping.
    plan = OutputPlan(overwrite=overwrite, sources=[images], inputs=[p for p in (checkpoint, class_mapping) if p])
    if opts.shard is not None:
        return _run_shard(images, plan, checkpoint=checkpoint, class_mapping=class_mapping, species=species,
                          spec=spec, preprocess=preprocess, opts=opts, resume=resume, overwrite=overwrite,
                          definition=definition, model=model, save_tile_scores=save_tile_scores, started=started)
    plan.claim(out, what="submission", may_exist=resume)
    if save_tile_scores is not None:
        plan.claim(save_tile_scores, what="tile scores", may_exist=resume)
        plan.claim(stats_path(save_tile_scores), what="image stats", may_exist=resume)
        if opts.save_full:
            plan.claim(full_path(save_tile_scores), what="full probabilities", may_exist=resume)
    frame, settings, ids, n_resumed, stats = _predict_tiles(
        Path(images), out, checkpoint=checkpoint, class_mapping=class_mapping, species=species, spec=spec,
        preprocess=preprocess, opts=opts, resume=resume, overwrite=overwrite, definition=definition, model=model)
    full = PartStore(_parts_folder(out)).read_full() if opts.save_full else None
    if save_tile_scores is not None:
        if stats is not None:  # the sidecar first, so tile scores never sit next to stale stats
            write_stats(stats_path(save_tile_scores), stats, settings)
        if full is not None:
            write_full(full_path(save_tile_scores), *concat_parts([full]), full[1], settings)
        write_tile_scores(save_tile_scores, frame, settings)
    labels = predictions(frame, ids, agg, definition, stats=stats, n_classes=settings["n_classes"],
                         genus=genus, dense=[full] if full is not None else None)
    warnings = write_validated(out, ids, labels, definition) + containment_notes(ids, agg.group_mode)
    PartStore(_parts_folder(out)).remove()
    n_tiles = int(frame.drop_duplicates(["image_id", "tile"]).shape[0]) if len(frame) else 0
    return PredictResult(out, Path(save_tile_scores) if save_tile_scores else None, len(ids), n_tiles, n_resumed,
                         time.perf_counter() - started, settings["model"], warnings,
                         settings.get("skipped_unreadable", []))
