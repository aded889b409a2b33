"""Named model-selection rules: which epoch of a run's history a number comes from.

DomainBed's finding is that a domain-generalisation result without its model-selection rule is
incomplete; it reports several side by side. Each rule is a small class registered in ``REGISTRY`` (name ->
class), whose docstring states the rule with a worked example (doctested by ``tests/scoring/ctv``); a rule reads one
run's rows of the record table (``agrieval.scoring.ctv._records``: its final rows and its history, accuracies in
percent) and gives the ``Selected`` epoch, or None when the run's history cannot say: the report counts such runs
instead of guessing. Ties: the first epoch with the best value. ``last_epoch`` and ``oracle_test`` need the
per-epoch test accuracy (``--eval-test-every-epoch``, on in the paper and official presets);
``leave_one_team_out`` needs the held-out runs (``ctv report --lodo``).

The examples' rows are made by ``_rows(fold, history, ...)``: one run of 10 val and 10 test images.

>>> sorted(REGISTRY)
['last_epoch', 'leave_one_team_out', 'oracle_test', 'training_team_val']
"""

from __future__ import annotations

from dataclasses import dataclass

from agrieval.scoring.ctv._records import FINAL, Records, values
from agrieval.scoring.ctv.runs import Run

__all__ = ["ALL_RULES", "LODO_RULE", "PAPER_RULE", "REGISTRY", "RULES", "SelectionRule", "Selected", "rules_for",
           "select"]


@dataclass(frozen=True)
class Selected:
    epoch: int | None  # None: the run's predictions (its own selection), epoch unrecorded
    val: float  # percent
    test: float  # percent


class SelectionRule:
    """A model-selection rule: ``name``, one line of ``text`` for the report, and ``choose(rows)`` over one run's
    rows of the record table."""

    name = ""
    text = ""
    lodo = False  # True: named only where some LOTO run has held-out runs (ctv report --lodo)

    def choose(self, rows) -> Selected | None:
        raise NotImplementedError


REGISTRY: dict[str, type[SelectionRule]] = {}


def _register(cls: type[SelectionRule]) -> type[SelectionRule]:
    REGISTRY[cls.name] = cls
    return cls


def _history(rows, split: str, held_out: str = "", final: bool = False) -> list[tuple[int, float]]:
    """(epoch, accuracy) of each history line of one split, in line order (accuracy NaN: not measured that
    epoch); ``final``: the final predictions' row of the whole split instead."""
    epoch, acc = rows["epoch"].to_numpy(), rows["acc"].to_numpy()  # numpy: a rule runs once per run and rule
    k = ((epoch == FINAL) == final) & (rows["split"].to_numpy() == split) & (rows["held_out"].to_numpy() == held_out)
    if final:
        k &= (rows["team"].to_numpy() == "") & (rows["label"].to_numpy() == "")
    return list(zip(epoch[k].tolist(), acc[k].tolist()))


def _epochs(rows) -> list[tuple[int, float, float]] | None:
    """(epoch, val, test) of the run's history when every line recorded both accuracies; else None."""
    epochs = [(e, v, t) for (e, v), (_, t) in zip(_history(rows, "val"), _history(rows, "test"))]
    return epochs if epochs and all(v == v and t == t for _, v, t in epochs) else None


def _rows(fold: str, history: list, protocol: str = "TOTO", val: int = 9, test: int = 7, train_teams=None,
          held_out=()) -> object:
    """One run's rows for the examples: 10 val and 10 test images (``val``, ``test``: how many are right);
    ``held_out``: (team, history) of its held-out runs."""
    held = [Run("p", "agrieval", protocol, "net", t, [], {}, {}, history=h) for t, h in held_out]
    return Records.from_runs([Run("p", "agrieval", protocol, "net", fold, list(train_teams or [fold]),
                                  {"val": 10, "test": 10}, {"val": val, "test": test}, history=history,
                                  held_out=held)]).frame


@_register
class TrainingTeamVal(SelectionRule):
    """``training_team_val`` (the paper's): the epoch with the best accuracy on the training team(s)' own
    validation split. The run restored that epoch and predicted every split, so the numbers are those of its
    ``predictions.csv`` (epoch None): the paper's tables are this rule's, unchanged.

    >>> TrainingTeamVal().choose(_rows("t1", [], val=9, test=7))
    Selected(epoch=None, val=90.0, test=70.0)
    """

    name = "training_team_val"
    text = "best val accuracy on the training team(s)' own split (the paper's rule)"

    def choose(self, rows) -> Selected | None:
        (val,), (test,) = (_history(rows, s, final=True) for s in ("val", "test"))
        return Selected(None, val[1], test[1])


