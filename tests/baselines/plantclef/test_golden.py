"""The kit's recipes against the teams' own outputs, recorded by scripts/fidelity/plantclef_teams.py (the team
code run by line range, unedited) in tests/fixtures/golden/plantclef_teams.json: species lists on seeded
awkward logits, tile boxes on 10 image sizes, tile pixel hashes. CI cannot fetch the teams' repositories;
these numbers stand for them. Where a recorded value depends on the environment (numpy's SIMD argsort,
torch's topk, PIL's filters), the comparison runs only in the environment that recorded it."""

import json
import math
from pathlib import Path

import numpy as np
import PIL
import pytest
import torch

from agrieval.baselines.plantclef._awkward_logits import N_CLASSES, awkward_quadrats, probabilities
from agrieval.baselines.plantclef._fidelity import kit_frame, kit_scorer_frame, recipe_config, sha
from agrieval.baselines.plantclef._synthetic import field_quadrat
from agrieval.baselines.plantclef._tie_rules import parse_specs
from agrieval.baselines.plantclef.aggregate import aggregate
from agrieval.baselines.plantclef.geometry import _level_boxes as level_boxes
from agrieval.baselines.plantclef.geometry import parse_level
from agrieval.baselines.plantclef.predict import _cpu_features
from agrieval.baselines.plantclef.preprocess import PreprocessConfig, quadrat_tiles
from agrieval.baselines.plantclef.recipes import get_recipe

GOLDEN = json.loads((Path(__file__).parents[2] / "fixtures" / "golden" / "plantclef_teams.json").read_text())
ENV = GOLDEN["env"]
SAME_NUMPY = ENV["numpy"] == np.__version__ and ENV["numpy_cpu_features"] == sorted(
    k for k, on in _cpu_features().items() if on)
SAME_TORCH = ENV["torch"] == torch.__version__ and SAME_NUMPY  # same torch on the same CPU features (vector width)
SAME_PIL = ENV["pillow"] == PIL.__version__


@pytest.fixture(scope="module", params=sorted(GOLDEN["seeds"]))
def seed(request):
    s = int(request.param)
    return s, {q: probabilities(l) for q, l in awkward_quadrats(s).items()}


@pytest.mark.skipif(not SAME_NUMPY, reason="numpy's argsort picks among ties by version and CPU (SIMD sort)")
def test_dsgt_vote_recipe_equals_the_nms_notebook(seed):
    s, quads = seed
    frame = kit_frame(quads, 10, parse_specs(get_recipe("dsgt-2025-vote").values["save_ties"]))
    assert aggregate(frame, recipe_config("dsgt-2025-vote")) == GOLDEN["seeds"][str(s)]["dsgt_vote"]


@pytest.mark.skipif(not SAME_TORCH, reason="torch.topk's pick among ties may change with the torch version")
def test_organisers_recipe_equals_the_tiling_notebook(seed):
    s, quads = seed
    frame = kit_frame(quads, 10, parse_specs(get_recipe("organisers-tiling").values["save_ties"]))
    assert aggregate(frame, recipe_config("organisers-tiling")) == GOLDEN["seeds"][str(s)]["organisers"]


@pytest.mark.skipif(not SAME_TORCH, reason="torch.topk's pick among ties may change with the torch version")
def test_chlorophyll_tiles_recipe_equals_top_k_tile_prediction(seed):
    s, quads = seed
    frame = kit_frame(quads, 10, parse_specs(get_recipe("chlorophyll-2025-tiles").values["save_ties"]))
    assert aggregate(frame, recipe_config("chlorophyll-2025-tiles")) == GOLDEN["seeds"][str(s)]["chlorophyll_tiles"]


@pytest.mark.skipif(not SAME_NUMPY, reason="float32 sums may change with numpy's SIMD loops")
def test_chlorophyll_recipe_equals_the_merge_notebook(seed):
    s, quads = seed
    rng = np.random.default_rng(100 + s)
    second = {q: probabilities((l + rng.normal(0, 0.5, l.shape)).astype(np.float16).astype(np.float32))
              for q, l in awkward_quadrats(s).items()}
    frames = [kit_frame(m, N_CLASSES) for m in (quads, second)]
    got = aggregate(frames[0], recipe_config("chlorophyll-2025"), n_classes=N_CLASSES, members=frames)
    assert got == GOLDEN["seeds"][str(s)]["chlorophyll_merge"]


@pytest.mark.parametrize("size", sorted(GOLDEN["sizes"]))
def test_boxes_equal_kornia_and_the_teams_geometry(size):
    w, h = (int(v) for v in size.split("x"))
    g = GOLDEN["sizes"][size]
    boxes = level_boxes(w, h, parse_level("window:518:259"), "centre")
    top, _, left, _ = g["organisers_padding"]
    assert boxes[0] == (-left, -top, 518 - left, 518 - top) and list(boxes[0]) == g["organisers_first_box"]
    assert len(boxes) == g["organisers_boxes"]
    for (scale, overlap), rec in zip(((1, 0), (2, 0.5), (5, 0.25)), g["chlorophyll_levels"]):
        b = level_boxes(w, h, parse_level(f"scale:{scale}:{overlap}"))
        top, _, left, _ = rec["padding"]
        assert b[0][:2] == (-left, -top) and list(b[0]) == rec["first_box"] and len(b) == rec["n"]
        assert b[0][2] - b[0][0] == math.ceil(w / scale)
    for n, first in g["winner_resized"].items():
        assert list(level_boxes(w, h, parse_level(f"resized:{n}:518"))[0]) == first
    assert [list(b) for b in level_boxes(w, h, parse_level("floor:3"))] == g["dsgt_floor3"]


@pytest.mark.parametrize("size", [s for s in sorted(GOLDEN["sizes"]) if "organisers_pixels" in GOLDEN["sizes"][s]])
def test_tile_pixels_equal_the_teams_tiles(size):
    w, h = (int(v) for v in size.split("x"))
    g = GOLDEN["sizes"][size]
    img = field_quadrat(w, h, seed=7)
    kit, _, _ = quadrat_tiles(img, PreprocessConfig(levels=(parse_level("window:518:259"),), border_mode="centre"))
    assert sha(kit) == g["organisers_pixels"]  # a crop, no filter: the same everywhere
    if SAME_PIL:
        kit, _, _ = quadrat_tiles(img, PreprocessConfig(levels=(parse_level("floor:3"),), tile_policy="timm",
                                                        resize_filter="bicubic"))
        assert sha(kit) == g["dsgt_pixels"]
    if SAME_TORCH:
        levels = tuple(parse_level(t) for t in get_recipe("chlorophyll-2025").values["tiling"])
        before = torch.get_num_threads()
        torch.set_num_threads(ENV["torch_threads"])  # float kernels round by thread split (see the script)
        try:
            kit, _, _ = quadrat_tiles(img, PreprocessConfig(levels=levels, centre_crop=0.1))  # their 10% crop
        finally:
            torch.set_num_threads(before)
        assert len(kit) == g["chlorophyll_tiles"] and sha(kit) == g["chlorophyll_pixels"]


@pytest.mark.skipif(not SAME_TORCH, reason="torch.topk's pick among ties may change with the torch version")
def test_dsgt_grid_recipe_through_the_tile_scorer_equals_transform_py(seed):
    s, _ = seed
    frame = kit_scorer_frame(awkward_quadrats(s), 10, get_recipe("dsgt-2025-grid").values["score_scale"])
    got = aggregate(frame, recipe_config("dsgt-2025-grid"))
    assert got == GOLDEN["seeds"][str(s)]["dsgt_pairs"]
