"""Where a run's files go and what state they say it is in; no torch here, so ``ctv plan`` starts fast."""

from __future__ import annotations

from pathlib import Path

from agrieval.baselines.ctv._archs import resolve_arch
from agrieval.baselines.ctv.config import TrainConfig

__all__ = ["run_dir", "run_status"]


def run_dir(runs_dir: str | Path, cfg: TrainConfig) -> Path:
    return Path(runs_dir) / cfg.protocol / resolve_arch(cfg.arch).key / cfg.fold


def run_status(path: Path) -> str:
    """``done`` (run.json written last), ``partial`` (a checkpoint to resume from) or ``pending``."""
    if (path / "run.json").is_file():
        return "done"
    if (path / "last.pt").is_file():
        return "partial"
    return "pending"
