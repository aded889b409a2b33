"""Aggregation strategies against plain-Python oracles computed on the FULL per-tile probabilities,
the saved top-k being exact or refused; and planted species recovered through the whole predict
pipeline with a stub model."""

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.baselines.plantclef._image_stats import ImageStats
from agrieval.baselines.plantclef._synthetic import planted_image
from agrieval.baselines.plantclef.aggregate import NotExact, aggregate
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.geometry import parse_level
from agrieval.baselines.plantclef.model import ModelSpec
from agrieval.baselines.plantclef.predict import RunOptions, run_predict
from agrieval.baselines.plantclef.preprocess import PreprocessConfig
from agrieval.scoring.authoring.definitions import load_competition

C = 8
IDS = 100 + np.arange(C)


def full_to_frames(full, saved_k):
    """``full``: {image: [(level, probs over C)]} -> (top-k tile frame, exact ImageStats)."""
    rows, keys, mx, sm = [], [], [], []
    for image in sorted(full):
        for tile, (level, p) in enumerate(full[image]):
            order = sorted(range(C), key=lambda c: (-p[c], c))[:saved_k]
            rows += [(image, tile, level, r, c, int(IDS[c]), p[c]) for r, c in enumerate(order)]
        for level in sorted({lv for lv, _ in full[image]}):
            ps = np.asarray([p for lv, p in full[image] if lv == level])
            keys.append((image, level, len(ps)))
            mx.append(ps.max(axis=0))
            sm.append(ps.sum(axis=0))
    frame = pd.DataFrame(rows, columns=["image_id", "tile", "level", "rank", "class_index", "species_id", "prob"])
    k = pd.DataFrame(keys, columns=["image_id", "level", "n_tiles"])
    stats = ImageStats(k, np.asarray(mx), np.asarray(sm), np.asarray(sm),
                       IDS.astype(np.int64))
    return frame, stats


@st.composite
def full_probs(draw):
    """Quantised probabilities (many exact ties) on 1-3 images of 1-4 tiles on 1-2 levels."""
    full = {}
    n_levels = draw(st.integers(1, 2))
    for image in range(draw(st.integers(1, 3))):
        tiles = []
        for _ in range(draw(st.integers(1, 4))):
            w = np.asarray(draw(st.lists(st.integers(0, 6), min_size=C, max_size=C)), dtype=np.float64) + 0.5
            p = (w / w.sum()).astype(np.float32).astype(np.float64)
            tiles.append((draw(st.integers(0, n_levels - 1)), p))
        full[f"Q{image}"] = tiles
    return full


def oracle(full, cfg):
    """The module docstring's table, on every class of every tile, one image at a time."""
    out = {}
    for image, tiles in sorted(full.items()):
        best = defaultdict(float)
        for _, p in tiles:
            for c in range(C):
                best[c] = max(best[c], p[c])
        ranked = [sorted(range(C), key=lambda c: (-p[c], c)) for _, p in tiles]
        score = {}
        if cfg.strategy == "union":
            for order, (_, p) in zip(ranked, tiles):
                for c in order[:cfg.top_k]:
                    if p[c] >= cfg.threshold:
                        score[c] = max(score.get(c, 0.0), p[c])
            keep = set(score)
        elif cfg.strategy in ("max", "multiscale"):
            w = cfg.scale_weights or (1.0, 1.0)
            for lv, p in tiles:
                for c in range(C):
                    score[c] = max(score.get(c, 0.0), w[lv] * p[c])
            keep = {c for c, v in score.items() if v >= cfg.threshold}
        elif cfg.strategy == "mean":
            for _, p in tiles:
                for c in range(C):
                    score[c] = score.get(c, 0.0) + p[c]
            score = {c: v / len(tiles) for c, v in score.items()}
            keep = set(sorted(score, key=lambda c: (-score[c], -best[c], IDS[c]))[:cfg.top_k])
        else:  # vote
            for order in ranked:
                for c in order[:cfg.top_k]:
                    score[c] = score.get(c, 0) + 1
            keep = {c for c, v in score.items() if v >= cfg.min_votes}
        if cfg.strategy in ("union", "vote"):  # "best probability" = over the entries the strategy counted
            best = defaultdict(float)
            for order, (_, p) in zip(ranked, tiles):
                for c in order[:cfg.top_k]:
                    if cfg.strategy == "vote" or p[c] >= cfg.threshold:
                        best[c] = max(best[c], p[c])
        if cfg.min_score is not None:
            keep = {c for c in keep if best[c] >= cfg.min_score}
        ordered = sorted(keep, key=lambda c: (-score[c], -best[c], IDS[c]))[:cfg.max_species or None]
        out[image] = [int(IDS[c]) for c in ordered]
    return out


