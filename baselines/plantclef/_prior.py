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

from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

# Imported inside functions, so that importing this module loads only what it needs: pyarrow (heavy or optional).

# DS@GT's prior: one float64 per class per test image; PlantCLEF 2025's 2,105 quadrats times 7,806 classes is
# 131 MB before Parquet compresses it. Four times that covers a larger test set; more is not a prior file.
MAX_PRIOR_BYTES = 512 << 20


class PriorError(ValueError):
    pass


def load_prior(path: str | Path, ids: list[str], n_classes: int) -> dict[str, np.ndarray]:
    import pyarrow.parquet as pq

    path = Path(path)
    with _open_prior(path) as fh:  # pyarrow reads the file the opening rule opened, never the path
        try:
            table = pq.read_table(fh)
        except (OSError, ValueError) as exc:  # pyarrow.ArrowInvalid is a ValueError
            raise PriorError(f"{path}: not a Parquet file ({exc})") from None
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


def _open_prior(path: Path):
    try:  # the one opening rule: a FIFO, a device or a folder is refused at once, a huge file before it is read
        return open_regular(path, max_bytes=MAX_PRIOR_BYTES, what="prior file")
    except FileNotFoundError:
        raise PriorError(f"prior file {path} not found") from None
    except UntrustedFileError as exc:
        raise PriorError(f"{path}: {exc.message}") from None


def file_digest(path: str | Path) -> str:
    """The first 16 hex digits of the prior file's SHA-256, read in 1 MB pieces through the opening rule."""
    digest = hashlib.sha256()
    with _open_prior(Path(path)) as fh:
        for piece in iter(lambda: fh.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()[:16]
