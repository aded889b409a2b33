"""Chlorophyll Crew's merge notebook (predictions/merge.ipynb cells 4-6), re-stated as they wrote it (the
globals turned into arguments), against the kit's ``zmerge`` strategy on seeded awkward logits."""

import numpy as np
import pandas as pd
import pytest

from agrieval.baselines.plantclef._awkward_logits import awkward_quadrats, probabilities
from agrieval.baselines.plantclef.aggregate import NotExact, aggregate
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.tile_scores import tile_frame

C = 7806
SPECIES = 1_300_000 + 3 * np.arange(C)


def notebook(all_quadrat_probs, target=4.2, lo=0.001, hi=100.0, max_len=9, min_len=1, use_z_score=True):
    """Cells 5-6 of merge.ipynb, unchanged but for the constants passed in (USE_Z_SCORE: ``use_z_score``)."""
    def mean_prediction_length(image_predictions):
        lengths = [len(predictions) for predictions in image_predictions.values()]
        return np.mean(lengths)

    quadrat_probs = {quadrat_id: sum([quadrat_prob[quadrat_id] / len(all_quadrat_probs)
                                      for quadrat_prob in all_quadrat_probs]) for quadrat_id in all_quadrat_probs[0]}
    if use_z_score:
        for quadrat_id, tile_probabilities in quadrat_probs.items():
            mean = np.mean(tile_probabilities, axis=1, keepdims=True)
            std = np.std(tile_probabilities, axis=1, keepdims=True)
            quadrat_probs[quadrat_id] = (tile_probabilities - mean) / std

    def make_prediction(min_probability):
        image_predictions = {}
        for quadrat_id, tile_probabilities in quadrat_probs.items():
            top_species = set()
            for _, tile_probs in enumerate(tile_probabilities):
                max_index = tile_probs.argmax()
                if tile_probs[max_index] < min_probability:
                    continue
                top_species.add(max_index)
            image_predictions[quadrat_id] = list(top_species)
            if len(image_predictions[quadrat_id]) < min_len:
                column_sums = np.sum(tile_probabilities, axis=0)
                sorted_indices = np.argsort(column_sums)
                for index in sorted_indices[::-1]:
                    if len(image_predictions[quadrat_id]) >= min_len:
                        break
                    image_predictions[quadrat_id].append(index)
            if len(image_predictions[quadrat_id]) > max_len:
                column_sums = np.sum(tile_probabilities, axis=0)
                relevant_sums = [column_sums[i] for i in image_predictions[quadrat_id]]
                top_indices = np.argsort(relevant_sums)[-max_len:]
                image_predictions[quadrat_id] = [image_predictions[quadrat_id][i] for i in top_indices]
        return image_predictions

    bound = (hi, mean_prediction_length(make_prediction(hi))), (lo, mean_prediction_length(make_prediction(lo)))
    assert bound[0][1] < target < bound[1][1]
    for _ in range(50):
        mean_score = (bound[0][0] + bound[1][0]) / 2
        image_predictions = make_prediction(mean_score)
        mean_length = mean_prediction_length(image_predictions)
        if mean_length < target:
            bound = ((mean_score, mean_length), bound[1])
        else:
            bound = (bound[0], (mean_score, mean_length))
        if mean_length == target:
            break
    image_predictions = make_prediction(bound[0][0] if abs(bound[0][1] - target) < abs(bound[1][1] - target)
                                        else bound[1][0])
    return {q: [int(SPECIES[i]) for i in v] for q, v in image_predictions.items()}


def complete_frame(probs):
    frames = []
    for image_id, p in probs.items():
        order = np.argsort(-p, axis=1, kind="stable")
        n = len(p)
        frames.append(tile_frame([image_id], [n], np.zeros((n, 4), np.int32), np.zeros(n, np.int16),
                                 np.take_along_axis(p, order, 1), order, SPECIES))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def models():
    """Two models over the same tiles: the second's fp16 logits are the first's, jittered."""
    logits = awkward_quadrats(seed=5, n_images=8)
    rng = np.random.default_rng(1)
    jitter = {i: (l + rng.normal(0, 0.5, l.shape)).astype(np.float16).astype(np.float32) for i, l in logits.items()}
    return [{i: probabilities(l) for i, l in logits.items()}, {i: probabilities(l) for i, l in jitter.items()}]


def test_one_model_equals_the_notebook_order_included(models):
    frame = complete_frame(models[0])
    cfg = AggregationConfig(strategy="zmerge", target_mean=2.5, max_species=9, min_species=1)
    assert aggregate(frame, cfg, n_classes=C) == notebook([models[0]], target=2.5)


def test_ensemble_is_the_notebooks_float32_mean(models):
    second = models[1]
    frames = [complete_frame(models[0]), complete_frame(second)]
    cfg = AggregationConfig(strategy="zmerge", target_mean=2.5, max_species=3, min_species=1)
    assert aggregate(frames[0], cfg, n_classes=C, members=frames) == notebook([models[0], second], 2.5, max_len=3)


def test_strict_and_truncated_inputs(models):
    frame = complete_frame(models[0])
    strict = aggregate(frame, AggregationConfig(strategy="zmerge", target_mean=2.5, max_species=9, min_species=1,
                                                strict=True), n_classes=C)
    assert all(len(v) >= 1 for v in strict.values())
    with pytest.raises(NotExact, match="--save-top-k 7806"):
        aggregate(frame[frame["rank"] < 10], AggregationConfig(strategy="zmerge"), n_classes=C)


def test_the_probabilities_variant_equals_the_notebook_with_use_z_score_false(models):
    """merge.ipynb with USE_Z_SCORE = False (``--no-use-z-score``, recipe chlorophyll-2025-probs)."""
    frames = [complete_frame(models[0]), complete_frame(models[1])]
    cfg = AggregationConfig(strategy="zmerge", target_mean=1.5, max_species=9, min_species=1, use_z=False)
    got = aggregate(frames[0], cfg, n_classes=C, members=frames)
    assert got == notebook(models, target=1.5, use_z_score=False)
    # At this target the z-scores give other lists (6 of 8 quadrats), so the option is not ignored.
    assert got != notebook(models, target=1.5)