def _close(a, b):
    return np.isclose(a, b, rtol=0, atol=1e-6)


@settings(max_examples=80, deadline=None)
@given(full=full_probs(), strategy=st.sampled_from(["union", "max", "mean", "vote", "multiscale"]),
       k=st.integers(1, 4), saved_k=st.integers(1, C), threshold=st.sampled_from([0.0, 0.1, 0.2]),
       votes=st.integers(1, 3), cap=st.sampled_from([None, 1, 2]), min_score=st.sampled_from([None, 0.15]))
def test_each_strategy_is_exact_or_refused(full, strategy, k, saved_k, threshold, votes, cap, min_score):
    weights = (1.0, 0.5) if strategy == "multiscale" else None
    cfg = AggregationConfig(strategy=strategy, top_k=k, threshold=threshold, min_votes=votes, max_species=cap,
                            min_score=min_score, scale_weights=weights)
    frame, stats = full_to_frames(full, saved_k)
    want = oracle(full, cfg)
    # With the image stats every strategy is exact (union and vote need no more than the saved top-k).
    # union with too few saved is still exact where no unsaved species can reach the threshold (every tile's
    # smallest saved probability is below it), as the module docstring says
    bound_below = len(frame) and bool((frame.groupby(["image_id", "tile"])["prob"].min() < threshold).all())
    if (strategy == "vote" or (strategy == "union" and not bound_below)) and k > saved_k:
        with pytest.raises(NotExact, match=f"--save-top-k {k}" if strategy == "vote" else "not exact"):
            aggregate(frame, cfg, stats=stats, n_classes=C)
        return
    assert aggregate(frame, cfg, stats=stats, n_classes=C) == want
    # Without them: the same lists, or a refusal that names what to save.
    try:
        got = aggregate(frame, cfg, n_classes=C)
    except NotExact as exc:
        assert "--save-top-k" in str(exc)
        assert strategy in ("max", "mean", "multiscale") and saved_k < C
        return
    assert got == want


def test_saved_top_k_no_longer_truncates_max_silently():
    """The issue's case: 15 species above the threshold on one tile, 10 saved per tile."""
    p = np.full(C * 4, 0.001)
    p[:15] = (1 - 0.001 * (C * 4 - 15)) / 15
    frame, stats = _frames_wide({"Q": [(0, p)]}, 10, C * 4)
    cfg = AggregationConfig(strategy="max", threshold=0.01)
    with pytest.raises(NotExact, match="saved down to"):
        aggregate(frame, cfg, n_classes=C * 4)
    assert len(aggregate(frame, cfg, stats=stats, n_classes=C * 4)["Q"]) == 15
    with pytest.raises(NotExact, match="every class"):
        aggregate(frame, AggregationConfig(strategy="mean", top_k=3), n_classes=C * 4)


def _frames_wide(full, saved_k, n):
    rows = []
    for image, tiles in full.items():
        for tile, (level, p) in enumerate(tiles):
            order = sorted(range(n), key=lambda c: (-p[c], c))[:saved_k]
            rows += [(image, tile, level, r, c, 100 + c, p[c]) for r, c in enumerate(order)]
    frame = pd.DataFrame(rows, columns=["image_id", "tile", "level", "rank", "class_index", "species_id", "prob"])
    ps = np.asarray([p for _, p in full["Q"]])
    stats = ImageStats(pd.DataFrame({"image_id": ["Q"], "level": [0], "n_tiles": [len(ps)]}),
                       ps.max(0, keepdims=True).astype(np.float32), ps.sum(0, keepdims=True).astype(np.float32),
                       ps.sum(0, keepdims=True).astype(np.float32), (100 + np.arange(n)).astype(np.int64))
    return frame, stats


def test_empty_lists_are_written_by_default_and_min_species_tops_up():
    frame = pd.DataFrame({"image_id": ["a", "a"], "tile": [0, 0], "level": [0, 0], "rank": [0, 1],
                          "species_id": [5, 6], "prob": [0.05, 0.01]})
    assert aggregate(frame, AggregationConfig(strategy="union", threshold=0.1)) == {"a": []}
    assert aggregate(frame, AggregationConfig(strategy="union", threshold=0.1, min_species=1)) == {"a": [5]}


# --- planted species through the whole pipeline ----------------------------------------------------

