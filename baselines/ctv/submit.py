"""A trained CTV run -> the AgrI Challenge's ``submission.csv`` (``agrieval baselines ctv submit``).

The run's kept model (``best.pt``, read by the checkpoint's opening rule and ``weights_only``) predicts
every test image through the run's own eval transform (its pipeline: resize, centre crop, normalisation),
each prediction is named by the competition definition's vocabulary (a run class that is not in it is
refused, never renamed), and the file is written by the baselines' one submission writer, which checks the
written bytes with the grading reader before renaming them into place.

Which images: every image under ``--images DIR`` (id = its path under DIR without the extension, POSIX
separators, the AgrI ids' form ``team_d/406f31efaefd6435``), or the ids of ``--ids FILE`` (a CSV with the
definition's id column: a sample submission, the organisers' id list, a split manifest), each found under
``--images DIR`` by its ``path`` column when the file has one, else as ``<id>.<image extension>``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from agrieval.baselines.ctv.errors import CTVError

# Imported inside functions, so that importing this module loads only what it needs: the training side (checkpoint,
# config, models, dataset, engine, pipelines: they load torch and timm) and the submission writer, loaded when a
# submission is made.

__all__ = ["TestImages", "list_test_images", "ids_from_file", "submit_run", "MAX_ID_LIST_BYTES"]

MAX_ID_LIST_BYTES = 256 << 20  # an id list of a million rows is ~40 MB


@dataclass(frozen=True)
class TestImages:
    ids: list[str]
    paths: list[str]


def _image_suffixes():
    from agrieval.data_tools.walk import IMAGE_SUFFIXES

    return IMAGE_SUFFIXES


def list_test_images(folder: str | Path) -> TestImages:
    """Every image file under ``folder`` (sorted, hidden names and links left out), id = its relative path
    without the extension."""
    root = Path(folder)
    if not root.is_dir():
        raise CTVError("images_missing", f"{folder}: not a folder of test images")
    suffixes = _image_suffixes()
    found: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or path.suffix.lower() not in suffixes:
            continue
        image_id = rel.with_suffix("").as_posix()
        if image_id in found:
            raise CTVError("ids_invalid", f"{path}: id {image_id!r} is also the id of {found[image_id]} (two "
                           "images differ only by their extension); keep one")
        found[image_id] = str(path)
    if not found:
        raise CTVError("images_missing", f"{folder}: no image files ({', '.join(sorted(suffixes))})")
    return TestImages(list(found), list(found.values()))


def ids_from_file(id_file: str | Path, images: str | Path, id_column: str) -> TestImages:
    """The ids of ``id_file`` (in its order), each with its image under ``images``."""
    from agrieval.scoring.runtime.untrusted import UntrustedFileError, read_bytes
    from agrieval.scoring.writing.table_paths import UnsafePath, inside

    try:
        text = read_bytes(id_file, max_bytes=MAX_ID_LIST_BYTES, what="id list").decode("utf-8-sig")
    except UntrustedFileError as exc:
        raise CTVError("ids_invalid", f"{id_file}: {exc.message}") from None
    except FileNotFoundError:
        raise CTVError("ids_invalid", f"{id_file}: not found") from None
    except UnicodeDecodeError as exc:
        raise CTVError("ids_invalid", f"{id_file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    rows = csv.reader(io.StringIO(text, newline=""))
    header = next(rows, None) or []
    if id_column not in header:
        raise CTVError("ids_invalid", f"{id_file}:1: no {id_column!r} column (header: {', '.join(header) or 'empty'})")
    k_id = header.index(id_column)
    k_path = header.index("path") if "path" in header else None
    root = Path(images)
    if not root.is_dir():
        raise CTVError("images_missing", f"{images}: not a folder of test images")
    ids, paths, seen = [], [], {}
    for line, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise CTVError("ids_invalid", f"{id_file}:{line}: {len(row)} cells, the header has {len(header)}")
        image_id = row[k_id]
        if image_id in seen:
            raise CTVError("ids_invalid", f"{id_file}:{line}: id {image_id!r} is also on line {seen[image_id]}")
        seen[image_id] = line
        try:
            if k_path is not None:
                path = inside(root, row[k_path], where=f"{id_file}:{line}", columns=("path",), nested=(0,),
                              follow=True, escaped=False)
            else:
                path = _by_id(root, image_id, f"{id_file}:{line}")
        except UnsafePath as exc:
            raise CTVError("unsafe_path", exc.message) from None
        if not path.is_file():
            raise CTVError("image_missing", f"{id_file}:{line}: no image for id {image_id!r} under {images} "
                           f"({path.name if k_path is not None else 'tried ' + image_id + '.<jpg|png|...>'})")
        ids.append(image_id)
        paths.append(str(path))
    if not ids:
        raise CTVError("ids_invalid", f"{id_file}: no ids below the header")
    return TestImages(ids, paths)


def _by_id(root: Path, image_id: str, where: str) -> Path:
    from agrieval.scoring.writing.table_paths import inside

    stem = inside(root, image_id, where=where, columns=("image_id",), nested=(0,), follow=True, escaped=False)
    for suffix in sorted(_image_suffixes()):
        for candidate in (stem.with_name(stem.name + suffix), stem.with_name(stem.name + suffix.upper())):
            if candidate.is_file():
                return inside(root, image_id, where=where, columns=("image_id",), nested=(0,), follow=True,
                              escaped=False, suffix=candidate.name[len(stem.name):])
    return stem


def _vocabulary_names(classes: list[str], definition, checkpoint_path: Path) -> list[str]:
    vocab = definition.labels
    if vocab is None:
        return list(classes)
    unknown = [c for c in classes if c not in vocab]
    if unknown:
        raise CTVError("classes_mismatch", f"{checkpoint_path}: the run's classes {unknown} are not in "
                       f"{definition.name}'s vocabulary ({', '.join(sorted(map(str, vocab)))}); train on the "
                       "competition's class names (agrieval data's class map) or pass the competition the run "
                       "was trained for")
    return list(classes)


def submit_run(run_folder: str | Path, images: TestImages, out: str | Path, definition, *, device: str = "cpu",
               batch_size: int = 64, overwrite: bool = False, log=print) -> dict:
    """Predict ``images`` with the run's kept model and write ``out``; return a summary (ids, class counts,
    warnings)."""
    import torch
    from torch.utils.data import DataLoader

    from agrieval.baselines.ctv import _checkpoint as checkpoint
    from agrieval.baselines.ctv._dataset import SplitDataset
    from agrieval.baselines.ctv._pipelines import pipeline_for
    from agrieval.baselines.ctv.config import config_from_dict
    from agrieval.baselines.ctv.engine import predict
    from agrieval.baselines.ctv.models import build_model
    from agrieval.baselines.ctv.runner import _runtime
    from agrieval.baselines.submission import SubmissionFailsValidation, write_validated

    folder = Path(run_folder)
    best = folder / "best.pt"
    if not best.is_file():
        raise CTVError("run_missing", f"{folder}: no best.pt (the run's kept model); train it first with "
                       "`agrieval baselines ctv run`, or name the run folder RUNS/<protocol>/<arch>/<fold>")
    state = checkpoint.load(best)
    try:
        cfg = config_from_dict(state["config"])
        classes = [str(c) for c in state["classes"]]
        weights = state["model"]
    except (KeyError, TypeError) as exc:
        raise CTVError("checkpoint_invalid", f"{best}: not a kept model of a CTV run (no {exc})") from None
    names = _vocabulary_names(classes, definition, best)
    model = build_model(cfg.arch, len(classes), head=cfg.head, head_dropout=cfg.head_dropout,
                        head_hidden=cfg.head_hidden, pretrained=False, img_size=cfg.img_size)
    try:
        model.load_state_dict(weights)
    except RuntimeError as exc:
        raise CTVError("checkpoint_invalid", f"{best}: does not fit its recorded model {cfg.arch} "
                       f"({str(exc).splitlines()[0]})") from None
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise CTVError("device_unavailable", f"--device {device}: no CUDA device here; pass --device cpu")
    rt = _runtime(cfg, torch.device(device))
    model.to(rt.device)
    pipeline = pipeline_for(cfg)
    dataset = SplitDataset(images.paths, [0] * len(images.paths), pipeline.eval(cfg), decode=pipeline.decode)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=0)
    log(f"submit: {len(images.ids)} images, run {folder} ({cfg.arch}, epoch {state.get('epoch')}), "
        f"{definition.name}")
    result = predict(model, loader, rt, progress=False, desc="submit")
    labels = [names[int(k)] for k in result["pred"]]
    try:
        warnings = write_validated(out, images.ids, labels, definition, overwrite=overwrite)
    except SubmissionFailsValidation as exc:
        raise CTVError("submission_invalid", str(exc)) from None
    counts = {c: labels.count(c) for c in sorted(set(labels))}
    return {"ids": len(images.ids), "out": str(out), "per_class": counts, "warnings": [w.render() for w in warnings]}
