"""The kit's ``--preset official`` against the public AgrI script's own code, bit for bit (CPU, random init).

    python scripts/fidelity/agri_script.py REPO [--out report.json] [--write-golden FILE]

REPO is the fetched ``Agri-Challenge/agri-challenge-scripts-2024`` (a checkout, or the bare git directory
the ``fetch`` tool gives, which is exported with ``git archive HEAD`` into a temporary folder). The script
``4.agri_challenge_ctv_cli_v3.py`` is imported as a module, unedited; what is stubbed, and why:

* importing it runs nothing: its ``main()`` sits behind ``if __name__ == "__main__"``; we call the same
  steps as ``main()`` (``Config.from_args``, ``set_random_seeds``, ``create_directories``,
  ``analyze_dataset``, ``DataCache``, ``run_toto_experiment``) with an ``argparse.Namespace`` instead of
  the command line (``parse_args`` would read ``sys.argv``), ``--no-wandb --no-compile
  --no-mixed-precision``, and ``config.INPUT_SIZE = 64`` (a Config attribute; 224 is only a CPU cost);
* ``seaborn`` (plots only) is replaced by a module whose functions do nothing when it is not installed;
  matplotlib draws with the Agg backend;
* its ``models`` name (torchvision.models) is replaced by an object whose ``densenet121(pretrained=True)``
  returns ``torchvision.models.densenet121(weights=None)``: random init, no download (the point: the same
  random numbers as the kit's init);
* its import runs ``warnings.filterwarnings('ignore')``, for the whole process.

Checks, each kit against script, by sha256 of the tensor bytes (and the float's hex for losses):

1. eval tensors: the script's ``PlantDataset`` + ``get_transforms()[1]`` against the kit's ``SplitDataset``
   (``decode="pil"``, ``unreadable="black"``) + ``script_eval_transform``, per image of the pool
   (``agrieval.baselines.ctv._fidelity_pool``: odd sizes, alpha, palette, grey, 16-bit, BMP, TIFF, WebP, CMYK,
   EXIF-rotated, a truncated JPEG, a non-image), at 224 and 64 px;
2. train tensors: the same with the train transforms, torch seeded the same before each image;
3. one TOTO (or, with ``--scenario LOTO``, LOTO) sweep (2 teams, so 2 folds in one stream), densenet121 at
   random init, 2 epochs, batch 2:
   every training batch's input tensors, targets and loss, and every evaluation pass's per-image input
   tensors, in the order the model sees them; then each fold's best validation and test accuracy.

With ``--write-golden FILE`` the script's side is saved (hashes, losses, the listing it saw, versions):
``tests/baselines/ctv/test_agri_script_fidelity.py`` compares the kit against it without the script.
Exit status 0 when every check is equal, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

SCRIPT_NAME = "4.agri_challenge_ctv_cli_v3.py"
EPOCHS, BATCH, INPUT, WORKERS = 2, 2, 64, 0


def tensor_hash(t) -> str:
    return hashlib.sha256(t.detach().contiguous().cpu().numpy().tobytes()).hexdigest()


def checkout(repo: Path, tmp: Path) -> tuple[Path, str]:
    """The folder holding the script, and the commit it came from."""
    if (repo / SCRIPT_NAME).is_file():
        commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True)
        return repo, commit.stdout.strip() or "unknown"
    commit = subprocess.run(["git", "--git-dir", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    dest = tmp / "agri-script"
    dest.mkdir()
    archive = subprocess.run(["git", "--git-dir", str(repo), "archive", "HEAD"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest, commit


def import_script(folder: Path):
    import matplotlib

    matplotlib.use("Agg")
    try:
        import seaborn  # noqa: F401
    except ImportError:
        stub = types.ModuleType("seaborn")

        def anything(name):  # sns.heatmap(...) and friends draw nothing; dunders stay absent
            if name.startswith("__"):
                raise AttributeError(name)
            return lambda *a, **k: None

        stub.__getattr__ = anything
        sys.modules["seaborn"] = stub
    spec = importlib.util.spec_from_file_location("agri_script_v3", folder / SCRIPT_NAME)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import torchvision

    mod.models = types.SimpleNamespace(densenet121=lambda pretrained=False, **_: torchvision.models.densenet121(
        weights=None))
    return mod


class Recorder:
    """Global module hooks: each forward of the top-level model (its input, per image) and each loss."""

    def __init__(self, model_type: str):
        import torch

        self.model_type, self.events = model_type, []
        self._handles = [torch.nn.modules.module.register_module_forward_pre_hook(self._pre),
                         torch.nn.modules.module.register_module_forward_hook(self._post)]

    def _pre(self, module, args):
        if type(module).__name__ == self.model_type:
            x = args[0]
            self.events.append({"phase": "train" if module.training else "eval",
                                "x": [tensor_hash(x[i]) for i in range(len(x))]})

    def _post(self, module, args, output):
        if type(module).__name__ == "CrossEntropyLoss" and self.events and self.events[-1]["phase"] == "train" \
                and "loss" not in self.events[-1]:
            self.events[-1]["y"] = [int(v) for v in args[1]]
            self.events[-1]["loss"] = float(output.detach()).hex()

    def close(self) -> list[dict]:
        for h in self._handles:
            h.remove()
        return self.events


def listing_of(data_dir: Path) -> list[str]:
    """The script's order: teams sorted, classes and files in ``Path.iterdir()`` order (S:418-440)."""
    valid = {".png", ".jpg", ".jpeg", ".bmp", ".tiff"}
    return [str(f.relative_to(data_dir)) for t in sorted(data_dir.iterdir()) if t.is_dir() for c in t.iterdir()
            if c.is_dir() for f in c.iterdir() if f.is_file() and f.suffix.lower() in valid]


