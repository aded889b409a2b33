"""The kit's side of the comparison with the PlantCLEF teams' own code, on the seeded awkward logits.

``scripts/fidelity/plantclef_teams.py`` runs the teams' snippets beside these functions and records the teams'
outputs as ``tests/fixtures/golden/plantclef_teams.json``; ``tests/baselines/plantclef/test_golden.py``
replays these same functions against that file (CI cannot fetch the teams' repositories). One definition for
both, so that what the tests compare is what the script compared.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import torch

from agrieval.baselines.plantclef._awkward_logits import N_CLASSES
from agrieval.baselines.plantclef._tie_rules import columns, select_on_device
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.inference import TileScorer
from agrieval.baselines.plantclef.recipes import get_recipe
from agrieval.baselines.plantclef.tile_scores import tile_frame

SPECIES = 1_300_000 + 7 * np.arange(N_CLASSES)  # ascending, like class_mapping.txt
_MEAN, _STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def recipe_config(name: str) -> AggregationConfig:
    """A recipe's aggregation options as an ``AggregationConfig``."""
    return AggregationConfig(**get_recipe(name).aggregation_values())


def kit_frame(quads: dict, save_k: int, specs=()) -> pd.DataFrame:
    """Tile scores as ``predict`` saves them (``torch.topk(save_k)``, and the tie picks of ``specs``) from
    per-tile probabilities."""
    frames = []
    for image_id, p in quads.items():
        t = torch.from_numpy(p)
        top = t.topk(save_k, dim=-1)
        n = len(p)
        ties = columns(select_on_device(t, specs), p, SPECIES, save_k) if specs else None
        frames.append(tile_frame([image_id], [n], np.zeros((n, 4), np.int32), np.zeros(n, np.int16),
                                 top.values.numpy(), top.indices.numpy(), SPECIES,
                                 (p.astype(np.float64) ** 2).sum(1), ties))
    return pd.concat(frames, ignore_index=True)


class LogitsStub(torch.nn.Module):
    """Returns the seeded logits of a tile whose one pixel encodes its row (R * 256 + G)."""

    def __init__(self, rows: np.ndarray):
        super().__init__()
        self.rows = torch.from_numpy(rows)
        self.num_classes = rows.shape[1]

    def forward(self, x):
        mean = torch.tensor(_MEAN).view(1, 3, 1, 1) * 255
        std = torch.tensor(_STD).view(1, 3, 1, 1) * 255
        v = torch.round(x * std + mean)[:, :, 0, 0].long()
        return self.rows[v[:, 0] * 256 + v[:, 1]]


def kit_scorer_frame(logits: dict, save_k: int, score_scale: float, prior=None) -> pd.DataFrame:
    """Tile scores through the kit's own TileScorer (softmax, scale, prior, topk) on the seeded logits."""
    frames = []
    for q, l in logits.items():
        n = len(l)
        tiles = np.zeros((n, 1, 1, 3), np.uint8)
        tiles[:, 0, 0, 0], tiles[:, 0, 0, 1] = np.arange(n) // 256, np.arange(n) % 256
        scorer = TileScorer(LogitsStub(l), torch.device("cpu"), save_k, _MEAN, _STD, batch_size=64,
                            score_scale=score_scale)
        tile_prior = None if prior is None else torch.from_numpy(np.repeat(prior[q][None], n, axis=0))
        out = scorer.score(torch.from_numpy(tiles), prior=tile_prior)
        frames.append(tile_frame([q], [n], np.zeros((n, 4), np.int32), np.zeros(n, np.int16), out.probs.numpy(),
                                 out.indices.numpy(), SPECIES, out.p2.numpy()))
    return pd.concat(frames, ignore_index=True)


def sha(a: np.ndarray) -> str:
    """The first 16 hex digits of the sha256 of an array's bytes (tile pixels in the golden file)."""
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]
