"""Named model-selection rules: which epoch of a run's history a number comes from.

DomainBed's finding is that a domain-generalisation result without its model-selection rule is
incomplete; it reports several side by side. Each rule is a small class registered in ``REGISTRY`` (name ->
class), whose docstring states the rule with a worked example (doctested by ``tests/ctv``); a rule reads one
run's final numbers and its per-epoch records (accuracies in percent) and gives the ``Selected`` epoch, or None
when the run's history cannot say: the report counts such runs instead of guessing. Ties: the first epoch with
the best value. ``last_epoch`` and ``oracle_test`` need the per-epoch test accuracy (``--eval-test-every-epoch``,
on in the paper and official presets); ``leave_one_team_out`` needs the held-out runs (``ctv report --lodo``).

The examples' runs are made by ``_run``: ``Run(source, layout, protocol, arch, fold, train_teams, n, n_correct,
history=...)``.

>>> sorted(REGISTRY)
['last_epoch', 'leave_one_team_out', 'oracle_test', 'training_team_val']
"""

from __future__ import annotations

from dataclasses import dataclass

from agrieval.scoring.ctv.runs import Run

__all__ = ["ALL_RULES", "LODO_RULE", "PAPER_RULE", "REGISTRY", "RULES", "SelectionRule", "Selected", "rules_for",
           "select"]


@dataclass(frozen=True)
class Selected:
    epoch: int | None  # None: the run's predictions (its own selection), epoch unrecorded
    val: float  # percent
    test: float  # percent


class SelectionRule:
    """A model-selection rule: ``name``, one line of ``text`` for the report, and ``choose(run)``."""

    name = ""
    text = ""
    lodo = False  # True: named only where some LOTO run has held-out runs (ctv report --lodo)

    def choose(self, run: Run) -> Selected | None:
        raise NotImplementedError


REGISTRY: dict[str, type[SelectionRule]] = {}


def _register(cls: type[SelectionRule]) -> type[SelectionRule]:
    REGISTRY[cls.name] = cls
    return cls


def _epochs(run: Run) -> list[dict] | None:
    """The run's epochs when every one recorded both val and test accuracy; else None (the rule cannot say)."""
    epochs = [h for h in run.history if "val" in h and "test" in h]
    return epochs if epochs and len(epochs) == len(run.history) else None


def _run(fold: str, history: list, protocol: str = "TOTO", val: int = 9, test: int = 7) -> Run:
    """A run of 10 val and 10 test images for the examples (``val``, ``test``: how many are right)."""
    return Run("p", "agrieval", protocol, "net", fold, [fold], {"val": 10, "test": 10},
               {"val": val, "test": test}, history=history)


@_register
class TrainingTeamVal(SelectionRule):
    """``training_team_val`` (the paper's): the epoch with the best accuracy on the training team(s)' own
    validation split. The run restored that epoch and predicted every split, so the numbers are those of its
    ``predictions.csv`` (epoch None): the paper's tables are this rule's, unchanged.

    >>> TrainingTeamVal().choose(_run("t1", [], val=9, test=7))
    Selected(epoch=None, val=90.0, test=70.0)
    """

    name = "training_team_val"
    text = "best val accuracy on the training team(s)' own split (the paper's rule)"

    def choose(self, run: Run) -> Selected | None:
        return Selected(None, run.pct("val"), run.pct("test"))


@_register
class LastEpoch(SelectionRule):
    """``last_epoch``: the last epoch trained, from ``history.jsonl``: no selection at all.

    >>> h = [{"epoch": 1, "val": 80.0, "test": 60.0}, {"epoch": 2, "val": 70.0, "test": 65.0}]
    >>> LastEpoch().choose(_run("t1", h))
    Selected(epoch=2, val=70.0, test=65.0)
    >>> LastEpoch().choose(_run("t1", [{"epoch": 1, "val": 80.0}])) is None  # no per-epoch test accuracy
    True
    """

    name = "last_epoch"
    text = "the last epoch trained (no selection)"

    def choose(self, run: Run) -> Selected | None:
        epochs = _epochs(run)
        if epochs is None:
            return None
        h = max(epochs, key=lambda h: h["epoch"])
        return Selected(h["epoch"], h["val"], h["test"])


