"""``python -m agrieval.baselines.ctv._smoke --device cuda``: one line per check, for scripts/gpu_check.sh.

Checks, per paper arch (random init, synthetic uint8 batches at 224 px): the
model builds with the published parameter count; a few bf16 autocast,
channels_last training steps run with a finite, falling loss on a fixed batch;
training and evaluation images per second. Exit code 1 if any check fails.
"""

from __future__ import annotations

import sys
import time

import click

# Imported inside functions, so that importing this module loads only what it needs: torch (heavy or optional);
# baselines.ctv.engine (it loads PIL, asyncio, concurrent); baselines.ctv.models, baselines.device (they load
# asyncio, concurrent, concurrent.futures).

PUBLISHED = {"densenet121": 7_978_856, "swin_tiny": 28_288_354}


def _line(ok: bool, name: str, detail: str) -> bool:
    click.echo(f"{'ok  ' if ok else 'FAIL'} ctv {name}: {detail}")
    sys.stdout.flush()
    return ok


def check_arch(arch: str, device: str, batch: int, steps: int, img: int, amp: bool) -> bool:
    import torch

    from agrieval.baselines.ctv.engine import Runtime
    from agrieval.baselines.ctv.models import build_model, count_parameters

    dev = torch.device(device)
    good = True
    torch.manual_seed(0)
    model = build_model(arch, 1000)
    n = count_parameters(model)
    if arch in PUBLISHED:
        good &= _line(n == PUBLISHED[arch], f"{arch} build", f"{n / 1e6:.2f}M parameters (published "
                      f"{PUBLISHED[arch] / 1e6:.2f}M)")
    model = build_model(arch, 6, head_dropout=0.0).to(dev)
    cl = dev.type == "cuda"
    if cl:
        model = model.to(memory_format=torch.channels_last)
    rt = Runtime(dev, torch.bfloat16 if amp else None, cl, (0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(0)
    x_u8 = torch.randint(0, 256, (batch, 3, img, img), dtype=torch.uint8, generator=g)
    y = torch.randint(0, 6, (batch,), generator=g).to(dev)
    if dev.type == "cuda":
        x_u8 = x_u8.pin_memory()

    def step():
        with rt.autocast():
            loss = loss_fn(model(rt.to_input(x_u8)).float(), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    model.train()
    losses = [step() for _ in range(steps)]
    falling = all(map(lambda v: v == v, losses)) and losses[-1] < losses[0]
    good &= _line(falling, f"{arch} {'bf16 ' if amp else ''}train steps", " ".join(f"{v:.3f}" for v in losses))

    def timed(fn, n):
        fn()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        return batch * n / (time.perf_counter() - t)

    train_ips = timed(step, steps)
    model.eval()

    @torch.no_grad()
    def infer():
        with rt.autocast():
            model(rt.to_input(x_u8))

    eval_ips = timed(infer, steps)
    _line(True, f"{arch} throughput", f"train {train_ips:,.0f} img/s, eval {eval_ips:,.0f} img/s "
          f"(batch {batch}, {img} px, {dev})")
    return good


@click.command()
@click.option("--device", default="cuda", show_default=True)
@click.option("--archs", default="densenet121,swin_tiny", show_default=True)
@click.option("--batch", type=int, default=64, show_default=True)
@click.option("--steps", type=int, default=10, show_default=True)
@click.option("--img-size", type=int, default=224, show_default=True)
@click.option("--amp/--no-amp", default=None, help="bf16 autocast [on for CUDA].")
def main(device, archs, batch, steps, img_size, amp):
    """Build, train a few steps and time the CTV paper models on DEVICE."""

    from agrieval.baselines._device import device_or_exit

    device = str(device_or_exit(device))  # a missing GPU: error [device_unavailable], exit 2
    amp = device.startswith("cuda") if amp is None else amp
    ok = True
    for arch in [a.strip() for a in archs.split(",") if a.strip()]:
        ok &= check_arch(arch, device, batch, steps, img_size, amp)
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
