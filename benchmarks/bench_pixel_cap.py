"""Peak memory of probing one large image, with and without the per-worker pixel cap (``--max-pixels``).

A PNG and a JPEG of ``--size`` (default 8000x6000, 48 MP) are written to a
temporary folder; each is probed (``agrieval.data_tools.probe.probe_file``) in a fresh
process, at the default cap and at ``--cap``, and the peak resident memory
above the imports (``VmHWM`` of ``/proc/self/status``, Linux) is printed.

    python benchmarks/bench_pixel_cap.py             # about 20 s
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import sys
from agrieval.data_tools.probe import probe_file

def hwm():  # peak resident memory of this process image, kB (VmHWM is reset by exec, ru_maxrss is not)
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1])

base = hwm()
r = probe_file(sys.argv[1], max_pixels=int(sys.argv[2]))
mode = (r.phash_mode or "exact") if r.readable else "-"
print(f"{r.format:5} cap {int(sys.argv[2]):>11,}: readable={r.readable!s:5} hash={mode:8} "
      f"peak +{(hwm() - base) / 1024:.0f} MB")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="8000x6000")
    ap.add_argument("--cap", type=int, default=12_000_000)
    args = ap.parse_args()
    import numpy as np
    from PIL import Image

    from agrieval.data_tools.probe import DEFAULT_MAX_PIXELS

    w, h = map(int, args.size.split("x"))
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory() as tmp:
        noise = np.random.default_rng(0).integers(0, 255, (h // 4, w // 4, 3), dtype=np.uint8)
        img = Image.fromarray(noise).resize((w, h))
        files = [Path(tmp) / "big.png", Path(tmp) / "big.jpg"]
        img.save(files[0], "PNG")
        img.save(files[1], "JPEG", quality=90)
        del img
        print(f"{w}x{h} = {w * h / 1e6:.0f} MP")
        for f in files:
            for cap in (DEFAULT_MAX_PIXELS, args.cap):
                subprocess.run([sys.executable, "-c", CHILD, str(f), str(cap)], env=env, check=True)


if __name__ == "__main__":
    main()