def script_tensors(mod, paths: list[Path], size: int) -> dict:
    import torch

    train_t, val_t = mod.get_transforms(size, True)
    out = {"eval": {}, "train": {}}
    for k, p in enumerate(paths):
        out["eval"][p.name] = tensor_hash(mod.PlantDataset([str(p)], [0], {}, val_t)[0][0])
        torch.manual_seed(1000 + k)
        out["train"][p.name] = tensor_hash(mod.PlantDataset([str(p)], [0], {}, train_t)[0][0])
    return out


def kit_tensors(paths: list[Path], size: int) -> dict:
    import torch

    from agrieval.baselines.ctv._dataset import SplitDataset
    from agrieval.baselines.ctv._script_transforms import script_eval_transform, script_train_transform
    from agrieval.baselines.ctv.config import make_config

    cfg = make_config("official", img_size=size)
    out = {"eval": {}, "train": {}}
    for k, p in enumerate(paths):
        read = dict(decode="pil", unreadable="black")
        out["eval"][p.name] = tensor_hash(SplitDataset([str(p)], [0], script_eval_transform(cfg), **read)[0][0])
        torch.manual_seed(1000 + k)
        out["train"][p.name] = tensor_hash(SplitDataset([str(p)], [0], script_train_transform(cfg), **read)[0][0])
    return out


def run_script_sweep(mod, data_dir: Path, out_dir: Path, scenario: str = "TOTO") -> dict:
    import torch

    args = argparse.Namespace(scenario=scenario, architecture="densenet", data_dir=str(data_dir), epochs=EPOCHS,
                              batch_size=BATCH, lr=1e-4, val_split=0.3, dropout=0.3, num_workers=WORKERS, seed=42,
                              no_wandb=True, no_augmentation=False, output_dir=str(out_dir), no_compile=True,
                              no_mixed_precision=True)
    config = mod.Config.from_args(args)
    config.INPUT_SIZE = INPUT
    rec = Recorder("DenseNetClassifier")
    try:
        mod.set_random_seeds(config.RANDOM_SEED)  # main(), S:1321
        dirs = mod.create_directories(config.OUTPUT_DIR)
        teams, classes = mod.analyze_dataset(config.DATA_DIR)
        cache = mod.DataCache(config.DATA_DIR, classes)
        run = mod.run_toto_experiment if scenario == "TOTO" else mod.run_loto_experiment
        results = run(config, cache, teams, classes, dirs, torch.device("cpu"))
    finally:
        events = rec.close()
    folds = {t: {"test_acc": r["test_accuracy"] / 100, "best_val": r["best_val_accuracy"] / 100}
             for t, r in results.items()}
    return {"events": events, "folds": folds}


