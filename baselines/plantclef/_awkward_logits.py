"""Seeded per-tile logits that make tie rules and thresholds disagree, for tests and the fidelity script.

``awkward_quadrats(seed)`` gives 20 quadrats of 9-36 tiles over ``n_classes`` (7,806) classes, as half
precision logits (what GPU inference under autocast produces), with, on purpose:

- exact ties of the best 2-4 classes (the same fp16 logit),
- 1-ulp near-ties in float32 (``np.nextafter``) between the best two,
- duplicated tiles (one row repeated),
- softmax underflow (one huge logit: every other probability is exactly 0),
- a probability exactly at 0.1 on some tile (to separate ``>`` from ``>=``).

``probabilities`` is ``softmax(logits.float())`` as the teams call it (float32).
"""

from __future__ import annotations

import numpy as np
import torch

N_CLASSES = 7806


def awkward_quadrats(seed: int = 0, n_images: int = 20, n_classes: int = N_CLASSES) -> dict[str, np.ndarray]:
    """Image id -> float32 logits ``(T, C)``; ids sort in the order they are made."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(n_images):
        n_tiles = int(rng.integers(9, 37))
        logits = (rng.normal(0.0, 2.0, (n_tiles, n_classes))).astype(np.float16).astype(np.float32)
        hot = rng.choice(n_classes, size=12, replace=False)  # species of this quadrat
        for t in range(n_tiles):
            kind = rng.integers(0, 5)
            top = float(logits[t].max()) + float(rng.uniform(2.0, 8.0))
            if kind == 0:  # exact tie of 2-4 classes at the top
                cls = rng.choice(hot, size=int(rng.integers(2, 5)), replace=False)
                logits[t, cls] = np.float16(top)
            elif kind == 1:  # 1-ulp near-tie in float32
                a, b = rng.choice(hot, size=2, replace=False)
                logits[t, a] = np.float32(top)
                logits[t, b] = np.nextafter(np.float32(top), np.float32(-np.inf))
            elif kind == 2:  # softmax underflow: the rest is exactly 0 (ties everywhere below the top)
                logits[t, rng.choice(hot)] = 200.0
            elif kind == 3 and t > 0:  # a duplicated tile
                logits[t] = logits[t - 1]
            else:
                logits[t, rng.choice(hot)] = np.float16(top)
        out[f"Q-{seed:02d}-{i:02d}"] = logits
    return out


def probabilities(logits: np.ndarray) -> np.ndarray:
    """float32 softmax over classes, as ``torch.nn.functional.softmax(outputs, dim=1)``."""
    return torch.from_numpy(np.ascontiguousarray(logits)).float().softmax(dim=1).numpy()
