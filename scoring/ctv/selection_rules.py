"""Named model-selection rules: which epoch of a run's history a number comes from.

DomainBed's finding is that a domain-generalisation result without its model-selection rule is
incomplete; it reports several side by side. For a CTV run:

* ``training_team_val`` (the paper's): the epoch with the best accuracy on the training team(s)' own
  validation split; the numbers are those of the run's ``predictions.csv`` (the run restored that
  epoch and predicted every split), so the paper's tables are this rule's, unchanged.
* ``last_epoch``: the last epoch trained, from ``history.jsonl`` (no selection at all).
* ``oracle_test``: the epoch with the best accuracy on the test team(s), from ``history.jsonl``: an
  upper bound that peeks at the target, never a result (DomainBed's test-domain validation). The
  gap ``oracle_test - training_team_val`` is what selecting on the training teams costs.

Leave-one-team-out among the training teams (DomainBed's leave-one-domain-out) needs one extra
training run per training team of each fold; the run folders hold none, so it is not offered.

``last_epoch`` and ``oracle_test`` need the per-epoch test accuracy (``--eval-test-every-epoch``,
on in the paper and official presets); a run without it has no value under them (None), and the
report counts such runs instead of guessing. Ties: the first epoch with the best value.
"""

from __future__ import annotations

from dataclasses import dataclass

from agrieval.scoring.ctv.runs import Run

__all__ = ["PAPER_RULE", "RULES", "Selected", "select"]

PAPER_RULE = "training_team_val"
RULES: dict[str, str] = {
    "training_team_val": "best val accuracy on the training team(s)' own split (the paper's rule)",
    "last_epoch": "the last epoch trained (no selection)",
    "oracle_test": "best accuracy on the test team(s): an upper bound that peeks at the target",
}


@dataclass(frozen=True)
class Selected:
    epoch: int | None  # None: the run's predictions (its own selection), epoch unrecorded
    val: float  # percent
    test: float  # percent


def select(run: Run, rule: str) -> Selected | None:
    """The run's val and test accuracy (percent) under ``rule``; None when its history cannot say."""
    if rule == "training_team_val":
        return Selected(None, run.pct("val"), run.pct("test"))
    if rule not in RULES:
        raise ValueError(f"unknown selection rule {rule!r}; choose from {', '.join(RULES)}")
    epochs = [h for h in run.history if "val" in h and "test" in h]
    if not epochs or len(epochs) != len(run.history):
        return None  # no per-epoch test accuracy (or only some epochs have it)
    if rule == "last_epoch":
        h = max(epochs, key=lambda h: h["epoch"])
    else:
        h = max(epochs, key=lambda h: (h["test"], -h["epoch"]))
    return Selected(h["epoch"], h["val"], h["test"])