def kit_catalog(data_dir: Path, listing: list[str]):
    """A clean catalog of the pool as the script sees it (every listed file, unreadable ones too: the
    script trains on their black stand-ins)."""
    import pandas as pd

    from agrieval.data_tools.catalog import _CATALOG_COLUMNS as CATALOG_COLUMNS

    rows = [{"root": str(data_dir), "path": p, "team": p.split("/")[0], "class_raw": p.split("/")[1],
             "class": p.split("/")[1], "subcategory": "", "format": "", "width": 0, "height": 0, "bytes": 0,
             "mtime_ns": 0, "device": "unknown", "phash": f"{k:016x}", "phash_mode": "exact", "readable": True,
             "error": ""} for k, p in enumerate(sorted(listing))]
    return pd.DataFrame(rows, columns=CATALOG_COLUMNS)


def run_kit_sweep(data_dir: Path, listing: list[str], work: Path, protocol: str = "toto") -> dict:
    from agrieval.baselines.ctv.config import make_config
    from agrieval.baselines.ctv.sweep import plan, run_all
    from agrieval.data_tools.splits import make_splits

    work.mkdir(parents=True, exist_ok=True)
    (work / "listing.txt").write_text("".join(f"{data_dir / p}\n" for p in listing), encoding="utf-8")
    make_splits(kit_catalog(data_dir, listing), protocol, work / "splits", seed=42, val_fraction=0.3,
                stratify="class", method="script", listing=work / "listing.txt")
    cfg = make_config("official", fold="-", arch="densenet121", pretrained=False, epochs=EPOCHS, batch_size=BATCH,
                      img_size=INPUT, compile=False, num_workers=WORKERS, device="cpu")
    runs = plan(work / "splits", work / "runs", [protocol], ["densenet121"])
    rec = Recorder("_Classifier")  # the kit's model class (baselines/ctv/models.py)
    try:
        records = run_all(cfg, runs, work / "splits", work / "runs", keep_going=True, log=lambda *_: None,
                          progress=False)
    finally:
        events = rec.close()
    best = _best_val(work / "runs")
    folds = {r["fold"]: {"test_acc": r.get("test_acc"), "best_val": r.get("val_acc") if r.get("kept_epoch") == "last"
                         else best[r["fold"]]} for r in records}
    return {"events": events, "folds": folds, "records": records}


def _best_val(runs: Path) -> dict[str, float]:
    """Each fold's best per-epoch val accuracy (a fraction), a query of the runs' record table (the one reader)."""
    from agrieval.scoring.ctv._records import FINAL
    from agrieval.scoring.ctv.run_set import read_runs

    rec = read_runs(runs).records
    val = rec.query(split="val")
    val = val[val["epoch"] != FINAL]
    return {fold: float(g["acc"].max()) / 100 for (fold,), g in rec.groups(val, ("fold",))}


def _cpu() -> str:
    from agrieval.data_tools.versions import _cpu_identity as cpu_identity

    return cpu_identity()


