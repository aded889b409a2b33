"""Replicates: the same run trained with several seeds, one run folder per seed.

``--seeds N`` trains seeds ``base, base + 1, ..., base + N - 1`` (``base`` = ``--seed``, the preset's 42);
``--seeds 1,7,9`` trains those. Seed ``S`` goes to ``RUNS_DIR/seed-S/<protocol>/<arch>/<fold>/``: each seed's
folder is a complete one-seed runs folder (what a sweep without ``--seeds`` writes directly under
``RUNS_DIR``), and ``agrieval ctv report RUNS_DIR`` reads them all, grouping the runs by the seed that each
``run.json`` records. WILDS asks for at least 3 seeds, DomainBed reports mean +/- standard error over trials.
"""

from __future__ import annotations

from pathlib import Path

from agrieval.baselines.ctv.errors import CTVError

__all__ = ["MAX_SEEDS", "parse_seeds", "seed_root"]

MAX_SEEDS = 100


def parse_seeds(text: str | None, base: int) -> list[int] | None:
    """``"3"`` -> ``[base, base + 1, base + 2]``; ``"1,7,9"`` -> ``[1, 7, 9]``; None or empty -> None (no
    replicates: the run folders sit directly under ``RUNS_DIR``)."""
    if text is None or not text.strip():
        return None
    words = [w.strip() for w in text.split(",")]
    try:
        numbers = [int(w) for w in words if w]
    except ValueError:
        raise CTVError("bad_option", f"--seeds takes a count (3) or a comma list of seeds (1,7,9), got {text!r}") \
            from None
    if "," not in text:
        count = numbers[0]
        if not 1 <= count <= MAX_SEEDS:
            raise CTVError("bad_option", f"--seeds {count}: a count from 1 to {MAX_SEEDS} (a single seed: --seed)")
        return [base + i for i in range(count)]
    if not numbers or len(set(numbers)) != len(numbers) or any(n < 0 for n in numbers):
        raise CTVError("bad_option", f"--seeds {text!r}: distinct non-negative seeds, comma-separated")
    if len(numbers) > MAX_SEEDS:
        raise CTVError("bad_option", f"--seeds: at most {MAX_SEEDS} seeds, got {len(numbers)}")
    return numbers


def seed_root(runs_dir: str | Path, seed: int) -> Path:
    """The runs folder of one seed's replicate."""
    return Path(runs_dir) / f"seed-{seed}"
