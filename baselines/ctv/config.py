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

from baselines.ctv.errors import CTVError

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


@dataclass
class TrainConfig:
    # what to train
    preset: str = "paper"
    protocol: str = "toto"
    arch: str = "densenet121"
    fold: str = ""
    # model
    head: str = "linear"           # "linear": dropout + linear; "mlp": dropout, 512, ReLU, BN, dropout, linear
    head_dropout: float = 0.3
    head_hidden: int = 512
    pretrained: bool = True
    weights: str | None = None     # local .safetensors/.pth file
    allow_download: bool = False
    # optimisation
    epochs: int = 20
    batch_size: int = 32           # global: split over DDP ranks
    lr: float = 1e-4
    weight_decay: float = 1e-4
    min_lr: float = 1e-6           # cosine annealing floor, stepped once per epoch
    grad_clip: float = 1.0         # max L2 norm of all gradients; 0 disables
    label_smoothing: float = 0.0
    # input and augmentation (train: the public script's; eval: resize then centre crop)
    img_size: int = 224
    resize_size: int = 256
    rrc_scale: tuple[float, float] = (0.8, 1.0)
    hflip: float = 0.5
    vflip: float = 0.5
    rotation: float = 30.0
    color_jitter: tuple[float, float, float, float] = (0.2, 0.2, 0.2, 0.0)
    random_erasing: float = 0.25
    mean: tuple[float, float, float] = IMAGENET_MEAN
    std: tuple[float, float, float] = IMAGENET_STD
    # reproducibility and reporting
    seed: int = 42
    deterministic: bool = False
    eval_test_every_epoch: bool = False
    # runtime (do not change the result, apart from floating-point order on GPU)
    device: str = "auto"
    amp: str = "auto"              # "bf16", "none", "auto" (bf16 on CUDA)
    channels_last: str = "auto"    # "on", "off", "auto" (on for CUDA)
    compile: bool = False
    num_workers: int = 0
    threads: int = 0               # torch CPU threads; 0 = torch default
    pin_memory: str = "auto"
    persistent_workers: bool = True
    cache: str | None = None
    cache_size: int = 336
    keep_last: bool = False        # keep last.pt after the run finishes
    extra: dict = field(default_factory=dict)

    # fields that neither change the model nor the predictions' meaning
    RUNTIME = ("device", "num_workers", "threads", "pin_memory", "persistent_workers", "cache", "keep_last",
               "compile", "allow_download", "weights", "eval_test_every_epoch", "extra")

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}

    def identity(self) -> dict:
        return {k: v for k, v in self.to_dict().items() if k not in self.RUNTIME}

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
        if self.batch_size < 1:
            bad(f"--batch-size must be >= 1, got {self.batch_size}")
        if not 0 <= self.head_dropout < 1:
            bad(f"--head-dropout must be in [0, 1), got {self.head_dropout}")
        if self.lr <= 0 or self.min_lr < 0 or self.min_lr > self.lr:
            bad(f"need 0 <= --min-lr <= --lr and --lr > 0, got lr={self.lr} min_lr={self.min_lr}")
        if self.resize_size < self.img_size:
            bad(f"--resize-size ({self.resize_size}) must be >= --img-size ({self.img_size})")
        lo, hi = self.rrc_scale
        if not 0 < lo <= hi <= 1:
            bad(f"--rrc-scale must satisfy 0 < min <= max <= 1, got {self.rrc_scale}")
        for name in ("hflip", "vflip", "random_erasing"):
            if not 0 <= getattr(self, name) <= 1:
                bad(f"--{name.replace('_', '-')} is a probability, got {getattr(self, name)}")
        if self.amp not in ("auto", "bf16", "none"):
            bad(f"--amp must be auto, bf16 or none, got {self.amp!r}")
        if self.channels_last not in ("auto", "on", "off"):
            bad(f"--channels-last must be auto, on or off, got {self.channels_last!r}")
        if self.pin_memory not in ("auto", "on", "off"):
            bad(f"--pin-memory must be auto, on or off, got {self.pin_memory!r}")
        if self.pretrained and self.weights is None and not self.allow_download:
            pass  # checked when the model is built, where the file name is known


# Presets: named defaults. The CLI applies a preset, then the flags given.
PRESETS: dict[str, dict] = {
    # The AgrI Challenge paper: DenseNet121 and Swin-Tiny, head = dropout 0.3 + linear.
    "paper": dict(head="linear", head_dropout=0.3, archs=("densenet121", "swin_tiny")),
    # The public training script: Swin-Base with a 512-unit MLP head.
    "official": dict(head="mlp", head_dropout=0.3, head_hidden=512, archs=("swin_base",)),
    # Embedded demo and tests: tiny random-init model, small input, CPU-sized.
    "demo": dict(head="linear", head_dropout=0.1, pretrained=False, epochs=2, batch_size=16, lr=1e-3,
                 min_lr=1e-4, img_size=32, resize_size=36, rotation=10.0, archs=("tiny_cnn",)),
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
    for key in ("rrc_scale", "color_jitter", "mean", "std"):
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