def versions() -> dict:
    from agrieval.data_tools.versions import library_versions

    return library_versions(("torch", "torchvision", "timm", "Pillow", "numpy", "pandas"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--write-golden", type=Path)
    ap.add_argument("--work", type=Path, help="Work folder (default: a temporary one).")
    ap.add_argument("--workers", type=int, default=0, help="DataLoader workers on both sides [0].")
    ap.add_argument("--scenario", choices=["TOTO", "LOTO"], default="TOTO", help="The sweep to compare [TOTO].")
    a = ap.parse_args(argv)
    global WORKERS
    WORKERS = a.workers

    import torch

    torch.set_num_threads(1)
    from agrieval.baselines.ctv._fidelity_pool import make_pool

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = a.work or Path(tmp_name)
        tmp.mkdir(parents=True, exist_ok=True)
        folder, commit = checkout(a.repo, tmp)
        mod = import_script(folder)
        images = make_pool(tmp / "images")
        paths = images["pool"] + images["extra"]
        report: dict = {"script_commit": commit, "versions": versions(), "checks": {}}
        script_side: dict = {"tensors": {}}
        for size in (224, INPUT):
            s, k = script_tensors(mod, paths, size), kit_tensors(paths, size)
            script_side["tensors"][str(size)] = s
            for kind in ("eval", "train"):
                diff = sorted(n for n in s[kind] if s[kind][n] != k[kind][n])
                report["checks"][f"{kind}_tensors_{size}px"] = {"images": len(s[kind]), "different": diff}
        data_dir = tmp / "images" / "pool"
        listing = listing_of(data_dir)
        theirs = run_script_sweep(mod, data_dir, tmp / "script-out", a.scenario)
        mine = run_kit_sweep(data_dir, listing, tmp / "kit", a.scenario.lower())
        st, kt = [e for e in theirs["events"] if e["phase"] == "train"], [e for e in mine["events"]
                                                                           if e["phase"] == "train"]
        report["checks"]["train_batches"] = {
            "batches": [len(st), len(kt)],
            "inputs_equal": [e["x"] for e in st] == [e["x"] for e in kt],
            "targets_equal": [e["y"] for e in st] == [e["y"] for e in kt],
            "losses_equal": [e["loss"] for e in st] == [e["loss"] for e in kt],
            "losses": [[float.fromhex(e["loss"]) for e in st], [float.fromhex(e["loss"]) for e in kt]],
        }
        s_eval = [x for e in theirs["events"] if e["phase"] == "eval" for x in e["x"]]
        k_eval = [x for e in mine["events"] if e["phase"] == "eval" for x in e["x"]]
        report["checks"]["eval_inputs_in_loop"] = {"images": [len(s_eval), len(k_eval)],
                                                   "same_multiset": sorted(s_eval) == sorted(k_eval)}
        report["checks"]["fold_results"] = {"script": theirs["folds"], "kit": mine["folds"]}
        ok = all(not c["different"] for n, c in report["checks"].items() if n.endswith("px")) and all(
            report["checks"]["train_batches"][k] for k in ("inputs_equal", "targets_equal", "losses_equal")) \
            and report["checks"]["eval_inputs_in_loop"]["same_multiset"] and _same_results(theirs["folds"],
                                                                                           mine["folds"])
        report["equal"] = ok
        if a.write_golden:
            golden = {"script_commit": commit, "scenario": a.scenario, "versions": report["versions"], "cpu": _cpu(), "listing": listing,
                      "epochs": EPOCHS, "batch_size": BATCH, "img_size": INPUT, "num_workers": WORKERS,
                      "tensors": script_side["tensors"], "train_batches": st,
                      "eval_inputs_sorted": sorted(s_eval), "folds": theirs["folds"]}
            a.write_golden.parent.mkdir(parents=True, exist_ok=True)
            a.write_golden.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    text = json.dumps(report, indent=2, sort_keys=True)
    if a.out:
        a.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0 if ok else 1


def _same_results(theirs: dict, mine: dict) -> bool:
    return sorted(theirs) == sorted(mine) and all(
        abs(theirs[t]["test_acc"] - mine[t]["test_acc"]) < 1e-9 for t in theirs)


if __name__ == "__main__":
    raise SystemExit(main())
