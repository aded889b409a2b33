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

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
AMP_CHOICES = ("auto", "bf16", "fp16", "script", "none")


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
    patience: int = 0              # stop after this many epochs without a better val accuracy; 0: never
    #                                (the script's EARLY_STOPPING_PATIENCE = 30: no effect up to 30 epochs)
    label_smoothing: float = 0.0
    # input and augmentation: the public script's get_transforms() values (S:320-345)
    img_size: int = 224
    resize_size: int = 256
    resize_square: bool = True     # Resize((r, r)) before the train crop and the eval centre crop, as the script;
    #                                off: no resize before the train crop, eval resizes the shorter side to r
    rrc_scale: tuple[float, float] = (0.8, 1.0)
    hflip: float = 0.5
    vflip: float = 0.3
    rotation: float = 30.0
    color_jitter: tuple[float, float, float, float] = (0.2, 0.2, 0.3, 0.1)
    random_erasing: float = 0.2
    erasing_scale: tuple[float, float] = (0.02, 0.15)  # erased area, as a fraction of the image
    erasing_ratio: tuple[float, float] = (0.3, 3.3)    # aspect ratio range (torchvision's default, the script's)
    drop_last: bool = True         # drop the last incomplete train batch (the script: avoids BatchNorm on 1 image)
    mean: tuple[float, float, float] = IMAGENET_MEAN
    std: tuple[float, float, float] = IMAGENET_STD
    # "kit": the workers decode and resize to uint8; the augmentation, normalisation and erasing run batched
    # on the model's device (agrieval.baselines.ctv.augment);
    # "script": the script's v1 ops on PIL images, ToTensor + Normalize on the CPU, RandomErasing after
    # Normalize with value 0 (agrieval.baselines.ctv.script_transforms); the eval tensors differ by ~1 grey level
    transforms: str = "kit"
    unreadable: str = "error"      # "error": an undecodable image stops the run; "black": the script's black image
    # "kit": the first epoch with the highest val accuracy (epoch 1 when every epoch scores 0);
    # "script": an epoch must beat 0 % (best starts at 0.0), and when none does the last epoch is kept
    selection: str = "kit"
    # "fold": each fold seeds itself from sha256(seed|protocol|fold) and reseeds per epoch;
    # "sweep": the script's one stream: seeded once per (protocol, arch) sweep, folds in sorted order,
    # fold k continuing the random stream where fold k-1 left it (saved in stream_after.pt)
    seed_stream: str = "fold"
    # reproducibility and reporting
    seed: int = 42
    deterministic: bool = False
    eval_test_every_epoch: bool = False
    predict_train: bool = True     # predict the train split after training (train accuracy, the paper's Figs 4, 10)
    # runtime (do not change the result, apart from floating-point order on GPU)
    device: str = "auto"
    amp: str = "auto"              # "bf16", "fp16" (+ GradScaler), "none", "auto" (bf16 on CUDA),
    #                                "script": fp16 + GradScaler on CUDA of compute capability >= 7, else none
    channels_last: str = "auto"    # "on", "off", "auto" (on for CUDA)
    compile: bool = False
    num_workers: int = 0
    threads: int = 0               # torch CPU threads; 0 = torch default
    pin_memory: str = "auto"
    persistent_workers: bool = True
    cache: str | None = None
    cache_size: int = 336
    keep_last: bool = False        # keep last.pt after the run finishes
    dist_timeout: float = 900.0    # torchrun: seconds a collective may wait for the other ranks before failing
    extra: dict = field(default_factory=dict)

    # fields that neither change the model nor the predictions' meaning
    RUNTIME = ("device", "num_workers", "threads", "pin_memory", "persistent_workers", "cache", "keep_last",
               "compile", "allow_download", "dist_timeout", "weights", "eval_test_every_epoch", "predict_train", "extra")

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
        if self.amp not in AMP_CHOICES:
            bad(f"--amp must be one of {', '.join(AMP_CHOICES)}, got {self.amp!r}")
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
