"""The table of what ``--preset paper`` and ``--preset official`` set differently, and why (the README's).

Generated from the presets themselves (``make_config``), so it cannot drift from the code: every setting
whose value differs gets a row with both values, and ``WHY`` must give the reason for each (a test fails
when a preset changes a value and no reason is written here). ``agrieval baselines ctv presets
--markdown`` prints it.
"""

from __future__ import annotations

from agrieval.baselines.ctv.config import make_config, preset_archs

# setting -> (what official reproduces, why paper keeps its own choice)
WHY: dict[str, tuple[str, str]] = {
    "archs": ("the script's two archs (`densenet`, `swin` = Swin-Base)", "the paper reports DenseNet121 and "
              "Swin-Tiny"),
    "head": ("the script's Dropout-Linear(512)-ReLU-BatchNorm1d-Dropout-Linear", "the paper's head: dropout 0.3 "
             "+ linear"),
    "transforms": ("torchvision v1 on PIL images; RandomErasing after Normalize, filling 0 (eval and train "
                   "tensors equal to the script's bit for bit)", "workers decode and resize to uint8 (a batch crosses "
                   "the bus as bytes, 4x less than float32); the augmentation runs batched on the model's device, "
                   "one warp for crop, flips and rotation: 4x fewer loader CPUs; ~1 grey level from the script's"),
    "unreadable": ("a black 224x224 image and one warning per file (S:254)", "an unreadable image stops the run: "
                   "training on black images silently changes the data"),
    "selection": ("an epoch must beat 0 % val accuracy, else the last epoch is kept (S:556, 667)",
                  "the first epoch with the highest val accuracy, 0 % included: the last epoch is not "
                  "chosen by any criterion"),
    "seed_stream": ("one seed for the sweep, folds in sorted order, each continuing the previous fold's random "
                    "stream (handed on in stream_after.pt)", "each fold seeded from the sha256 of its seed, protocol and name: "
                    "a fold's result does not depend on which folds ran before it, so folds run in parallel "
                    "(SLURM arrays, torchrun) and one can be rerun alone"),
    "amp": ("fp16 autocast + GradScaler on CUDA of compute capability >= 7, none elsewhere (S:149, 554)",
            "bf16 autocast on CUDA: the fp32 exponent range, no loss scaling"),
    "channels_last": ("channels first, as the script", "channels_last on CUDA: faster convolutions, other "
                      "floating-point order only"),
    "compile": ("torch.compile on by default (S:148; `--no-compile` turns it off)", "off: compiling takes "
                "minutes per fold and changes only speed"),
    "patience": ("early stop after 30 epochs without a better val accuracy (S:662; no effect at its 20 "
                 "epochs)", "no early stop: every run trains its --epochs"),
    "num_workers": ("4 loader workers, the script's default: with the sweep stream the worker count is part "
                    "of the augmentation stream", "0: set it for your machine (each worker draws the "
                    "augmentations from a seed of its own, so the count changes which ones a run draws, not "
                    "their distribution)"),
}


def preset_differences() -> dict[str, tuple[object, object]]:
    paper, official = make_config("paper").to_dict(), make_config("official").to_dict()
    out = {k: (paper[k], official[k]) for k in paper if k != "preset" and paper[k] != official[k]}
    out["archs"] = (", ".join(preset_archs("paper")), ", ".join(preset_archs("official")))
    return dict(sorted(out.items(), key=lambda kv: list(WHY).index(kv[0]) if kv[0] in WHY else len(WHY)))


def _fmt(value) -> str:
    return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def preset_table(markdown: bool = False) -> str:
    rows = preset_differences()
    missing = sorted(set(rows) - set(WHY))
    if missing:
        raise RuntimeError(f"agrieval.baselines.ctv._preset_table.WHY gives no reason for {missing}")
    if markdown:
        lines = ["| setting | `--preset paper` | `--preset official` | official: the script's | paper: why it differs |",
                 "| :--- | :--- | :--- | :--- | :--- |"]
        for k, (p, o) in rows.items():
            flag = "(archs)" if k == "archs" else f"`--{k.replace('_', '-')}`"
            lines.append(f"| {flag} | `{_fmt(p)}` | `{_fmt(o)}` | {WHY[k][0]} | {WHY[k][1]} |")
        return "\n".join(lines) + "\n"
    out = []
    for k, (p, o) in rows.items():
        out += [f"{k}: paper {_fmt(p)} | official {_fmt(o)}", f"  official: {WHY[k][0]}", f"  paper: {WHY[k][1]}"]
    return "\n".join(out) + "\n"
