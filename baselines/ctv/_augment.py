"""The kit's train augmentation, batched on the model's device (``--transforms kit``).

The loader workers only decode and resize (``transforms.decode_transform``: uint8, ``Resize((256, 256))``);
each training batch is then augmented where the model runs, in one pass of tensor arithmetic:

1. crop, flips and rotation as ONE warp: an affine sampling grid per image and one bilinear
   ``grid_sample`` (one interpolation instead of torchvision's two: crop-resize, then rotate);
2. colour jitter: brightness, contrast, saturation and hue, in a random order per image;
3. normalisation ``(x - mean) / std``;
4. random erasing: the erased box set to 0 after normalisation (the mean before it).

The parameters are drawn per image, on the CPU, from a ``torch.Generator`` of this object's own (seeded
per epoch from the fold's seed, ``set_epoch``), so a CPU run and a GPU run draw the same ones and the
model's own random numbers (dropout) never shift them. Each batch takes ``N_DRAWS`` uniforms per image,
whatever the outcome. The distributions, next to torchvision's (``transforms.v2``, the per-sample
definition ``transforms.train_transform`` keeps):

============== =========================================================== =================================
parameter      here (per image)                                            torchvision, per call
============== =========================================================== =================================
crop           10 tries: area ``A * U(scale)``, aspect ``exp(U(log 3/4,     RandomResizedCrop.make_params:
               log 4/3))``, ``w = round(sqrt(area * aspect))``, ``h =       the same, tried in order, first
               round(sqrt(area / aspect))``; the first try with ``0 < w <=  fitting one wins; same fallback
               W, 0 < h <= H`` wins, top ``floor(U * (H - h + 1))``, left  (centre crop, ratio clamped to
               likewise; none fits: the centre crop, ratio clamped          [3/4, 4/3])
h/v flip       ``U < p``                                                    ``torch.rand(1) < p``
rotation       ``U(-degrees, degrees)``, counter-clockwise, about the       RandomRotation: the same; fill 0
               centre; outside the crop: 0 (black corners)                  (black); nearest interpolation
jitter         order: ``argsort`` of 4 uniforms (a uniform permutation);     ColorJitter: ``randperm(4)``,
               brightness ``U(max(0, 1 - b), 1 + b)``, contrast and         factors ``U`` over the same
               saturation likewise, hue ``U(-h, h)``                        ranges
erasing        ``U < p``, then 10 tries: area ``A * U(scale)``, aspect      RandomErasing.make_params: the
               ``exp(U(log ratio))``, ``h = round(sqrt(area * aspect))``,   same; no try fits: not erased
               ``w = round(sqrt(area / aspect))``, the first with ``h < H,
               w < W`` wins; top/left as the crop's; none fits: not erased
============== =========================================================== =================================

What differs from the per-sample pipeline is the arithmetic, not the distributions: one bilinear
interpolation of the float image (torchvision: an antialiased resize of the crop to 8 bits, then a
nearest-neighbour rotation), jitter on floats in [0, 1] without rounding to 8 bits between the ops
(torchvision v2's float arithmetic, ``_blend`` with a clamp after each op; hue by the closed-form HSV
rotation, equal to torchvision's ``adjust_hue`` on floats to within float rounding).

On a GPU each operation that computes is a kernel launch. A batch is about two thousand torch operations,
most of them in the colour jitter: one group of images per drawn order of the jitter's steps, up to 24 groups.
``benchmarks/bench_train.py --device cuda`` measures what that costs.

On the CPU the batch is processed in chunks of ``cpu_chunk`` images (16: the fastest of 4-32 on the
development VM) so that the intermediate tensors
stay in the caches (a 64-image float batch is 38 MB per tensor, and fresh pages cost more than the
arithmetic); on a GPU the whole batch at once. The chunking changes no parameter, and no value beyond
float rounding (~1e-6: vectorised loops end differently on other lengths).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from agrieval.baselines.ctv._seeding import derive_seed
from agrieval.baselines.ctv.config import TrainConfig

TRIES = 10  # torchvision's RandomResizedCrop and RandomErasing: 10 tries each
CROP_RATIO = (3 / 4, 4 / 3)  # RandomResizedCrop's default ratio (the script keeps it)
GREY = (0.2989, 0.587, 0.114)  # torchvision's rgb_to_grayscale weights
# columns of the per-image uniform draws, in this order
_COLS = {"crop_area": TRIES, "crop_logr": TRIES, "crop_top": 1, "crop_left": 1, "hflip": 1, "vflip": 1,
         "angle": 1, "order": 4, "jitter": 4, "erase": 1, "erase_area": TRIES, "erase_logr": TRIES,
         "erase_top": 1, "erase_left": 1}
N_DRAWS = sum(_COLS.values())
BRIGHTNESS, CONTRAST, SATURATION, HUE = range(4)


@dataclass(frozen=True)
class AugmentSpec:
    """The augmentation's settings, from a ``TrainConfig``."""

    out_size: int
    scale: tuple[float, float]
    hflip: float
    vflip: float
    degrees: float
    jitter: tuple[float, float, float, float]
    erasing: float
    erasing_scale: tuple[float, float]
    erasing_ratio: tuple[float, float]
    mean: tuple[float, float, float]
    std: tuple[float, float, float]

    @classmethod
    def from_config(cls, cfg: TrainConfig) -> "AugmentSpec":
        return cls(cfg.img_size, tuple(cfg.rrc_scale), cfg.hflip, cfg.vflip, cfg.rotation,
                   tuple(cfg.color_jitter), cfg.random_erasing, tuple(cfg.erasing_scale),
                   tuple(cfg.erasing_ratio), tuple(cfg.mean), tuple(cfg.std))

    def jitter_ranges(self) -> list[tuple[float, float]]:
        b, c, s, h = self.jitter
        return [(max(0.0, 1 - b), 1 + b), (max(0.0, 1 - c), 1 + c), (max(0.0, 1 - s), 1 + s), (-h, h)]


