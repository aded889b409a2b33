"""One training epoch and one prediction pass.

Loss is the batch-size-weighted mean cross-entropy over the epoch,
``sum_b loss_b * n_b / sum_b n_b``, reduced over ranks (sums and counts, never
a mean of means); accuracy is ``correct / n``. Gradients are clipped to a
global L2 norm of ``grad_clip``. Under DDP a rank's share of a global batch of
``m`` images may be one image short of another's: its loss is weighted by
``world * n_rank / m`` so that DDP's average over ranks is the global batch's
mean (``agrieval.baselines.ctv._distributed``).
"""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from agrieval.baselines.ctv._distributed import DistInfo, all_gather, all_reduce_sum
from agrieval.baselines.ctv._progress import LineProgress
from agrieval.baselines.ctv._transforms import normalize_batch
from agrieval.scoring.runtime.metrics.multiclass import accuracy_from_counts


@dataclass
class Runtime:
    """Device-side choices derived from the config and the device."""

    device: torch.device
    amp_dtype: torch.dtype | None
    channels_last: bool
    mean: tuple
    std: tuple
    grad_scaler: bool = False      # fp16: scale the loss (torch.amp.GradScaler), as the script does

    def make_scaler(self):
        return torch.amp.GradScaler(self.device.type) if self.grad_scaler else None

    def autocast(self):
        if self.amp_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=self.amp_dtype)

    def to_input(self, x: torch.Tensor) -> torch.Tensor:
        x = x.to(self.device, non_blocking=True)
        if x.dtype == torch.uint8:  # the kit's pipeline; the script's (float) is normalised already
            x = normalize_batch(x, self.mean, self.std)
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        return x



# Batch norm layers of every kind: one image per step gives them one value per channel where the feature map is
# 1x1 (BatchNorm1d always; BatchNorm2d after the last pooling of a small input, as timm's test_resnet at 32 px),
# and training stops with "Expected more than 1 value per channel".
_BATCH_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)


def needs_two_per_step(model: nn.Module) -> bool:
    """Whether ``model`` has a batch norm layer, so that no training step may hold a single image."""
    return any(isinstance(m, _BATCH_NORMS) for m in model.modules())

def _bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    if not sys.stderr.isatty():
        return LineProgress(total, desc)

    return tqdm(total=total, desc=desc, leave=False, file=sys.stderr)


def train_one_epoch(model: nn.Module, loader, optimizer, criterion, rt: Runtime, *, grad_clip: float,
                    info: DistInfo = DistInfo(), progress: bool = True, desc: str = "train", scaler=None,
                    on_batch=None, global_sizes: list[int] | None = None, augment=None) -> dict:
    """``scaler``: a GradScaler (fp16), stepped as the script does: scale, backward, unscale, clip, step,
    update. ``on_batch(x, y, loss)`` is called after each step (the fidelity check records losses).
    ``global_sizes``: each step's global batch size (``EpochBatches.global_sizes``), for the DDP weighting.
    ``augment``: a callable applied to each uint8 batch on the device (``agrieval.baselines.ctv._augment``)."""
    model.train()
    loss_sum = correct = n = 0.0
    skipped = 0
    has_bn = needs_two_per_step(model)
    bar = _bar(len(loader), desc, progress and info.is_main)
    start = time.perf_counter()
    sizes = iter(global_sizes) if global_sizes is not None else None
    for x, y, _ in loader:
        global_n = next(sizes) if sizes is not None else None
        if has_bn and len(y) == 1:
            skipped += 1  # batch norm cannot train on one sample; counted in the history
            continue
        if augment is not None:
            x = augment(x.to(rt.device, non_blocking=True))
        x, y = rt.to_input(x), y.to(rt.device, non_blocking=True)
        with rt.autocast():
            logits = model(x)
            loss = criterion(logits.float(), y)
        weight = 1.0 if global_n is None else info.world * len(y) / global_n
        step_loss = loss if weight == 1.0 else loss * weight
        optimizer.zero_grad(set_to_none=True)
        if scaler is not None:
            scaler.scale(step_loss).backward()
            scaler.unscale_(optimizer)
            if grad_clip > 0:
                nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            step_loss.backward()
            if grad_clip > 0:
                nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            optimizer.step()
        if on_batch is not None:
            on_batch(x, y, loss)
        b = len(y)
        loss_sum += loss.detach().item() * b
        correct += (logits.detach().argmax(1) == y).sum().item()
        n += b
        if bar:
            bar.update(1)
    if rt.device.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    if bar:
        bar.close()
    loss_sum, correct, n, skipped = all_reduce_sum([loss_sum, correct, n, skipped], info, step=f"{desc}: sums")
    return {"loss": loss_sum / max(n, 1), "acc": correct / max(n, 1), "n": int(n),
            "seconds": seconds, "skipped_batches": int(skipped)}


@torch.no_grad()
def predict(model: nn.Module, loader, rt: Runtime, *, info: DistInfo = DistInfo(), progress: bool = True,
            desc: str = "eval") -> dict:
    """Predictions for the whole split (gathered over ranks), in dataset order.

    Returns ``index``, ``pred`` (argmax), ``conf`` (max softmax probability),
    ``label`` arrays and ``seconds``.
    """
    model.eval()
    idx, pred, conf, lab = [], [], [], []
    bar = _bar(len(loader), desc, progress and info.is_main)
    start = time.perf_counter()
    for x, y, i in loader:
        with rt.autocast():
            logits = model(rt.to_input(x))
        prob = torch.softmax(logits.float(), dim=1)
        c, p = prob.max(1)
        idx.append(i.numpy())
        pred.append(p.cpu().numpy())
        conf.append(c.cpu().numpy())
        lab.append(y.numpy())
        if bar:
            bar.update(1)
    seconds = time.perf_counter() - start
    if bar:
        bar.close()
    local = tuple(np.concatenate(a) if a else np.zeros(0, dtype=np.int64 if k != 2 else np.float32)
                  for k, a in enumerate((idx, pred, conf, lab)))
    parts = all_gather(local, info, step=f"{desc}: gather predictions")
    index, pred_a, conf_a, lab_a = (np.concatenate([p[k] for p in parts]) for k in range(4))
    order = np.argsort(index, kind="stable")
    n = len(loader.dataset)
    if not np.array_equal(index[order], np.arange(n)):  # each image once: a padded or lost share is a bug
        raise RuntimeError(f"{desc}: gathered {len(index)} predictions for {n} images, not each once")
    (seconds,) = [max(all_gather(seconds, info, step=f"{desc}: gather timings"))]
    return {"index": index[order], "pred": pred_a[order], "conf": conf_a[order], "label": lab_a[order],
            "seconds": seconds}


def accuracy(result: dict) -> float:
    """The fraction of ``result``'s images predicted right (NaN without images)."""
    return accuracy_from_counts(int((result["pred"] == result["label"]).sum()), len(result["label"]))
