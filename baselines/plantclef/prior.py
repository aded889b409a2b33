"""Per-image prior over the classes, multiplied into every tile's scores on the device (DS@GT 2025).

DS@GT's best run (``plantclef/classification/transform.py`` at 8fc427c ~196-209) scores a tile as
``softmax(logits) * 100`` (float32), times ``torch.tensor(prior)`` of the image (float64: the product is
float64), then ``torch.topk(k=10)`` on that. The prior file is theirs: Parquet with ``image_name`` and
``prior_probabilities`` (one list of C floats per image; made from PaCMAP + KMeans clusters of the test
embeddings, ``eda/20250414-mg-species-prior.ipynb``). ``image_name`` may carry the file suffix; it is matched
to the kit's image id (the file name without suffix). Strict: an image without a prior, a prior of the wrong
length or a name given twice is an error.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np


class PriorError(ValueError):
    pass


def load_prior(path: str | Path, ids: list[str], n_classes: int) -> dict[str, np.ndarray]:
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise PriorError(f"prior file {path} not found")
    table = pq.read_table(path)
    missing = [c for c in ("image_name", "prior_probabilities") if c not in table.column_names]
    if missing:
        raise PriorError(f"{path}: missing column(s) {', '.join(missing)} (DS@GT's layout: image_name, "
                         "prior_probabilities)")
    names = table.column("image_name").to_pylist()
    rows = table.column("prior_probabilities").to_pylist()
    out: dict[str, np.ndarray] = {}
    for n, (name, row) in enumerate(zip(names, rows), start=1):
        key = str(name).rsplit(".", 1)[0] if str(name).lower().endswith((".jpg", ".jpeg", ".png")) else str(name)
        if key in out:
            raise PriorError(f"{path}: row {n}: image {name!r} has a prior already")
        vec = np.asarray(row, dtype=np.float64)
        if vec.shape != (n_classes,):
            raise PriorError(f"{path}: row {n}: image {name!r} has {vec.size} prior values, the model {n_classes} "
                             "classes")
        out[key] = vec
    lacking = [i for i in ids if i not in out]
    if lacking:
        raise PriorError(f"{path}: no prior for image {lacking[0]!r} ({len(lacking)} image(s) in all)")
    return out


def file_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
