"""Aggregation strategies against plain-Python oracles, and planted species recovered exactly
through the whole predict pipeline with a stub model."""

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baselines.plantclef.aggregate import AggregationConfig, aggregate
from baselines.plantclef.geometry import parse_level
from baselines.plantclef.model import ModelSpec
from baselines.plantclef.predict import RunOptions, run_predict
from baselines.plantclef.preprocess import PreprocessConfig
from baselines.plantclef.synthetic import planted_image
from scoring.authoring.definitions import load_competition


@st.composite
def tile_frames(draw):
    rows = []
    k = draw(st.integers(1, 4))
    for image in range(draw(st.integers(1, 3))):
        for tile in range(draw(st.integers(1, 4))):
            species = draw(st.permutations(list(range(8))))[:k]
            probs = sorted(draw(st.lists(st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]), min_size=k, max_size=k)),
                           reverse=True)
            rows += [(f"Q{image}", tile, r, 100 + s, p) for r, (s, p) in enumerate(zip(species, probs))]
    return pd.DataFrame(rows, columns=["image_id", "tile", "rank", "species_id", "prob"]), k


def oracle(frame, cfg):
    """Direct transcription of the module docstring's table, one image at a time."""
    out = {}
    for image, g in frame.groupby("image_id"):
        tiles = {t: list(zip(r["rank"], r["species_id"], r["prob"])) for t, r in g.groupby("tile")}
        best = defaultdict(float)
        for entries in tiles.values():
            for _, s, p in entries:
                best[s] = max(best[s], p)
        score = {}
        if cfg.strategy == "union":
            for entries in tiles.values():
                for r, s, p in entries:
                    if r < cfg.top_k and p >= cfg.threshold:
                        score[s] = max(score.get(s, 0.0), p)
            keep = set(score)
        elif cfg.strategy == "max":
            score = dict(best)
            keep = {s for s, v in score.items() if v >= cfg.threshold}
        elif cfg.strategy == "mean":
            for entries in tiles.values():
                for _, s, p in entries:
                    score[s] = score.get(s, 0.0) + p / len(tiles)
            keep = set(sorted(score, key=lambda s: (-score[s], -best[s], s))[:cfg.top_k])
        else:
            for entries in tiles.values():
                for r, s, _ in entries:
                    if r < cfg.top_k:
                        score[s] = score.get(s, 0) + 1
            keep = {s for s, v in score.items() if v >= cfg.min_votes}
        if cfg.min_score is not None:
            keep = {s for s in keep if best[s] >= cfg.min_score}
        ordered = sorted(keep, key=lambda s: (-score[s], -best[s], s))[:cfg.max_species or None]
        for s in sorted(best, key=lambda s: (-best[s], s)):
            if len(ordered) >= cfg.min_species:
                break
            if s not in ordered:
                ordered.append(s)
        out[image] = ordered
    return out


@settings(max_examples=80, deadline=None)
@given(data=tile_frames(), strategy=st.sampled_from(["union", "max", "mean", "vote"]),
       k=st.integers(1, 4), threshold=st.sampled_from([0.0, 0.1, 0.3]), votes=st.integers(1, 3),
       cap=st.sampled_from([None, 1, 2]), min_score=st.sampled_from([None, 0.2]), min_species=st.integers(0, 1))
def test_each_strategy_matches_its_formula(data, strategy, k, threshold, votes, cap, min_score, min_species):
    frame, saved_k = data
    k = min(k, saved_k)
    cfg = AggregationConfig(strategy=strategy, top_k=k, threshold=threshold, min_votes=votes, max_species=cap,
                            min_score=min_score, min_species=min(min_species, cap or 1))
    got = aggregate(frame, cfg)
    want = oracle(frame, cfg)
    assert got == want


def test_asking_more_per_tile_than_saved_is_an_error():
    frame = pd.DataFrame({"image_id": ["a"], "tile": [0], "rank": [0], "species_id": [1], "prob": [0.9]})
    with pytest.raises(ValueError, match="only the top 1 of each tile were saved"):
        aggregate(frame, AggregationConfig(strategy="vote", top_k=3))


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
    from scoring.runtime.reading.submission import read_submission

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