def _uniform(u: torch.Tensor, lo: float, hi: float) -> torch.Tensor:
    return lo + (hi - lo) * u


def _first_fit(ok: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Index of the first True try per row, and whether there is one."""
    any_ok = ok.any(1)
    return ok.to(torch.int8).argmax(1), any_ok


def _boxes(area_u, logr_u, area: float, scale, ratio):
    """Tried (h, w) of ``TRIES`` boxes per row: area ``area * U(scale)``, aspect ``exp(U(log ratio))``."""
    target = area * _uniform(area_u, *scale)
    aspect = torch.exp(_uniform(logr_u, math.log(ratio[0]), math.log(ratio[1])))
    return torch.round(torch.sqrt(target / aspect)), torch.round(torch.sqrt(target * aspect))


def draw_params(spec: AugmentSpec, n: int, height: int, width: int, generator: torch.Generator) -> dict:
    """Per-image parameters for ``n`` images of ``height x width`` (CPU tensors, float64 unless said)."""
    u = torch.rand(n, N_DRAWS, generator=generator, dtype=torch.float64)
    cols, at = {}, 0
    for name, k in _COLS.items():
        cols[name], at = u[:, at:at + k], at + k
    rows = torch.arange(n)

    # RandomResizedCrop
    h, w = _boxes(cols["crop_area"], cols["crop_logr"], height * width, spec.scale, CROP_RATIO)
    first, found = _first_fit((w > 0) & (w <= width) & (h > 0) & (h <= height))
    h, w = h[rows, first], w[rows, first]
    in_ratio = width / height
    if in_ratio < min(CROP_RATIO):
        fw, fh = width, round(width / min(CROP_RATIO))
    elif in_ratio > max(CROP_RATIO):
        fw, fh = round(height * max(CROP_RATIO)), height
    else:
        fw, fh = width, height
    h = torch.where(found, h, torch.full_like(h, fh))
    w = torch.where(found, w, torch.full_like(w, fw))
    top = torch.where(found, torch.floor(cols["crop_top"][:, 0] * (height - h + 1)), (height - h) // 2)
    left = torch.where(found, torch.floor(cols["crop_left"][:, 0] * (width - w + 1)), (width - w) // 2)

    # RandomErasing, on the output image
    s = spec.out_size
    eh, ew = _boxes(cols["erase_area"], cols["erase_logr"], s * s, spec.erasing_scale, spec.erasing_ratio)
    # torchvision names them the other way round: h = sqrt(area * aspect), w = sqrt(area / aspect)
    eh, ew = ew, eh
    first, fits = _first_fit((eh < s) & (ew < s))
    eh, ew = eh[rows, first], ew[rows, first]
    erase = (cols["erase"][:, 0] < spec.erasing) & fits
    order = torch.argsort(cols["order"], dim=1)
    jitter = torch.stack([_uniform(cols["jitter"][:, k], *r) for k, r in enumerate(spec.jitter_ranges())], 1)
    return {
        "top": top, "left": left, "height": h, "width": w,
        "hflip": cols["hflip"][:, 0] < spec.hflip, "vflip": cols["vflip"][:, 0] < spec.vflip,
        "angle": _uniform(cols["angle"][:, 0], -spec.degrees, spec.degrees),
        "order": order, "jitter": jitter,
        "erase": erase, "erase_top": torch.floor(cols["erase_top"][:, 0] * (s - eh + 1)),
        "erase_left": torch.floor(cols["erase_left"][:, 0] * (s - ew + 1)), "erase_h": eh, "erase_w": ew,
    }


def warp_grid(p: dict, height: int, width: int, size: int, device) -> torch.Tensor:
    """``grid_sample`` coordinates (N, S, S, 2) of crop -> flips -> rotation, composed into one affine map.

    An output pixel at normalised position ``q`` (align_corners=False) is rotated back by the angle
    (torchvision's rotate turns counter-clockwise on screen, y pointing down), the flips negate the axes,
    and the crop box maps ``[-1, 1]`` onto ``[left, left + width)`` of the input: ``g = A q + c``. A point
    rotated back outside the frame falls outside the crop box; it gets a coordinate far outside the image,
    sampled as 0 (the rotation's black fill).
    """
    f = dict(dtype=torch.float32, device=device)
    t = (torch.arange(size, **f) * 2 + 1) / size - 1
    a = torch.deg2rad(p["angle"])
    cos, sin = torch.cos(a), torch.sin(a)
    sx, sy = 1 - 2 * p["hflip"].double(), 1 - 2 * p["vflip"].double()
    ax, ay = p["width"] / width, p["height"] / height
    cx, cy = (2 * p["left"] + p["width"]) / width - 1, (2 * p["top"] + p["height"]) / height - 1
    # g = A q + c on the grid of q, one plane per coordinate: x terms (N, 1, S) plus y terms (N, S, 1)
    planes, far = [], None
    for scale, c, half, wx, wy in ((sx * ax, cx, ax, cos, -sin), (sy * ay, cy, ay, sin, cos)):
        c = c.to(**f).view(-1, 1, 1)
        g = (scale * wx).to(**f).view(-1, 1, 1) * t.view(1, 1, size) + \
            ((scale * wy).to(**f).view(-1, 1, 1) * t.view(1, size, 1) + c)
        out = (g - c).abs_() > half.to(**f).view(-1, 1, 1)
        far = out if far is None else far.logical_or_(out)
        planes.append(g)
    return torch.stack([g.masked_fill_(far, -4.0) for g in planes], dim=-1)


def _grey(x: torch.Tensor) -> torch.Tensor:
    """torchvision's ``rgb_to_grayscale`` (N, 1, H, W)."""
    return (x[:, 0:1] * GREY[0]).add_(x[:, 1:2], alpha=GREY[1]).add_(x[:, 2:3], alpha=GREY[2])


def adjust_hue(x: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """Rotate the HSV hue of float RGB images in [0, 1] by ``shift`` (N,) turns.

    V = max, chroma C = max - min stay; with ``h`` the hue in sixths, each channel ``n`` (R 5, G 3, B 1) is
    ``V - C * clamp(min(k, 4 - k), 0, 1)``, ``k = (n + h) mod 6``: the closed form of HSV -> RGB.
    """
    r, g, b = x[:, 0], x[:, 1], x[:, 2]
    v = torch.maximum(torch.maximum(r, g), b)
    c = v - torch.minimum(torch.minimum(r, g), b)
    # hue in sixths, priority r, g, b among equal maxima (torchvision's); grey pixels (c = 0) get 0
    num = torch.where(v == r, g - b, torch.where(v == g, (b - r).add_(c, alpha=2), (r - g).add_(c, alpha=4)))
    h = num.div_(c.clamp_min(1e-12)).add_(6 * shift.view(-1, 1, 1))
    out = torch.empty_like(x)
    for ch, n in enumerate((5.0, 3.0, 1.0)):
        k = torch.remainder(h + n, 6.0)
        t = torch.minimum(k, torch.sub(4.0, k, out=out[:, ch]), out=k).clamp_(0, 1)
        torch.addcmul(v, c, t, value=-1, out=out[:, ch])
    return out


def _brightness(x, f):
    return x.mul_(f.view(-1, 1, 1, 1)).clamp_(max=1)


def _contrast(x, f):
    mean = _grey(x).mean((1, 2, 3))
    return x.mul_(f.view(-1, 1, 1, 1)).add_(((1 - f) * mean).view(-1, 1, 1, 1)).clamp_(0, 1)


def _saturation(x, f):
    grey = _grey(x).mul_((1 - f).view(-1, 1, 1, 1))
    return x.mul_(f.view(-1, 1, 1, 1)).add_(grey).clamp_(0, 1)


def _hue(x, f):
    return adjust_hue(x, f)


_JITTER_OPS = (_brightness, _contrast, _saturation, _hue)


def color_jitter(x: torch.Tensor, order: torch.Tensor, factors: torch.Tensor, active: tuple[bool, ...]):
    """Brightness, contrast, saturation (blends with 0, the grey mean, the grey image; clamped to [0, 1] after
    each, torchvision's ``_blend``) and hue, in ``order`` per image; ``x`` is overwritten.

    The images that share an order (24 possible) are jittered together, in place. ``order`` (N, 4) and
    ``factors`` (N, 4) live on the CPU, so forming the groups needs no device sync.
    """
    n, dev = x.shape[0], x.device
    code = (order * torch.tensor([64, 16, 4, 1])).sum(1)
    for value in torch.unique(code).tolist():
        idx = (code == value).nonzero()[:, 0]
        first, count = int(idx[0]), len(idx)
        # consecutive rows (a whole CPU chunk, or one image of it): a view, jittered in place; else a copy
        view = int(idx[-1]) - first + 1 == count
        rows = None if view else idx.to(dev)
        part = x[first:first + count] if view else x[rows]
        f = factors[idx].to(device=dev, dtype=x.dtype)
        for op in order[first].tolist():
            if active[op]:
                part = _JITTER_OPS[op](part, f[:, op])
        if view:
            if count == n:
                return part
            if part.data_ptr() != x[first].data_ptr():  # hue returns a new tensor
                x[first:first + count] = part
        else:
            x[rows] = part
    return x


def augment(x: torch.Tensor, p: dict, spec: AugmentSpec) -> torch.Tensor:
    """uint8 (N, 3, H, W) on any device -> normalised float32 (N, 3, S, S), parameters ``p`` from ``draw_params``."""
    n, _, height, width = x.shape
    s, dev = spec.out_size, x.device
    grid = warp_grid(p, height, width, s, dev)
    y = F.grid_sample(x.to(torch.float32), grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    y.mul_(1 / 255)  # a bilinear mix of bytes stays in [0, 255]
    active = tuple(bool(v) for v in spec.jitter)
    if any(active):
        y = color_jitter(y, p["order"], p["jitter"], active)
    mean = torch.tensor(spec.mean, device=dev).view(1, 3, 1, 1)
    std = torch.tensor(spec.std, device=dev).view(1, 3, 1, 1)
    y.sub_(mean).div_(std)
    if p["erase"].any():
        rows = torch.arange(s, device=dev, dtype=torch.float32)

        def span(start, length):
            start, length = start.to(dev, torch.float32).view(-1, 1), length.to(dev, torch.float32).view(-1, 1)
            return (rows >= start) & (rows < start + length)

        erased = (span(p["erase_top"], p["erase_h"])[:, :, None] & span(p["erase_left"], p["erase_w"])[:, None, :]
                 & p["erase"].to(dev).view(-1, 1, 1))
        y.masked_fill_(erased[:, None], 0.0)
    return y


class BatchAugment:
    """``augment(batch)`` with the parameters drawn from this object's generator; ``set_epoch`` reseeds it.

    ``seed``: the fold's seed; epoch ``e`` of rank ``r`` draws from ``derive_seed(seed, "augment", e, r)``,
    so a resumed run draws what an uninterrupted one does.
    """

    def __init__(self, cfg_or_spec, seed: int, rank: int = 0, *, cpu_chunk: int = 16):
        self.spec = cfg_or_spec if isinstance(cfg_or_spec, AugmentSpec) else AugmentSpec.from_config(cfg_or_spec)
        self.seed, self.rank, self.cpu_chunk = seed, rank, cpu_chunk
        self.generator = torch.Generator()
        self.set_epoch(0)

    def set_epoch(self, epoch: int) -> None:
        self.generator.manual_seed(derive_seed(self.seed, "augment", epoch, self.rank))

    def params(self, n: int, height: int, width: int) -> dict:
        return draw_params(self.spec, n, height, width, self.generator)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype != torch.uint8 or x.dim() != 4 or x.shape[1] != 3:
            raise TypeError(f"BatchAugment takes uint8 (N, 3, H, W) batches, got {x.dtype} {tuple(x.shape)}")
        p = self.params(x.shape[0], x.shape[2], x.shape[3])
        if x.device.type != "cpu" or x.shape[0] <= self.cpu_chunk:
            return augment(x, p, self.spec)
        parts = [augment(x[i:i + self.cpu_chunk], {k: v[i:i + self.cpu_chunk] for k, v in p.items()}, self.spec)
                 for i in range(0, x.shape[0], self.cpu_chunk)]
        return torch.cat(parts)
