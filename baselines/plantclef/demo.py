"""``agrieval baselines plantclef demo``: the whole path on the CPU in seconds.

Writes into ``--out``: synthetic quadrats with planted species, a class mapping
(the first species ids of the competition vocabulary), a tiny random-init
checkpoint of the same model family (``tiny`` preset, with an EMA copy as timm
training writes it), the solution of the planted species; then runs
``predict``, validates and scores the submission. A random-init model knows no
plant, so its score is near chance: the demo shows the plumbing, not accuracy.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

import torch

from agrieval.baselines.plantclef._synthetic import demo_ids, make_quadrats
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.geometry import parse_level
from agrieval.baselines.plantclef.model import PRESETS, build_model
from agrieval.baselines.plantclef.predict import PredictResult, RunOptions, run_predict
from agrieval.baselines.plantclef.preprocess import PreprocessConfig
from agrieval.scoring.runtime.atomic import atomic_write, write_text
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.scorer import score_file
from agrieval.scoring.writing.submission import format_labels

_MARKER = "demo.json"


@dataclass
class _DemoResult:
    folder: Path
    files: dict[str, Path]
    result: PredictResult
    primary_metric: str
    score: float
    command: str


def _check_folder(out: Path) -> None:
    if out.exists() and any(out.iterdir()) and not (out / _MARKER).is_file():
        raise FileExistsError(f"{out} exists and is not a previous demo folder; pick another --out")


def _write_solution(path: Path, planted: dict[str, list[int]], definition: CompetitionDefinition) -> None:
    """Solution in the competition's dialect: id, species list, split (every row public)."""
    buf = io.StringIO()
    quoting = csv.QUOTE_ALL if definition.quoting == "all" else csv.QUOTE_MINIMAL
    w = csv.writer(buf, delimiter=definition.delimiter, quoting=quoting, lineterminator="\n")
    w.writerow([definition.id_column, definition.prediction_column, definition.split.column])
    for image_id in sorted(planted):
        w.writerow([image_id, format_labels(planted[image_id], definition), definition.split.public])
    write_text(path, buf.getvalue())


def run_demo(out: Path, definition: CompetitionDefinition, *, n_images: int = 8, n_classes: int = 8,
             progress: bool = True) -> _DemoResult:
    """The whole PlantCLEF pipeline on synthetic quadrats, in ``out`` (a new folder or one an earlier demo made):
    images with planted species, a tiny model, prediction, aggregation and scoring against the planted solution."""
    out = Path(out)
    _check_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / _MARKER, json.dumps({"what": "agrieval baselines plantclef demo"}) + "\n")
    vocabulary = sorted(definition.labels) if definition.labels else list(range(1_000_000, 1_000_000 + n_classes))
    species = vocabulary[:n_classes]
    files = {"images": out / "images", "class_mapping": out / "class_mapping.txt",
             "checkpoint": out / "model_tiny.pth.tar", "solution": out / "solution.csv",
             "submission": out / "submission.csv", "tile_scores": out / "tile_scores.parquet"}
    planted_idx = make_quadrats(files["images"], demo_ids(n_images), n_classes, grid=2, width=224, height=224)
    planted = {i: sorted(species[c] for c in cls) for i, cls in planted_idx.items()}
    write_text(files["class_mapping"], "".join(f"{s}\n" for s in species))

    spec = PRESETS["tiny"]
    torch.manual_seed(0)
    model, _ = build_model(spec, n_classes, None)
    state = model.state_dict()
    with atomic_write(files["checkpoint"], "wb", encoding=None) as fh:  # timm train layout: weights + EMA copy
        torch.save({"arch": spec.name, "state_dict": state, "state_dict_ema": state}, fh)
    _write_solution(files["solution"], planted, definition)

    preprocess = PreprocessConfig(levels=(parse_level("grid:2"), parse_level("full")), input_size=spec.img_size,
                                  resize_filter="lanczos", jpeg_quality=90, subsampling="4:2:2")
    agg = AggregationConfig(strategy="union", top_k=1, threshold=0.0, max_species=4)
    result = run_predict(files["images"], files["submission"], checkpoint=files["checkpoint"],
                         class_mapping=files["class_mapping"], spec=spec, preprocess=preprocess, agg=agg,
                         definition=definition, opts=RunOptions(device="cpu", batch_size=32, workers=0,
                                                                save_top_k=5, progress=progress),
                         save_tile_scores=files["tile_scores"], overwrite=True)
    report = score_file(files["submission"], files["solution"], definition)
    score = report.metrics.public[definition.primary_metric]
    command = (f"agrieval baselines plantclef predict {files['images']} --checkpoint {files['checkpoint']} "
               f"--class-mapping {files['class_mapping']} --preset tiny --tiling grid:2 --tiling full "
               f"--jpeg-quality 90 --subsampling 4:2:2 --strategy union --top-k 1 --max-species 4 --save-top-k 5 "
               f"--save-tile-scores {files['tile_scores']} --out {files['submission']} "
               f"--competition {definition.name} --device cpu --overwrite")
    return _DemoResult(out, files, result, definition.primary_metric, score, command)
