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

* ``leave_one_team_out`` (DomainBed's leave-one-domain-out, LOTO only, with ``ctv report --lodo``): each
  training team h of the fold is held out in turn by a run of its own, trained on the other training teams
  (``agrieval data splits --without-team T``, then the usual runs); the epoch e that maximises the mean over h
  of the held-out accuracy, (1/|H|) sum_h acc_h(e), is chosen, and the fold's run is read at e. Nothing of the
  fold's test team is looked at. Epochs count when every held-out run and the fold's run recorded them.

``last_epoch`` and ``oracle_test`` need the per-epoch test accuracy (``--eval-test-every-epoch``,
on in the paper and official presets); a run without it has no value under them (None), and the
report counts such runs instead of guessing. Ties: the first epoch with the best value.
"""

from __future__ import annotations

from dataclasses import dataclass

from agrieval.scoring.ctv.runs import Run

__all__ = ["ALL_RULES", "LODO_RULE", "PAPER_RULE", "RULES", "Selected", "rules_for", "select"]

PAPER_RULE = "training_team_val"
RULES: dict[str, str] = {
    "training_team_val": "best val accuracy on the training team(s)' own split (the paper's rule)",
    "last_epoch": "the last epoch trained (no selection)",
    "oracle_test": "best accuracy on the test team(s): an upper bound that peeks at the target",
}
LODO_RULE = "leave_one_team_out"
LODO_TEXT = ("best mean accuracy over the training teams, each held out in turn by a run of its own (LOTO only; "
             "DomainBed's leave-one-domain-out)")


ALL_RULES = {**RULES, LODO_RULE: LODO_TEXT}


def rules_for(runs, protocol: str | None = None) -> dict:
    """The rules a report names: ``RULES``, and ``leave_one_team_out`` when some (LOTO) run has held-out runs
    (for ``protocol`` TOTO never: no training team is held out there)."""
    lodo = protocol in (None, "LOTO") and any(r.held_out for r in runs)
    return dict(ALL_RULES) if lodo else dict(RULES)


@dataclass(frozen=True)
class Selected:
    epoch: int | None  # None: the run's predictions (its own selection), epoch unrecorded
    val: float  # percent
    test: float  # percent


def select(run: Run, rule: str) -> Selected | None:
    """The run's val and test accuracy (percent) under ``rule``; None when its history cannot say."""
    if rule == "training_team_val":
        return Selected(None, run.pct("val"), run.pct("test"))
    if rule == LODO_RULE:
        return _leave_one_team_out(run)
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


def _leave_one_team_out(run: Run) -> Selected | None:
    """The fold's run at the epoch with the best mean held-out accuracy (module docstring); None without a
    held-out run for every training team, or without an epoch that all of them and the fold's run recorded.

    >>> from agrieval.scoring.ctv.runs import Run
    >>> def run(fold, history):
    ...     return Run("p", "agrieval", "LOTO", "a", fold, [], {}, {}, history=history)
    >>> fold = run("T", [{"epoch": 1, "val": 90.0, "test": 50.0}, {"epoch": 2, "val": 95.0, "test": 40.0}])
    >>> fold.train_teams = ["h1", "h2"]
    >>> fold.held_out = [run("h1", [{"epoch": 1, "test": 70.0}, {"epoch": 2, "test": 60.0}]),
    ...                  run("h2", [{"epoch": 1, "test": 60.0}, {"epoch": 2, "test": 66.0}])]
    >>> select(fold, "leave_one_team_out")  # means 65.0 and 63.0: epoch 1, although val is best at 2
    Selected(epoch=1, val=90.0, test=50.0)
    """
    if run.protocol != "LOTO" or not run.held_out or {h.fold for h in run.held_out} != set(run.train_teams):
        return None
    own = {h["epoch"]: h for h in run.history if "val" in h and "test" in h}
    common = set(own)
    for h in run.held_out:
        common &= {e["epoch"] for e in h.history if "test" in e}
    if not common:
        return None
    held = [{e["epoch"]: e["test"] for e in h.history if "test" in e} for h in run.held_out]
    best = max(sorted(common), key=lambda e: (sum(acc[e] for acc in held) / len(held), -e))
    return Selected(best, own[best]["val"], own[best]["test"])
