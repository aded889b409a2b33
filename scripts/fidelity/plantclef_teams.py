"""Run each PlantCLEF team's own code, taken by line range and unedited, beside the kit's recipes.

    python scripts/fidelity/plantclef_teams.py --dsgt GITDIR --chlorophyll GITDIR --kornia DIR \
        [--seeds 0,1] [--golden tests/fixtures/golden/plantclef_teams.json]

``--dsgt`` / ``--chlorophyll``: git directories (bare is fine) of dsgt-arc/plantclef-2025 and
geranium12/plant-clef-2025 (the latter holds the organisers' tiling notebook as they ran it);
``--kornia``: an unpacked kornia 0.8.0 wheel (the version in geranium12's uv.lock, the environment
the organisers' notebook ran in: ``pip download --no-deps kornia==0.8.0`` then unzip). Nothing is
copied into this repository: the snippets are read with ``git show`` and executed in a namespace.
The winner's Rust (yunijeong5/PlantCLEF2026) is not run (no toolchain): its geometry is re-stated in
``agrieval.baselines.plantclef.geometry`` and tested there.

Prints one line per rule / tiling: ``equal`` or ``differs`` with the count, on the seeded awkward
logits (``agrieval.baselines.plantclef._awkward_logits``: fp16 ties, 1-ulp near-ties, duplicated tiles, softmax
underflow) and 10 awkward image sizes. ``--golden`` writes the teams' outputs (species lists, boxes,
pixel hashes: numbers only) and the environment they depend on, for ``tests`` to compare against.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import subprocess
import sys
import textwrap
import types
from collections import Counter
from itertools import chain
from pathlib import Path

import numpy as np
import pandas as pd
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agrieval.baselines.plantclef._awkward_logits import N_CLASSES, awkward_quadrats, probabilities  # noqa: E402
from agrieval.baselines.plantclef._fidelity import SPECIES, kit_frame, kit_scorer_frame, recipe_config, sha  # noqa: E402
from agrieval.baselines.plantclef._synthetic import field_quadrat  # noqa: E402
from agrieval.baselines.plantclef._tie_rules import parse_specs  # noqa: E402
from agrieval.baselines.plantclef.aggregate import aggregate  # noqa: E402
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig  # noqa: E402
from agrieval.baselines.plantclef.geometry import _level_boxes as level_boxes  # noqa: E402
from agrieval.baselines.plantclef.geometry import parse_level
from agrieval.baselines.plantclef.predict import _cpu_features  # noqa: E402
from agrieval.baselines.plantclef.preprocess import PreprocessConfig, quadrat_tiles  # noqa: E402
from agrieval.baselines.plantclef.recipes import get_recipe  # noqa: E402

# (repository, commit, path, cell or None, first line, last line): the team code that is run, 1-based, inclusive.
SNIPPETS = {
    "dsgt_top_n": ("dsgt", "c2dd4d9", "notebooks/classification/20250504-mg-nms-submission.ipynb", 7, 17, 20),
    "dsgt_aggregate": ("dsgt", "c2dd4d9", "notebooks/classification/20250504-mg-nms-submission.ipynb", 11, 6, 11),
    "dsgt_grid": ("dsgt", "8fc427c", "plantclef/classification/transform.py", None, 155, 167),
    "dsgt_predict": ("dsgt", "8fc427c", "plantclef/classification/transform.py", None, 187, 224),
    "dsgt_top_k": ("dsgt", "8fc427c", "plantclef/classification/submission.py", None, 68, 72),
    "organisers_loop": ("chlorophyll", "556afb4", "notebooks/official-notebook-tiling-inference.ipynb", 16, 32, 45),
    "organisers_tiling": ("chlorophyll", "556afb4", "notebooks/official-notebook-tiling-inference.ipynb", 3, 57, 62),
    "merge_len": ("chlorophyll", "556afb4", "predictions/merge.ipynb", 4, 1, 3),
    "merge_z": ("chlorophyll", "556afb4", "predictions/merge.ipynb", 5, 1, 40),
    "merge_search": ("chlorophyll", "556afb4", "predictions/merge.ipynb", 6, 1, 19),
    "chloro_tiling": ("chlorophyll", "556afb4", "src/data.py", None, 84, 122),
    "chloro_top_k_tile": ("chlorophyll", "556afb4", "src/prediction.py", None, 50, 107),
}
SIZES = [(1536, 1024), (1024, 1536), (4000, 3000), (3024, 4032), (519, 517), (777, 1333),
         (2048, 1365), (5184, 3456), (1100, 733), (733, 1100)]
PIXEL_SIZES = [(1100, 733), (733, 1100), (519, 517)]  # where pixels are compared (CPU time)


def snippet(repos: dict, key: str) -> str:
    repo, commit, path, cell, first, last = SNIPPETS[key]
    text = subprocess.run(["git", "--git-dir", str(repos[repo]), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    if cell is not None:
        text = "".join(json.loads(text)["cells"][cell]["source"])
    return textwrap.dedent("\n".join(text.split("\n")[first - 1:last])) + "\n"


def run(code: str, **names) -> dict:
    ns = dict(names)
    with contextlib.redirect_stdout(io.StringIO()):  # the notebooks print progress
        exec(compile(code, "<team>", "exec"), ns)
    return ns


def team_dsgt_vote(repos, quads):
    ns = run(snippet(repos, "dsgt_top_n") + snippet(repos, "dsgt_aggregate"), np=np, pd=pd, chain=chain,
             Counter=Counter, cid_to_spid={i: int(s) for i, s in enumerate(SPECIES)})
    rows = [(q, p.tolist()) for q, tiles in quads.items() for p in tiles]  # probabilities[0].cpu().numpy().tolist()
    df = pd.DataFrame({"image_name": [q for q, _ in rows], "probabilities": [p for _, p in rows]})
    df["species_ids"] = df["probabilities"].apply(lambda proba: ns["get_top_n_predictions"](proba, n=1))
    return {q: [int(s) for s in ns["aggregate_predictions"](g, k=10)["species_ids"]]
            for q, g in df.groupby("image_name")}


def team_dsgt_pairs(repos, logits, prior=None, top_k=5):
    """transform.py predict() (per tile: softmax * 100, optional prior, topk(k=10); flatten; sort) and
    submission.py _extract_top_k_species, on the given logits (the model and the image are stubs)."""
    ns = run(snippet(repos, "dsgt_predict") + snippet(repos, "dsgt_top_k"), torch=torch,
             deserialize_image=lambda tiles: tiles)
    out = {}
    for q, l in logits.items():
        self = types.SimpleNamespace(
            use_grid=True, _split_into_grid=lambda tiles: tiles, transforms=lambda t: t, model=lambda x: x,
            device="cpu", prior_path="prior" if prior is not None else None,
            _get_prior_for_image=lambda name: prior[name], cid_to_spid={i: int(s) for i, s in enumerate(SPECIES)})
        ns["self"] = self
        predict = ns["predict"]
        preds = predict([torch.from_numpy(row) for row in l], q)  # predict() reads `self` as a global here
        out[q] = [int(s) for s in ns["_extract_top_k_species"](types.SimpleNamespace(top_k=top_k), preds)]
    return out


def team_organisers(repos, quads):
    code = snippet(repos, "organisers_loop")
    out = {}
    for q, p in quads.items():
        ns = run(code, torch=torch, probabilities=torch.from_numpy(p), top_k_tile=2, min_score=0.1,
                 class_map={i: int(s) for i, s in enumerate(SPECIES)}, image_results={})
        out[q] = [int(s) for s in ns["image_results"]]
    return out


def team_chloro_tiles(repos, quads):
    ns = run(snippet(repos, "chloro_top_k_tile"), torch=torch)
    species = {i: int(s) for i, s in enumerate(SPECIES)}
    return {q: [int(s) for s in ns["top_k_tile_prediction"](torch.from_numpy(p), species, top_k_tile=2,
                                                            min_score=0.1, top_n=-1, bottom_n=1)]
            for q, p in quads.items()}


def team_merge(repos, quads_by_model):
    ns = run(snippet(repos, "merge_len") + snippet(repos, "merge_z") + snippet(repos, "merge_search"), np=np,
             all_quadrat_probs=quads_by_model, TARGET_MEAN_PREDICTION_LENGTH=4.2, MIN_MIN_SCORE=0.001,
             MAX_MIN_SCORE=100.0, MAX_PREDICTION_LENGTH=9, MIN_PREDICTION_LENGTH=1, USE_Z_SCORE=True)
    return {q: [int(SPECIES[i]) for i in v] for q, v in ns["image_predictions"].items()}


def load_kornia(path: Path):
    sys.modules.setdefault("kornia_rs", types.ModuleType("kornia_rs"))  # only kornia.io needs the Rust part
    sys.path.insert(0, str(path))
    import kornia
    from kornia.contrib import compute_padding, extract_tensor_patches

    if kornia.__version__ != "0.8.0":
        raise SystemExit(f"--kornia holds kornia {kornia.__version__}, not 0.8.0")
    return compute_padding, extract_tensor_patches


# --- main ---------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dsgt", type=Path, required=True)
    ap.add_argument("--chlorophyll", type=Path, required=True)
    ap.add_argument("--kornia", type=Path, required=True)
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--golden", type=Path, default=None)
    a = ap.parse_args(argv)
    repos = {"dsgt": a.dsgt, "chlorophyll": a.chlorophyll}
    compute_padding, extract_tensor_patches = load_kornia(a.kornia)
    table, golden = [], {"snippets": {k: list(v) for k, v in SNIPPETS.items()},
                         "env": {"numpy": np.__version__, "torch": torch.__version__,
                                 "pillow": __import__("PIL").__version__,
                                 "numpy_cpu_features": sorted(k for k, on in _cpu_features().items() if on),
                                 # torch's float kernels split the work by thread, and a split's vector tail
                                 # rounds differently: Chlorophyll's float tiles differ by an ulp (so by one grey
                                 # level after rounding) with another thread count
                                 "torch_threads": torch.get_num_threads()},
                         "seeds": {}, "sizes": {}}

    def row(what, n_equal, n, how):
        table.append((what, "equal" if n_equal == n else "differs", f"{n_equal}/{n}", how))

    for seed in (int(s) for s in a.seeds.split(",")):
        logits = awkward_quadrats(seed)
        quads = {q: probabilities(l) for q, l in logits.items()}
        g = golden["seeds"][str(seed)] = {}
        want = team_dsgt_vote(repos, quads)
        got = aggregate(kit_frame(quads, 10, parse_specs(get_recipe("dsgt-2025-vote").values["save_ties"])),
                        recipe_config("dsgt-2025-vote"))
        row(f"seed {seed} dsgt-2025-vote (argsort()[-1:], most_common(10))",
            sum(got[q] == want[q] for q in quads), len(quads), "NMS notebook cells 7+11 run on the lists")
        before = aggregate(kit_frame(quads, 10), AggregationConfig(strategy="vote", top_k=1, max_species=10,
                                                                   tie_rule="first-seen"))
        row(f"seed {seed}   (the kit before: saved topk(p, 10) rank 0, first-seen)",
            sum(before[q] == want[q] for q in quads), len(quads), "for comparison")
        g["dsgt_vote"] = want
        want = team_dsgt_pairs(repos, logits)
        got = aggregate(kit_scorer_frame(logits, 10, get_recipe("dsgt-2025-grid").values["score_scale"]),
                        recipe_config("dsgt-2025-grid"))
        row(f"seed {seed} dsgt-2025-grid (softmax x 100, topk(k=10), first 5 pairs)",
            sum(got[q] == want[q] for q in quads), len(quads), "transform.py l.187-224 + submission.py l.68-72")
        before = aggregate(kit_scorer_frame(logits, 10, 1.0), recipe_config("dsgt-2025-grid"))
        row(f"seed {seed}   (the kit before: topk of the unscaled probabilities)",
            sum(before[q] == want[q] for q in quads), len(quads), "for comparison")
        g["dsgt_pairs"] = want
        rng = np.random.default_rng(200 + seed)
        prior = {q: rng.dirichlet(np.full(N_CLASSES, 0.5)) * N_CLASSES for q in logits}
        want = team_dsgt_pairs(repos, logits, prior)
        got = aggregate(kit_scorer_frame(logits, 10, 100.0, prior), recipe_config("dsgt-2025-grid"))
        row(f"seed {seed} dsgt-2025-grid + --prior (float64 product)", sum(got[q] == want[q] for q in quads),
            len(quads), "the same, with a seeded prior per image")
        want = team_organisers(repos, quads)
        got = aggregate(kit_frame(quads, 10, parse_specs(get_recipe("organisers-tiling").values["save_ties"])),
                        recipe_config("organisers-tiling"))
        row(f"seed {seed} organisers-tiling (topk(p, 2) > 0.1, dict order)",
            sum(got[q] == want[q] for q in quads), len(quads), "tiling notebook cell 16 loop, torch CPU")
        before = aggregate(kit_frame(quads, 10), AggregationConfig(strategy="union", top_k=2, threshold=0.1))
        row(f"seed {seed}   (the kit before: saved topk(p, 10) ranks 0-1, >=, score order)",
            sum(before[q] == want[q] for q in quads), len(quads), "for comparison")
        g["organisers"] = want
        want = team_chloro_tiles(repos, quads)
        got = aggregate(kit_frame(quads, 10, parse_specs(get_recipe("chlorophyll-2025-tiles").values["save_ties"])),
                        recipe_config("chlorophyll-2025-tiles"))
        row(f"seed {seed} chlorophyll-2025-tiles (top_k_tile_prediction k 2, > 0.1)",
            sum(got[q] == want[q] for q in quads), len(quads), "src/prediction.py l.50-107")
        g["chlorophyll_tiles"] = want
        rng = np.random.default_rng(100 + seed)  # a second model: the same fp16 logits, jittered
        second = {q: probabilities((l + rng.normal(0, 0.5, l.shape)).astype(np.float16).astype(np.float32))
                  for q, l in logits.items()}
        want = team_merge(repos, [quads, second])
        frames = [kit_frame(m, N_CLASSES) for m in (quads, second)]
        got = aggregate(frames[0], recipe_config("chlorophyll-2025"), n_classes=N_CLASSES, members=frames)
        row(f"seed {seed} chlorophyll-2025 (merge.ipynb, 2-model ensemble)",
            sum(got[q] == want[q] for q in quads), len(quads), "merge.ipynb cells 4-6")
        got = aggregate(frames[0], recipe_config("chlorophyll-2025"), dense=[(quads, SPECIES), (second, SPECIES)])
        row(f"seed {seed} chlorophyll-2025 from --save-full-probs arrays", sum(got[q] == want[q] for q in quads),
            len(quads), "the same, from the dense sidecar's arrays")
        g["chlorophyll_merge"] = want

    for w, h in SIZES:
        s = golden["sizes"][f"{w}x{h}"] = {}
        pad = compute_padding(original_size=(h, w), window_size=518, stride=259)  # (top, bottom, left, right)
        kit = level_boxes(w, h, parse_level("window:518:259"), "centre")
        s["organisers_padding"] = list(pad)
        s["organisers_first_box"] = list(kit[0])
        s["organisers_boxes"] = len(kit)
        ok = kit[0][:2] == (-pad[2], -pad[0])
        chl = []
        for scale, overlap in ((1.0, 0.0), (2.0, 0.5), (5.0, 0.25)):
            boxes = level_boxes(w, h, parse_level(f"scale:{scale:g}:{overlap:g}"))
            win = (math.ceil(h / scale), math.ceil(w / scale))
            stride = (math.ceil(win[0] * (1.0 - overlap)), math.ceil(win[1] * (1.0 - overlap)))
            cp = compute_padding(original_size=(h, w), window_size=win, stride=stride)
            chl.append({"padding": list(cp), "first_box": list(boxes[0]), "n": len(boxes)})
            ok_c = boxes[0][:2] == (-cp[2], -cp[0])
            if not ok_c:
                ok = False
        s["chlorophyll_levels"] = chl
        s["winner_resized"] = {n: list(level_boxes(w, h, parse_level(f"resized:{n}:518"))[0]) for n in (1, 2, 3)}
        s["dsgt_floor3"] = [list(b) for b in level_boxes(w, h, parse_level("floor:3"))]
        s["_ok"] = ok
    row("kornia 0.8.0 compute_padding: organisers + Chlorophyll first boxes", sum(v["_ok"] for v in
        golden["sizes"].values()), len(SIZES), "compute_padding run; starts = -(top, left)")
    for v in golden["sizes"].values():
        v.pop("_ok")

    # Pixels: the teams' own tiling code on a seeded photo-like image, against the kit's tiles.
    import torchvision.transforms as T

    grid_code = snippet(repos, "dsgt_grid")
    tiling_code = snippet(repos, "organisers_tiling")
    chloro_code = snippet(repos, "chloro_tiling")
    eq = {"organisers": 0, "dsgt": 0, "chloro": 0}
    chloro_residual = 0.0
    for w, h in PIXEL_SIZES:
        img = field_quadrat(w, h, seed=7)
        s = golden["sizes"][f"{w}x{h}"]
        image = T.ToTensor()(img).unsqueeze(0)
        ns = run("def f(self, image, h, w):\n" + textwrap.indent(tiling_code, "    ") + "    return patches\n",
                 compute_padding=compute_padding, extract_tensor_patches=extract_tensor_patches)
        self = types.SimpleNamespace(patch_size=518, stride=259)
        theirs = ns["f"](self, image, h, w)[0].permute(0, 2, 3, 1).numpy()
        kit, _, _ = quadrat_tiles(img, PreprocessConfig(levels=(parse_level("window:518:259"),), border_mode="centre"))
        eq["organisers"] += int(theirs.shape == kit.shape and np.array_equal(theirs, kit.astype(np.float32) / 255))
        s["organisers_pixels"] = sha(np.rint(theirs * 255).astype(np.uint8))
        # DS@GT: _split_into_grid then timm's eval transform of the organisers' DINOv2 model (crop_pct 1.0).
        import timm

        ns = run(grid_code)
        tiles = ns["_split_into_grid"](types.SimpleNamespace(grid_size=3), img)
        cfg = timm.data.resolve_data_config({}, pretrained_cfg=timm.models.get_pretrained_cfg(
            "vit_base_patch14_reg4_dinov2.lvd142m").to_dict() | {"input_size": (3, 518, 518)})
        tf = timm.data.create_transform(**cfg, is_training=False)
        theirs = np.stack([np.asarray(tf.transforms[1](tf.transforms[0](t))) for t in tiles])
        kit, _, _ = quadrat_tiles(img, PreprocessConfig(levels=(parse_level("floor:3"),), tile_policy="timm",
                                                        resize_filter="bicubic"))
        eq["dsgt"] += int(np.array_equal(theirs, kit))
        s["dsgt_pixels"] = sha(theirs)
        # Chlorophyll: MultitileDataset.__getitem__ l.84-122 (their 10% centre crop, tiling) with kornia 0.8.0.
        ns = run("def f(self, image):\n" + textwrap.indent(chloro_code, "    ") + "    return all_patches\n",
                 compute_padding=compute_padding, extract_tensor_patches=extract_tensor_patches, math=math,
                 torch=torch, ttransforms=T)
        self = types.SimpleNamespace(scales=[1.0, 2.0, 5.0], overlaps=[0.0, 0.5, 0.25], tile_size=518,
                                     crop_side_percent=0.1, transform=T.ToTensor())
        theirs = ns["f"](self, img).permute(0, 2, 3, 1).numpy()
        levels = tuple(parse_level(t) for t in get_recipe("chlorophyll-2025").values["tiling"])
        kit, _, _ = quadrat_tiles(img, PreprocessConfig(levels=levels, centre_crop=0.1))
        res = float(np.abs(kit.astype(np.float64) - theirs.astype(np.float64) * 255).max())
        chloro_residual = max(chloro_residual, res)
        eq["chloro"] += int(kit.shape == theirs.shape and np.array_equal(kit, np.clip(np.rint(theirs * 255), 0, 255)))
        s["chlorophyll_pixels"] = sha(np.clip(np.rint(theirs * 255), 0, 255).astype(np.uint8))
        s["chlorophyll_tiles"] = int(theirs.shape[0])
    n = len(PIXEL_SIZES)
    row("organisers-tiling pixels (kornia patches of ToTensor)", eq["organisers"], n, "bitwise: patch == tile/255")
    row("dsgt-2025-grid pixels (_split_into_grid + timm eval transform)", eq["dsgt"], n, "bitwise uint8")
    row("chlorophyll-2025 pixels, --centre-crop 0.1 (data.py l.84-122)", eq["chloro"], n,
        f"uint8 = rint(their float x 255); max residual {chloro_residual:.3f} grey level (uint8 tiles)")
    # The winner's resize: PIL's Lanczos (the recipe) against ImageMagick's through Wand, the Rust's own call
    # (lib_dataset.rs resize_image(..., Lanczos)); the geometry is the same, the filters' rounding is not.
    try:
        from agrieval.baselines.plantclef.preprocess import _wand

        magick = _wand()[1]
    except ValueError:
        magick = None
    if magick:
        diffs = []
        for w, h in [(4000, 3000), (3024, 4032), (1536, 1024), (1100, 733)]:
            img = field_quadrat(w, h, seed=7)
            for n in (1, 3):
                cfg = dict(levels=(parse_level(f"resized:{n}"),))
                pil, _, _ = quadrat_tiles(img, PreprocessConfig(**cfg))
                im, _, _ = quadrat_tiles(img, PreprocessConfig(**cfg, resize_backend="wand"))
                diffs.append(np.abs(pil.astype(np.int16) - im.astype(np.int16)))
        d = np.concatenate([x.ravel() for x in diffs])
        table.append(("winner-2025 resize: PIL Lanczos vs ImageMagick (Wand)", "differs", f"{(d == 0).mean():.0%}",
                      f"pixels equal; mean |d| {d.mean():.3f}, max {int(d.max())} grey levels ({magick.split(' https')[0]}; "
                      "the Rust's magick_rust 1.1 binds ImageMagick 7)"))
        golden["winner_resize_residual"] = {"mean": round(float(d.mean()), 4), "max": int(d.max()),
                                            "magick": magick.split(" https")[0]}
    width = max(len(r[0]) for r in table)
    for what, verdict, count, how in table:
        print(f"{what:<{width}}  {verdict:<7}  {count:>5}  {how}")
    if a.golden:
        a.golden.parent.mkdir(parents=True, exist_ok=True)
        tmp = a.golden.with_suffix(".tmp")
        tmp.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
        tmp.replace(a.golden)
        print(f"golden: {a.golden}")
    named = ("for comparison",)
    return 0 if all(r[1] == "equal" for r in table if r[3] not in named and not r[0].startswith("winner-2025 resize"))\
        else 1


if __name__ == "__main__":
    sys.exit(main())
