"""Tie rules against the real numpy / torch calls the teams make, on 7,806-class fp16 logits with exact ties,
1-ulp near-ties, duplicated tiles and softmax underflow (``awkward_logits``)."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest
import torch

from agrieval.baselines.plantclef._awkward_logits import awkward_quadrats, probabilities
from agrieval.baselines.plantclef._tie_rules import columns, parse_specs, select_on_device
from agrieval.baselines.plantclef.aggregate import NotExact, aggregate
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.tile_scores import read_tile_scores, tile_frame, write_tile_scores

SAVE_K = 10
SPECIES = 1_300_000 + 7 * np.arange(7806)  # ascending, like class_mapping.txt


@pytest.fixture(scope="module")
def quadrats():
    return {i: probabilities(l) for i, l in awkward_quadrats(seed=3, n_images=8).items()}


def kit_frame(quadrats, specs, tmp_path=None):
    frames = []
    for image_id, p in quadrats.items():
        t = torch.from_numpy(p)
        top = t.topk(SAVE_K, dim=-1)
        ties = columns(select_on_device(t, specs), p, SPECIES, SAVE_K) if specs else None
        n = len(p)
        frames.append(tile_frame([image_id], [n], np.zeros((n, 4), np.int32), np.zeros(n, np.int16),
                                 top.values.numpy(), top.indices.numpy(), SPECIES, (p.astype(np.float64) ** 2).sum(1),
                                 ties))
    frame = pd.concat(frames, ignore_index=True)
    if tmp_path is None:
        return frame
    write_tile_scores(tmp_path / "t.parquet", frame, {"n_classes": 7806})
    return read_tile_scores(tmp_path / "t.parquet")[0]


def dsgt_nms(p_tiles, n=10):
    """DS@GT 20250503-mg-nms notebook: per tile ``np.array(probabilities).argsort()[-1:]`` on the list the
    predict UDF returns (``probabilities[0].cpu().numpy().tolist()``), then ``Counter.most_common(10)``."""
    top1 = []
    for p in p_tiles:
        probabilities = p.tolist()
        proba_arr = np.array(probabilities)
        top1 += [SPECIES[i] for i in proba_arr.argsort()[-1:][::-1]]
    return [int(s) for s, _ in Counter(top1).most_common(n)]


def organisers(p_tiles, top_k_tile=2, min_score=0.1):
    """The organisers' tiling notebook cell 16 loop on one image's tiles (one batch), bug included."""
    image_results = {}
    probabilities = torch.from_numpy(p_tiles)
    top_probs, top_indices = torch.topk(probabilities, top_k_tile)
    for top_tile_indices, top_tile_probs in zip(top_indices.numpy(), top_probs.numpy()):
        for top_idx, top_prob in zip(top_tile_indices, top_tile_probs):
            species_id = SPECIES[top_idx]
            if top_prob > min_score:
                if top_idx not in image_results or image_results[top_idx] < top_prob:
                    image_results[species_id] = top_prob
    return [int(s) for s in image_results]


def test_the_logits_tie_where_it_matters(quadrats):
    """Each rule picks differently on these tiles: argsort's last is not the last tied index, and
    topk(p, 10)[:2] is not topk(p, 2) on some tile, so a test using the saved ranks would fail."""
    last_index = argsort_other = topk_other = 0
    for p in quadrats.values():
        t = torch.from_numpy(p)
        two, ten = t.topk(2).indices.numpy(), t.topk(SAVE_K).indices.numpy()[:, :2]
        topk_other += int((np.sort(two, 1) != np.sort(ten, 1)).any(axis=1).sum() + (two != ten).any(axis=1).sum())
        for row in p:
            tied = np.flatnonzero(row == row.max())
            if len(tied) > 1:
                a = np.array(row.tolist()).argsort()[-1]
                last_index += int(a == tied[-1])
                argsort_other += int(a != tied[-1])
    assert argsort_other > 0 and last_index > 0
    assert topk_other > 0


def test_dsgt_nms_argsort_rule_equals_the_notebook(quadrats, tmp_path):
    frame = kit_frame(quadrats, parse_specs("argsort:10"), tmp_path)
    cfg = AggregationConfig(strategy="vote", top_k=1, max_species=10, tie_rule="argsort")
    got = aggregate(frame, cfg)
    want = {i: dsgt_nms(p) for i, p in quadrats.items()}
    assert got == want
    # The kit's former rule (saved torch ranks, first-seen) differs on these ties.
    assert aggregate(frame, AggregationConfig(strategy="vote", top_k=1, max_species=10, tie_rule="first-seen")) != want


@pytest.mark.parametrize("k", [1, 3, 10])
def test_one_saved_argsort_depth_serves_every_smaller_k(quadrats, k):
    frame = kit_frame(quadrats, parse_specs("argsort:10"))
    got = aggregate(frame, AggregationConfig(strategy="union", top_k=k, tie_rule="argsort"))
    for image_id, p in quadrats.items():
        seen = []
        for row in p:
            seen += [int(SPECIES[i]) for i in np.array(row.tolist()).argsort()[-k:][::-1] if int(SPECIES[i]) not in seen]
        assert got[image_id] == seen


def test_organisers_topk2_rule_equals_the_notebook_order_included(quadrats, tmp_path):
    frame = kit_frame(quadrats, parse_specs("topk:2"), tmp_path)
    cfg = AggregationConfig(strategy="union", top_k=2, threshold=0.1, strict=True, tie_rule="topk")
    assert aggregate(frame, cfg) == {i: organisers(p) for i, p in quadrats.items()}


def test_without_saved_ties_a_tie_is_refused_and_no_tie_is_derived(quadrats):
    frame = kit_frame(quadrats, ())
    with pytest.raises(NotExact, match="--save-ties topk:2"):
        aggregate(frame, AggregationConfig(strategy="union", top_k=2, tie_rule="topk"))
    # Tiles whose best three saved probabilities are distinct (1-ulp near-ties included) are exact as saved.
    keys = ["image_id", "tile"]
    head = frame[frame["rank"] <= 2]
    distinct = head.groupby(keys)["prob"].apply(lambda s: s.is_unique)
    ok = frame.set_index(keys).loc[distinct[distinct].index].reset_index()
    got = aggregate(ok, AggregationConfig(strategy="union", top_k=2, tie_rule="topk"))
    for image_id, g in ok.groupby("image_id"):
        tiles = sorted(set(g["tile"]))
        assert got[image_id] == organisers(quadrats[image_id][tiles], min_score=-1.0)


def test_near_ties_are_not_ties():
    a = np.float32(0.3)
    b = np.nextafter(a, np.float32(0))
    frame = pd.DataFrame({"image_id": "q", "tile": 0, "level": 0, "rank": [0, 1, 2], "class_index": [5, 2, 9],
                          "species_id": [50, 20, 90], "prob": np.array([a, b, 0.1], np.float32)})
    assert aggregate(frame, AggregationConfig(strategy="union", top_k=1, tie_rule="argsort")) == {"q": [50]}


def test_strict_threshold_excludes_equality():
    frame = pd.DataFrame({"image_id": "q", "tile": 0, "level": 0, "rank": [0, 1], "species_id": [1, 2],
                          "prob": np.array([0.5, 0.25], np.float32)})
    assert aggregate(frame, AggregationConfig(strategy="union", top_k=2, threshold=0.25)) == {"q": [1, 2]}
    assert aggregate(frame, AggregationConfig(strategy="union", top_k=2, threshold=0.25, strict=True)) == {"q": [1]}


def test_fp16_parquet_round_trip_keeps_the_tie_columns(quadrats, tmp_path):
    frame = kit_frame(quadrats, parse_specs("argsort:3,topk:2"), tmp_path)
    assert {"argsort_class", "argsort_species", "argsort_prob", "topk2_class"} <= set(frame.columns)
    assert frame.loc[frame["rank"] >= 2, "topk2_class"].eq(-1).all()


@pytest.mark.parametrize("bad", ["argsort", "topk:0", "mean:2", "argsort:2,argsort:3"])
def test_bad_specs(bad):
    with pytest.raises(ValueError):
        parse_specs(bad)
