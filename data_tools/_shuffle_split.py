"""The public AgrI training script's train/val split, re-expressed without scikit-learn.

The script calls ``sklearn.model_selection.train_test_split(paths, labels,
test_size=f, random_state=seed, stratify=labels)`` once per fold, with the same
seed for every fold. ``stratified_train_test_split`` returns the same two index
lists, in the same order, for the same ``labels`` sequence (tested against
scikit-learn itself). The algorithm is scikit-learn's ``StratifiedShuffleSplit``
(first split) with ``rng = numpy.random.RandomState(seed)``:

* n_test = ceil(f * n), n_train = n - n_test;
* classes = sorted distinct labels; ``class_indices[c]`` = positions of class c
  in input order (stable sort);
* n_i = approximate_mode(class_counts, n_train), then
  t_i = approximate_mode(class_counts - n_i, n_test), where approximate_mode
  floors ``counts / sum(counts) * draws`` and hands out the missing draws by
  decreasing remainder, ties broken by ``rng.choice(ties, k, replace=False)``;
* per class, in class order: ``p = rng.permutation(count)``, the first n_i of
  ``class_indices[c][p]`` go to train, the next t_i to test;
* finally ``train = rng.permutation(train)``, ``test = rng.permutation(test)``.

The result depends on the input order, so the script's split depends on the
order in which its file system listed the images.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from agrieval.data_tools.errors import DataError


def _approximate_mode(class_counts: np.ndarray, n_draws: int, rng: np.random.RandomState) -> np.ndarray:
    continuous = class_counts / class_counts.sum() * n_draws
    floored = np.floor(continuous)
    need_to_add = int(n_draws - floored.sum())
    if need_to_add > 0:
        remainder = continuous - floored
        for value in np.sort(np.unique(remainder))[::-1]:
            (inds,) = np.where(remainder == value)
            add_now = min(len(inds), need_to_add)
            # drawn even when every tie is taken: the draw advances the stream
            floored[rng.choice(inds, size=add_now, replace=False)] += 1
            need_to_add -= add_now
            if need_to_add == 0:
                break
    return floored.astype(int)


def stratified_train_test_split(labels: Sequence, *, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train positions, test positions) of ``labels``, as scikit-learn's stratified ``train_test_split``."""
    y = np.asarray(labels)
    n = len(y)
    if not 0.0 < test_size < 1.0:
        raise DataError("bad_option", f"the val fraction must be strictly between 0 and 1, got {test_size}")
    n_test = math.ceil(test_size * n)
    n_train = n - n_test
    classes, y_indices, class_counts = np.unique(y, return_inverse=True, return_counts=True)
    if n == 0 or n_train == 0:
        raise DataError("split_too_small", f"{n} image(s): a {test_size} val fraction leaves no training image")
    if class_counts.min() < 2:
        raise DataError("split_too_small", "the script's stratified split needs at least 2 images per class; "
                        f"too few in {classes[class_counts < 2].tolist()}")
    if n_train < len(classes) or n_test < len(classes):
        raise DataError("split_too_small", f"{n_train} train / {n_test} val images for {len(classes)} classes: "
                        "the script's stratified split needs at least one of each class on each side")
    class_indices = np.split(np.argsort(y_indices, kind="stable"), np.cumsum(class_counts)[:-1])
    rng = np.random.RandomState(seed)
    n_i = _approximate_mode(class_counts, n_train, rng)
    t_i = _approximate_mode(class_counts - n_i, n_test, rng)
    train: list[int] = []
    test: list[int] = []
    for i in range(len(classes)):
        perm = class_indices[i].take(rng.permutation(class_counts[i]), mode="clip")
        train.extend(perm[: n_i[i]])
        test.extend(perm[n_i[i]: n_i[i] + t_i[i]])
    return rng.permutation(np.asarray(train, dtype=np.intp)), rng.permutation(np.asarray(test, dtype=np.intp))