N_CLASSES = 6
SPECIES = np.asarray(sorted(load_competition("plantclef2025").labels)[:N_CLASSES])
# id -> 2x2 regions of class indices. Ids are one transect (strip-date) surveyed on three dates.
PLANTED = {
    "SITE-A-1-20240501": [[0, 1], [2, 3]],
    "SITE-A-1-20240601": [[4, 4], [4, 5]],
    "SITE-A-1-20240701": [[2, 2], [2, 2]],
}


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory, colour_stub):
    folder = tmp_path_factory.mktemp("planted")
    images = folder / "images"
    images.mkdir()
    for k, (image_id, regions) in enumerate(PLANTED.items()):
        planted_image(np.asarray(regions), 160, 120, N_CLASSES, seed=k).save(images / f"{image_id}.jpg", quality=95)
    return folder, colour_stub(N_CLASSES)


def _run(planted_run, cfg, name, definition="plantclef2025"):
    folder, stub = planted_run
    out = folder / f"{name}.csv"
    pre = PreprocessConfig(levels=(parse_level("grid:2"),), input_size=28, jpeg_quality=95, subsampling="4:2:2")
    run_predict(folder / "images", out, checkpoint=None, class_mapping=None, species=SPECIES,
                spec=ModelSpec(img_size=28), preprocess=pre, agg=cfg, definition=load_competition(definition),
                opts=RunOptions(device="cpu", batch_size=5, workers=0, save_top_k=3, progress=False),
                overwrite=True, model=stub)
    from agrieval.scoring.runtime.reading.submission import read_submission

    sub = read_submission(out, load_competition(definition))
    assert sub.ok, sub.problems
    return {i: set(labels) for i, labels in zip(sub.ids, sub.labels.to_lists())}


def _expected(min_tiles=1):
    out = {}
    for image_id, regions in PLANTED.items():
        counts = np.bincount(np.asarray(regions).ravel(), minlength=N_CLASSES)
        out[image_id] = {int(SPECIES[c]) for c in np.flatnonzero(counts >= min_tiles)}
    return out


@pytest.mark.parametrize("cfg", [
    AggregationConfig(strategy="union", top_k=1, threshold=0.5),
    AggregationConfig(strategy="union", top_k=3, threshold=0.5),
    AggregationConfig(strategy="max", threshold=0.5),
    AggregationConfig(strategy="mean", top_k=4, min_score=0.5),
    AggregationConfig(strategy="vote", top_k=1, min_votes=1),
], ids=lambda c: c.label())
def test_every_strategy_recovers_exactly_the_planted_species(planted_run, cfg):
    assert _run(planted_run, cfg, cfg.strategy) == _expected()


def test_vote_threshold_keeps_species_seen_in_enough_tiles(planted_run):
    got = _run(planted_run, AggregationConfig(strategy="vote", top_k=1, min_votes=2, min_species=0), "vote2")
    assert got == _expected(min_tiles=2)


def test_transect_union_gives_every_survey_the_union(planted_run):
    got = _run(planted_run, AggregationConfig(strategy="max", threshold=0.5, group_mode="union"), "tunion",
               definition="plantclef2024")
    union = set().union(*_expected().values())
    assert got == {i: union for i in PLANTED}


def test_transect_mean_keeps_species_with_enough_average_support(planted_run):
    # Mean over the 3 surveys of per-image mean tile probability; keep the top 2.
    got = _run(planted_run, AggregationConfig(strategy="mean", top_k=2, group_mode="mean"), "tmean")
    frac = np.zeros(N_CLASSES)
    for regions in PLANTED.values():
        frac += np.bincount(np.asarray(regions).ravel(), minlength=N_CLASSES) / 4 / len(PLANTED)
    top2 = {int(SPECIES[c]) for c in np.argsort(-frac, kind="stable")[:2]}
    assert got == {i: top2 for i in PLANTED}


def test_first_seen_across_a_transect_follows_the_image_order():
    # Two surveys of one transect, one species each, same probability: with a cap of 1 the pooled list keeps
    # the species of the first image (sorted ids), whatever the species ids.
    frame = pd.DataFrame({"image_id": ["T-20240101", "T-20240601"], "tile": [0, 0], "level": 0, "rank": 0,
                          "species_id": [9, 4], "prob": [0.7, 0.7]})
    groups = {"T-20240101": "T", "T-20240601": "T"}
    first = AggregationConfig(strategy="union", group_mode="union", max_species=1, tie_rule="first-seen")
    assert aggregate(frame, first, groups=groups) == {i: [9] for i in groups}
    by_id = AggregationConfig(strategy="union", group_mode="union", max_species=1)
    assert aggregate(frame, by_id, groups=groups) == {i: [4] for i in groups}