@_register
class LastEpoch(SelectionRule):
    """``last_epoch``: the last epoch trained, from ``history.jsonl``: no selection at all.

    >>> h = [{"epoch": 1, "val": 80.0, "test": 60.0}, {"epoch": 2, "val": 70.0, "test": 65.0}]
    >>> LastEpoch().choose(_rows("t1", h))
    Selected(epoch=2, val=70.0, test=65.0)
    >>> LastEpoch().choose(_rows("t1", [{"epoch": 1, "val": 80.0}])) is None  # no per-epoch test accuracy
    True
    """

    name = "last_epoch"
    text = "the last epoch trained (no selection)"

    def choose(self, rows) -> Selected | None:
        epochs = _epochs(rows)
        return None if epochs is None else Selected(*max(epochs, key=lambda h: h[0]))


@_register
class OracleTest(SelectionRule):
    """``oracle_test``: the epoch with the best accuracy on the test team(s), from ``history.jsonl``. It peeks
    at the target, so it is an upper bound, never a result (DomainBed's test-domain validation); the gap
    ``oracle_test - training_team_val`` is what selecting on the training teams costs. Ties: the first epoch.

    >>> h = [{"epoch": 1, "val": 80.0, "test": 60.0}, {"epoch": 2, "val": 90.0, "test": 75.0},
    ...      {"epoch": 3, "val": 95.0, "test": 75.0}]
    >>> OracleTest().choose(_rows("t1", h))
    Selected(epoch=2, val=90.0, test=75.0)
    """

    name = "oracle_test"
    text = "best accuracy on the test team(s): an upper bound that peeks at the target"

    def choose(self, rows) -> Selected | None:
        epochs = _epochs(rows)
        return None if epochs is None else Selected(*max(epochs, key=lambda h: (h[2], -h[0])))


@_register
class LeaveOneTeamOut(SelectionRule):
    """``leave_one_team_out`` (DomainBed's leave-one-domain-out; LOTO only, ``ctv report --lodo``): each
    training team h of the fold is held out in turn by a run of its own, trained on the other training teams
    (``agrieval data splits --without-team T``, then the usual runs); the epoch e maximising the mean held-out
    accuracy (1/|H|) sum_h acc_h(e) is chosen, and the fold's run is read at e. Nothing of the fold's test team
    is looked at. Epochs count when every held-out run and the fold's run recorded them; None without a
    held-out run for every training team.

    >>> fold = _rows("T", [{"epoch": 1, "val": 90.0, "test": 50.0}, {"epoch": 2, "val": 95.0, "test": 40.0}],
    ...              protocol="LOTO", train_teams=["h1", "h2"],
    ...              held_out=[("h1", [{"epoch": 1, "test": 70.0}, {"epoch": 2, "test": 60.0}]),
    ...                        ("h2", [{"epoch": 1, "test": 60.0}, {"epoch": 2, "test": 66.0}])])
    >>> LeaveOneTeamOut().choose(fold)  # means 65.0 and 63.0: epoch 1, although val is best at 2
    Selected(epoch=1, val=90.0, test=50.0)
    """

    name = "leave_one_team_out"
    text = ("best mean accuracy over the training teams, each held out in turn by a run of its own (LOTO only; "
            "DomainBed's leave-one-domain-out)")
    lodo = True

    def choose(self, rows) -> Selected | None:
        teams = list(dict.fromkeys(t for t in values(rows, "held_out") if t))  # in the order they were attached
        if values(rows, "protocol")[0] != "LOTO" or not teams or set(teams) != set(values(rows, "train_teams")[0]):
            return None
        own = {e: (e, v, t) for (e, v), (_, t) in zip(_history(rows, "val"), _history(rows, "test")) if v == v and t == t}
        held = [{e: acc for e, acc in _history(rows, "test", team) if acc == acc} for team in teams]
        common = set(own).intersection(*held)
        if not common:
            return None
        best = max(sorted(common), key=lambda e: (sum(acc[e] for acc in held) / len(held), -e))
        return Selected(*own[best])


PAPER_RULE = TrainingTeamVal.name
LODO_RULE = LeaveOneTeamOut.name
RULES: dict[str, str] = {name: cls.text for name, cls in REGISTRY.items() if not cls.lodo}
ALL_RULES: dict[str, str] = {name: cls.text for name, cls in REGISTRY.items()}


def rules_for(rows, protocol: str | None = None) -> dict:
    """The rules a report names over these rows of the record table: ``RULES``, and ``leave_one_team_out`` when
    some (LOTO) run has held-out runs (for ``protocol`` TOTO never: no training team is held out there)."""
    lodo = protocol in (None, "LOTO") and bool((rows["held_out"] != "").any())
    return dict(ALL_RULES) if lodo else dict(RULES)


def select(rows, rule: str) -> Selected | None:
    """One run's val and test accuracy (percent) under ``rule``, from its rows of the record table; None when
    its history cannot say."""
    if rule not in REGISTRY:
        raise ValueError(f"unknown selection rule {rule!r}; choose from {', '.join(RULES)}")
    return REGISTRY[rule]().choose(rows)
