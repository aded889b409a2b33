"""Forward pass over tiles with the top-k taken on the device.

``p_t = softmax(f(x_t))``; with flip test-time augmentation
``p_t = (softmax(f(x_t)) + softmax(f(flip(x_t)))) / 2``. Only the k largest
probabilities of each tile (and their class indices) leave the device.
With ``score_scale`` (DS@GT: 100) and a per-tile ``prior`` (float64, DS@GT's cluster prior) the scores
``p * scale * prior`` replace the probabilities for the top-k, the tie picks and the stats (the product in
float64 when a prior is given, as DS@GT's ``probabilities * torch.tensor(prior)``; stored as float32);
``p2`` stays that of the probabilities.
``score`` also returns what the top-k alone cannot give exactly (``image_stats``):
per group of tiles (one image at one tiling level) the max, the sum and the
BMA vector over every class, and per tile ``sum_c p_t(c)^2`` (for z-scores).
On CUDA the tiles are normalised on the device, the forward pass runs under
bf16 autocast in channels_last layout; softmax and top-k are in float32.
With ``compile`` the model goes through ``torch.compile`` and every batch is
padded to ``batch_size`` tiles, so the last, shorter batch does not trigger a
second compilation (padded rows are dropped before the top-k leaves).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from agrieval.baselines.plantclef import _tie_rules as tie_rules
from agrieval.baselines.plantclef._bma import bma_vectors


@dataclass
class _TileOutput:
    probs: torch.Tensor  # float32 (T, k), best first
    indices: torch.Tensor  # int64 (T, k)
    p2: torch.Tensor  # float32 (T,): sum over classes of p_t(c)^2
    group_max: torch.Tensor | None = None  # float32 (G, C)
    group_sum: torch.Tensor | None = None
    group_bma: torch.Tensor | None = None
    ties: dict | None = None  # tie_rules name -> int64 (T, k) class indices, with their probabilities
    tie_probs: object = None  # float32 numpy (T, C), only when ties are asked for
    full: object = None  # float32 numpy (T, C), only with save_full


@dataclass
class TileScorer:
    """Scores batches of image tiles with a model: the top-k species per tile (or every score), with the
    normalisation, test-time flips and speed switches it was given."""

    model: torch.nn.Module
    device: torch.device
    top_k: int
    mean: tuple[float, ...]
    std: tuple[float, ...]
    batch_size: int = 64
    flip_tta: bool = False
    amp: bool = True
    channels_last: bool = True
    compile: bool = False
    compile_backend: str = "inductor"  # tests use "eager": the same graph capture without code generation
    save_ties: tuple = ()  # ((rule, k), ...): tie_rules selections made on the full probabilities
    score_scale: float = 1.0  # DS@GT: softmax(logits) * 100 before topk (float32)
    save_full: bool = False  # every class of every tile back on the CPU (full_probs)

    def __post_init__(self) -> None:
        self.model = self.model.to(self.device).eval()
        cuda = self.device.type == "cuda"
        self._autocast = cuda and self.amp
        self._channels_last = cuda and self.channels_last
        if self._channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
        self._forward = torch.compile(self.model, backend=self.compile_backend) if self.compile else self.model
        self._mean = torch.tensor(self.mean, device=self.device).view(1, 3, 1, 1) * 255.0
        self._std = torch.tensor(self.std, device=self.device).view(1, 3, 1, 1) * 255.0
        num_classes = getattr(self.model, "num_classes", None)
        if num_classes is not None and self.top_k > num_classes:
            raise ValueError(f"top-k {self.top_k} is larger than the {num_classes} classes of the model")

    def _probs(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=self._autocast):
            logits = self._forward(x)
        return logits.float().softmax(dim=-1)

    def _full_probs(self, tiles: torch.Tensor) -> torch.Tensor:
        out = []
        for start in range(0, len(tiles), self.batch_size):
            chunk = tiles[start:start + self.batch_size].to(self.device, non_blocking=True)
            n = len(chunk)
            if self.compile and n < self.batch_size:
                chunk = torch.cat([chunk, chunk.new_zeros((self.batch_size - n, *chunk.shape[1:]))])
            x = chunk.permute(0, 3, 1, 2).float().sub_(self._mean).div_(self._std)
            if self._channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            p = self._probs(x)
            if self.flip_tta:
                p = (p + self._probs(x.flip(3))) / 2
            out.append(p[:n])
        return torch.cat(out)

    @torch.inference_mode()
    def score(self, tiles: torch.Tensor, group: torch.Tensor | None = None, n_groups: int = 0,
              prior: torch.Tensor | None = None) -> _TileOutput:
        """uint8 ``(T, S, S, 3)`` -> top-k, per-tile sum of squares and, when ``group`` (int64 ``(T,)``,
        values ``0..n_groups-1``) is given, the per-group statistics; all on the CPU. The whole call's
        probabilities stay on the device until reduced (T x C floats: 8 MB for 256 tiles of 7,806 classes)."""
        p = self._full_probs(tiles)
        raw = p
        if self.score_scale != 1.0:
            p = p * self.score_scale
        if prior is not None:  # float64 (T, C): DS@GT's product is float64; topk and ties run on it
            p = p.double() * prior.to(p.device)
        top = p.topk(self.top_k, dim=-1)
        out = _TileOutput(top.values.float().cpu(), top.indices.cpu(), raw.pow(2).sum(dim=1).cpu())
        if self.save_ties:
            out.ties = tie_rules.select_on_device(p, self.save_ties)
            out.tie_probs = p.float().cpu().numpy()
        p = p.float()  # stored (and pooled) as float32, as DS@GT's Spark FloatType
        if self.save_full:
            out.full = out.tie_probs if out.tie_probs is not None else p.cpu().numpy()
        if group is not None:
            g = group.to(self.device)
            shape = (n_groups, p.shape[1])
            out.group_max = torch.zeros(shape, device=p.device).scatter_reduce_(
                0, g[:, None].expand_as(p), p, reduce="amax", include_self=False).cpu()
            out.group_sum = torch.zeros(shape, device=p.device).index_add_(0, g, p).cpu()
            out.group_bma = bma_vectors(p, g, n_groups).cpu()
        return out

    def __call__(self, tiles: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """uint8 ``(T, S, S, 3)`` -> (float32 probabilities ``(T, k)``, int64 class indices ``(T, k)``) on the CPU."""
        out = self.score(tiles)
        return out.probs, out.indices