@_register
class OracleTest(SelectionRule):
    """``oracle_test``: the epoch with the best accuracy on the test team(s), from ``history.jsonl``. It peeks
    at the target, so it is an upper bound, never a result (DomainBed's test-domain validation); the gap
    ``oracle_test - training_team_val`` is what selecting on the training teams costs. Ties: the first epoch.

    >>> h = [{"epoch": 1, "val": 80.0, "test": 60.0}, {"epoch": 2, "val": 90.0, "test": 75.0},
    ...      {"epoch": 3, "val": 95.0, "test": 75.0}]
    >>> OracleTest().choose(_run("t1", h))
    Selected(epoch=2, val=90.0, test=75.0)
    """

    name = "oracle_test"
    text = "best accuracy on the test team(s): an upper bound that peeks at the target"

    def choose(self, run: Run) -> Selected | None:
        epochs = _epochs(run)
        if epochs is None:
            return None
        h = max(epochs, key=lambda h: (h["test"], -h["epoch"]))
        return Selected(h["epoch"], h["val"], h["test"])


@_register
class LeaveOneTeamOut(SelectionRule):
    """``leave_one_team_out`` (DomainBed's leave-one-domain-out; LOTO only, ``ctv report --lodo``): each
    training team h of the fold is held out in turn by a run of its own, trained on the other training teams
    (``agrieval data splits --without-team T``, then the usual runs); the epoch e maximising the mean held-out
    accuracy (1/|H|) sum_h acc_h(e) is chosen, and the fold's run is read at e. Nothing of the fold's test team
    is looked at. Epochs count when every held-out run and the fold's run recorded them; None without a
    held-out run for every training team.

    >>> fold = _run("T", [{"epoch": 1, "val": 90.0, "test": 50.0}, {"epoch": 2, "val": 95.0, "test": 40.0}],
    ...             protocol="LOTO")
    >>> fold.train_teams = ["h1", "h2"]
    >>> fold.held_out = [_run("h1", [{"epoch": 1, "test": 70.0}, {"epoch": 2, "test": 60.0}], "LOTO"),
    ...                  _run("h2", [{"epoch": 1, "test": 60.0}, {"epoch": 2, "test": 66.0}], "LOTO")]
    >>> LeaveOneTeamOut().choose(fold)  # means 65.0 and 63.0: epoch 1, although val is best at 2
    Selected(epoch=1, val=90.0, test=50.0)
    """

    name = "leave_one_team_out"
    text = ("best mean accuracy over the training teams, each held out in turn by a run of its own (LOTO only; "
            "DomainBed's leave-one-domain-out)")
    lodo = True

    def choose(self, run: Run) -> Selected | None:
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


PAPER_RULE = TrainingTeamVal.name
LODO_RULE = LeaveOneTeamOut.name
RULES: dict[str, str] = {name: cls.text for name, cls in REGISTRY.items() if not cls.lodo}
ALL_RULES: dict[str, str] = {name: cls.text for name, cls in REGISTRY.items()}


def rules_for(runs, protocol: str | None = None) -> dict:
    """The rules a report names: ``RULES``, and ``leave_one_team_out`` when some (LOTO) run has held-out runs
    (for ``protocol`` TOTO never: no training team is held out there)."""
    lodo = protocol in (None, "LOTO") and any(r.held_out for r in runs)
    return dict(ALL_RULES) if lodo else dict(RULES)


def select(run: Run, rule: str) -> Selected | None:
    """The run's val and test accuracy (percent) under ``rule``; None when its history cannot say."""
    if rule not in REGISTRY:
        raise ValueError(f"unknown selection rule {rule!r}; choose from {', '.join(RULES)}")
    return REGISTRY[rule]().choose(run)
