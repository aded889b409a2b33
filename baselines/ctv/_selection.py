"""Model selection (``--selection``) and best-keeping: which epoch's model a run keeps, as named objects.

The rule and the file are separate: a ``Selection`` says whether an epoch's validation accuracy beats the
best so far and what is kept when none did; ``BestKeeper`` writes ``best.pt`` (rank 0 only) and puts the
kept model back after training. The test split never chooses anything.

* ``kit``: the first epoch with the highest validation accuracy (best starts below any accuracy, so some
  epoch is always kept).
* ``script``: the script's rule (S:556, 651, 667): best starts at 0.0, an epoch must beat it, and when no
  epoch beats 0 % nothing is restored: the last epoch's model is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agrieval.baselines.ctv import _checkpoint as checkpoint
from agrieval.baselines.ctv._distributed import DistInfo


@dataclass(frozen=True)
class Selection:
    name: str
    initial_best: float  # the "best so far" before epoch 1

    def improved(self, val_acc: float, best: float) -> bool:
        return val_acc > best  # strictly: the first epoch of a tie is kept


SELECTIONS: dict[str, Selection] = {"kit": Selection("kit", -1.0), "script": Selection("script", 0.0)}


class BestKeeper:
    """``best.pt`` of one run: the model of the selected epoch, its classes, epoch and settings."""

    def __init__(self, path: Path, classes: list[str], config: dict, info: DistInfo):
        self.path, self.classes, self.config, self.info = path, classes, config, info

    def keep(self, model, epoch: int) -> None:
        if self.info.is_main:
            checkpoint.save(self.path, {"model": model.state_dict(), "classes": self.classes, "epoch": epoch,
                                        "config": self.config})

    def restore(self, model, best_epoch: int, last_epoch: int) -> str:
        """Load the kept model into ``model`` on every rank; say which: "best", or "last" when no epoch was
        kept (``script``: none beat 0 %), whose model then becomes ``best.pt``."""
        if best_epoch == 0:
            self.keep(model, last_epoch)
            return "last"
        model.load_state_dict(checkpoint.load(self.path)["model"])
        return "best"
