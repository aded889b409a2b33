"""Every setting of one CTV training run, with the presets that fill them.

A preset is a named set of defaults (timm's registered configurations, not
forks of the code); every field is also a command-line flag, and the whole
object is written to ``run.json``. ``identity()`` holds the fields that change
the result: a finished run or a checkpoint made with other values is refused
instead of being mixed in.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field

from agrieval.baselines.ctv.errors import CTVError

_IMAGENET_MEAN = (0.485, 0.456, 0.406)
_IMAGENET_STD = (0.229, 0.224, 0.225)
_AMP_CHOICES = ("auto", "bf16", "fp16", "script", "none")


def _setting(default, help: str, **cli):
    """A setting of the run and its command-line flag in one place (``agrieval.baselines.ctv.options`` turns
    each into a click option whose help ends with every preset's value, read from ``PRESETS``). ``cli`` keys:
    ``choices``; ``flags`` (a bool's on and off flags); ``flag_only`` (a bool set by its flag alone);
    ``path`` ("file" or "dir"); ``metavar``."""
    return field(default=default, metadata={"help": help, **cli})


@dataclass
class TrainConfig:
    """Everything one CTV training run depends on (model, optimisation, augmentation, seeds, device, data
    loading), from a preset and the command-line flags, which are generated from these fields; written with the run."""

    # what to train (the commands' own options, not flags of the run settings)
    preset: str = "paper"
    protocol: str = "toto"
    arch: str = "densenet121"
    fold: str = ""
    # model
    head: str = _setting("linear", "linear: dropout + linear; mlp: the public script's Dropout-Linear(512)-ReLU-"
                         "BatchNorm1d-Dropout-Linear head.", choices=("linear", "mlp"))
    head_dropout: float = _setting(0.3, "Dropout before the head's linear layer(s).")
    head_hidden: int = _setting(512, "Hidden units of the mlp head.")
    pretrained: bool = _setting(True, "Start from ImageNet weights (a local file) or random init.",
                                flags=("--pretrained", "--no-pretrained"))
    weights: str | None = _setting(None, "Local .safetensors/.pth weights file for the arch.", path="file")
    allow_download: bool = _setting(False, "Let timm fetch weights from the hub.", flag_only=True)
    # optimisation
    epochs: int = _setting(20, "Training epochs.")
    batch_size: int = _setting(32, "Global batch size, split over DDP ranks.")
    lr: float = _setting(1e-4, "AdamW learning rate.")
    weight_decay: float = _setting(1e-4, "AdamW weight decay.")
    min_lr: float = _setting(1e-6, "Cosine annealing floor, stepped once per epoch.")
    grad_clip: float = _setting(1.0, "Max L2 norm of all gradients; 0 = off.")
    # the script's EARLY_STOPPING_PATIENCE = 30 has no effect up to 30 epochs
    patience: int = _setting(0, "Stop after this many epochs without a better val accuracy; 0 = never.")
    label_smoothing: float = _setting(0.0, "Cross-entropy label smoothing.")
    # input and augmentation: the public script's get_transforms() values (S:320-345)
    img_size: int = _setting(224, "Input size.")
    resize_size: int = _setting(256, "Resize before the train crop and the eval centre crop.")
    resize_square: bool = _setting(True, "Resize to (size, size) as the script, or (off) the shorter side for eval "
                                   "and nothing before the train crop.",
                                   flags=("--resize-square", "--no-resize-square"))
    rrc_scale: tuple[float, float] = _setting((0.8, 1.0), "RandomResizedCrop area range.")
    hflip: float = _setting(0.5, "Horizontal flip probability.")
    vflip: float = _setting(0.3, "Vertical flip probability.")
    rotation: float = _setting(30.0, "Max rotation in degrees.")
    color_jitter: tuple[float, float, float, float] = _setting((0.2, 0.2, 0.3, 0.1),
                                                               "Brightness contrast saturation hue.")
    random_erasing: float = _setting(0.2, "Random erasing probability.")
    erasing_scale: tuple[float, float] = _setting((0.02, 0.15), "Random erasing area range, fraction of the image.")
    # torchvision's default aspect ratio range, the script's
    erasing_ratio: tuple[float, float] = _setting((0.3, 3.3), "Random erasing aspect ratio range.")
    # the script drops it to avoid BatchNorm on 1 image
    drop_last: bool = _setting(True, "Drop the last incomplete train batch, as the script.",
                               flags=("--drop-last", "--no-drop-last"))
    mean: tuple[float, float, float] = _setting(_IMAGENET_MEAN, "Normalisation mean (ImageNet's).")
    std: tuple[float, float, float] = _setting(_IMAGENET_STD, "Normalisation std (ImageNet's).")
    # kit: ~1 grey level from the script's eval tensors (RandomErasing after Normalize with value 0 in script)
    transforms: str = _setting("kit", "kit: workers decode and resize to uint8, the augmentation runs batched on "
                               "the device (agrieval.baselines.ctv._augment); script: the script's v1 ops on PIL "
                               "images in the workers, erasing after Normalize.", choices=("kit", "script"))
    unreadable: str = _setting("error", "An undecodable image: stop, or a black image with one warning per file.",
                               choices=("error", "black"))
    selection: str = _setting("kit", "Best epoch: kit: the first with the highest val accuracy (epoch 1 when every "
                              "epoch scores 0); script: must beat 0 %, else the last epoch.",
                              choices=("kit", "script"))
    # "sweep": fold k continues the random stream where fold k-1 left it (saved in stream_after.pt)
    seed_stream: str = _setting("fold", "fold: each fold seeded from sha256(seed|protocol|fold), reseeded per "
                                "epoch; sweep: the script's one stream per (protocol, arch), folds in sorted order.",
                                choices=("fold", "sweep"))
    # reproducibility and reporting
    seed: int = _setting(42, "Base seed; each fold's seed derives from it and the fold name.")
    deterministic: bool = _setting(False, "Deterministic kernels: two CPU runs are bit-identical.", flag_only=True)
    eval_test_every_epoch: bool = _setting(False, "Record test accuracy per epoch, never used for selection "
                                           "(learning curves).", flags=("--eval-test-every-epoch",
                                                                        "--no-eval-test-every-epoch"))
    # train accuracy: the paper's Figs 4, 10
    predict_train: bool = _setting(True, "Write train-split predictions after training (train accuracy).",
                                   flags=("--predict-train", "--no-predict-train"))
    # runtime (do not change the result, apart from floating-point order on GPU)
    device: str = _setting("auto", "auto, cpu, cuda (or cuda:N).")
    amp: str = _setting("auto", "Autocast: auto: bf16 on CUDA; bf16; fp16 with a GradScaler; script: fp16 + "
                        "GradScaler on CUDA of compute capability >= 7; none.", choices=_AMP_CHOICES)
    channels_last: str = _setting("auto", "channels_last memory format; auto: on CUDA.", choices=("auto", "on", "off"))
    compile: bool = _setting(False, "torch.compile the model.", flags=("--compile", "--no-compile"))
    num_workers: int = _setting(0, "DataLoader worker processes.")
    threads: int = _setting(0, "torch CPU threads; 0 = torch default.")
    pin_memory: str = _setting("auto", "Pinned host memory for batches; auto: on CUDA.", choices=("auto", "on", "off"))
    persistent_workers: bool = _setting(True, "Keep loader workers between epochs.",
                                        flags=("--persistent-workers", "--no-persistent-workers"))
    cache: str | None = _setting(None, "Decode images once into a uint8 memmap in DIR.", path="dir")
    cache_size: int = _setting(336, "Side of the cached images.")
    keep_last: bool = _setting(False, "Keep last.pt after the run finishes.", flag_only=True)
    dist_timeout: float = _setting(900.0, "Under torchrun: seconds a collective (barrier, gather, gradient "
                                   "all-reduce) waits for the other ranks before the run fails with "
                                   "collective_failed naming the rank and step.")
    extra: dict = field(default_factory=dict)

    # fields that neither change the model nor the predictions' meaning
    RUNTIME = ("device", "num_workers", "threads", "pin_memory", "persistent_workers", "cache", "keep_last",
               "compile", "allow_download", "dist_timeout", "weights", "eval_test_every_epoch", "predict_train", "extra")

    # what a run records beyond its result: compared when a run is resumed or skipped (recording_changes), as the
    # identity is, but kept out of the identity hash so that the runs made before keep theirs
    RECORDING = ("eval_test_every_epoch", "predict_train")

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}

    def identity(self) -> dict:
        return {k: v for k, v in self.to_dict().items() if k not in self.RUNTIME}

    def changed_settings(self, stored: dict | None) -> str:
        """Which settings of a stored run differ from these, as flags: ``--epochs 2 (the run) vs 3 (now)``.

        ``stored`` is the run's ``settings`` (run.json) or ``identity`` (last.pt); older files hold neither.
        """
        if not stored:
            return "the stored run does not record its settings"
        mine = self.identity()
        keys = sorted(k for k in set(mine) | set(stored) if k not in self.RUNTIME and mine.get(k) != stored.get(k))
        if not keys:
            return "the settings agree but the identity differs (a different agrieval version?)"
        return "; ".join(f"--{k.replace('_', '-')} {stored.get(k)!r} (the run) vs {mine.get(k)!r} (now)"
                         for k in keys)

    def recording(self) -> dict:
        """What the run records beyond its result (``RECORDING``), as stored beside its identity."""
        return {k: getattr(self, k) for k in self.RECORDING}

    def recording_changes(self, stored: dict | None) -> str | None:
        """None when a stored run recorded what these settings ask for; else the flags that differ, as
        ``--no-eval-test-every-epoch (the run) vs --eval-test-every-epoch (now)``. ``stored``: the run's
        settings (run.json) or its checkpoint's ``recording``; a key it lacks is not compared (older files)."""
        if not stored:
            return None
        flags = {f.name: f.metadata.get("flags") for f in dataclasses.fields(self)}
        changed = [k for k in self.RECORDING if k in stored and bool(stored[k]) != bool(getattr(self, k))]
        if not changed:
            return None
        return "; ".join(f"{flags[k][0 if stored[k] else 1]} (the run) vs {flags[k][0 if getattr(self, k) else 1]} "
                         f"(now): {_RECORDS[k]}" for k in changed)

    def identity_hash(self) -> str:
        blob = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def validate(self) -> None:
        def bad(msg: str) -> None:
            raise CTVError("bad_option", msg)

        if self.protocol not in ("toto", "loto"):
            bad(f"--protocol must be toto or loto, got {self.protocol!r}")
        if self.head not in ("linear", "mlp"):
            bad(f"--head must be linear or mlp, got {self.head!r}")
        if self.epochs < 1:
            bad(f"--epochs must be >= 1, got {self.epochs}")
        if not self.dist_timeout > 0:
            bad(f"--dist-timeout must be > 0 seconds, got {self.dist_timeout}")
        if self.patience < 0:
            bad(f"--patience must be >= 0 (0: no early stop), got {self.patience}")
        if self.batch_size < 1:
            bad(f"--batch-size must be >= 1, got {self.batch_size}")
        if not 0 <= self.head_dropout < 1:
            bad(f"--head-dropout must be in [0, 1), got {self.head_dropout}")
        if self.lr <= 0 or self.min_lr < 0 or self.min_lr > self.lr:
            bad(f"need 0 <= --min-lr <= --lr and --lr > 0, got lr={self.lr} min_lr={self.min_lr}")
        if self.resize_size < self.img_size:
            bad(f"--resize-size ({self.resize_size}) must be >= --img-size ({self.img_size})")
        for name in ("rrc_scale", "erasing_scale"):
            lo, hi = getattr(self, name)
            if not 0 < lo <= hi <= 1:
                bad(f"--{name.replace('_', '-')} must satisfy 0 < min <= max <= 1, got {getattr(self, name)}")
        lo, hi = self.erasing_ratio
        if not 0 < lo <= hi:
            bad(f"--erasing-ratio must satisfy 0 < min <= max, got {self.erasing_ratio}")
        for name in ("hflip", "vflip", "random_erasing"):
            if not 0 <= getattr(self, name) <= 1:
                bad(f"--{name.replace('_', '-')} is a probability, got {getattr(self, name)}")
        if self.amp not in _AMP_CHOICES:
            bad(f"--amp must be one of {', '.join(_AMP_CHOICES)}, got {self.amp!r}")
        for name, choices in (("transforms", ("kit", "script")), ("unreadable", ("error", "black")),
                              ("selection", ("kit", "script")), ("seed_stream", ("fold", "sweep"))):
            if getattr(self, name) not in choices:
                bad(f"--{name.replace('_', '-')} must be {' or '.join(choices)}, got {getattr(self, name)!r}")
        if self.transforms == "script" and self.cache:
            bad("--cache stores images resized to --cache-size, but --transforms script reads the files as the "
                "script does; drop --cache or use --transforms kit")
        if self.channels_last not in ("auto", "on", "off"):
            bad(f"--channels-last must be auto, on or off, got {self.channels_last!r}")
        if self.pin_memory not in ("auto", "on", "off"):
            bad(f"--pin-memory must be auto, on or off, got {self.pin_memory!r}")
        if self.pretrained and self.weights is None and not self.allow_download:
            pass  # checked when the model is built, where the file name is known


# What each recording setting adds to a run's files (said when a resumed run would lack or mix it).
_RECORDS = {
    "eval_test_every_epoch": "the test accuracy of every epoch in history.jsonl, which the last_epoch and "
                             "oracle_test rules and the learning curves read",
    "predict_train": "the train rows of predictions.csv and train_acc",
}


# Presets: named defaults. The CLI applies a preset, then the flags given. The dataclass defaults are the
# public script's values; a preset lists what it changes, and PRESET_SOURCES says where each value comes from.
PRESETS: dict[str, dict] = {
    # The AgrI Challenge paper: DenseNet121 and Swin-Tiny, head = dropout 0.3 + linear.
    "paper": dict(head="linear", head_dropout=0.3, eval_test_every_epoch=True, archs=("densenet121", "swin_tiny")),
    # The public training script (4.agri_challenge_ctv_cli_v3.py): both of its archs, densenet (torchvision
    # densenet121) and swin (swin_base_patch4_window7_224), each with its 512-unit MLP head; test every epoch.
    # Its arithmetic too: v1 transforms on PIL, fp16 + GradScaler on CUDA, torch.compile, channels first, its
    # best-epoch rule, one seed stream per sweep, black images for unreadable files, 4 loader workers.
    "official": dict(head="mlp", head_dropout=0.3, head_hidden=512, eval_test_every_epoch=True,
                     transforms="script", unreadable="black", selection="script", seed_stream="sweep",
                     amp="script", compile=True, channels_last="off", num_workers=4, patience=30,
                     archs=("densenet121", "swin_base")),
    # Embedded demo and tests: tiny random-init model, small input, CPU-sized.
    "demo": dict(head="linear", head_dropout=0.1, pretrained=False, epochs=2, batch_size=16, lr=1e-3,
                 min_lr=1e-4, img_size=32, resize_size=36, rotation=10.0, drop_last=False, archs=("tiny_cnn",)),
}
PRESET_SOURCES: dict[str, str] = {
    "paper": ("the paper: DenseNet121 and Swin-Tiny, head dropout 0.3 + linear, AdamW lr 1e-4 wd 1e-4, cosine to "
              "1e-6, batch 32, 20 epochs, 224 px, seed 42, ImageNet weights; where the paper is silent "
              "(it gives no augmentation magnitudes, Resize((256, 256)) before the crop, drop_last or grad clip) "
              "the public script's values"),
    "official": ("the public script 4.agri_challenge_ctv_cli_v3.py: densenet121 and swin_base, each with "
                 "Dropout-Linear(512)-ReLU-BatchNorm1d-Dropout-Linear, get_transforms() augmentation, drop_last=True, "
                 "AdamW/cosine/clip as in train_model(); its arithmetic: torchvision v1 transforms on PIL "
                 "(RandomErasing after Normalize, value 0), fp16 autocast + GradScaler on CUDA (compute capability "
                 ">= 7), torch.compile, best epoch = first to beat 0 % val accuracy (else the last), one seed "
                 "stream per sweep in sorted fold order, a black image for an unreadable file, a failed fold "
                 "skipped"),
    "demo": "agrieval's CPU demo: tiny random-init model, 32 px, 2 epochs",
}


def preset_archs(preset: str) -> tuple[str, ...]:
    return tuple(_preset(preset)["archs"])


def _preset(name: str) -> dict:
    if name not in PRESETS:
        raise CTVError("unknown_preset", f"unknown preset {name!r}; choose from {', '.join(sorted(PRESETS))}")
    return PRESETS[name]


def make_config(preset: str = "paper", **overrides) -> TrainConfig:
    """Preset defaults, then every override that is not None."""
    values = {k: v for k, v in _preset(preset).items() if k != "archs"}
    values.update({k: v for k, v in overrides.items() if v is not None})
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise CTVError("bad_option", f"unknown settings {unknown}")
    for key in ("rrc_scale", "erasing_scale", "erasing_ratio", "color_jitter", "mean", "std"):
        if key in values:
            values[key] = tuple(float(x) for x in values[key])
    cfg = TrainConfig(preset=preset, **values)
    cfg.validate()
    return cfg


def config_from_dict(data: dict) -> TrainConfig:
    data = dict(data)
    preset = data.pop("preset", "paper")
    cfg = TrainConfig(preset=preset, **{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})
    return cfg
