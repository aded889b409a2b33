"""Ties in the model-selection rules: the first epoch with the best value is chosen (selection_rules'
docstring), under every rule that compares epochs (scripts/mutation_check.py: ``oracle_epoch_tie_later``,
``lodo_epoch_tie_later``)."""

from __future__ import annotations

import pytest

from agrieval.scoring.ctv._records import Records
from agrieval.scoring.ctv._selection_rules import Selected, select
from agrieval.scoring.ctv.runs import Run


def run(fold, history, protocol="LOTO"):
    return Run("p", "agrieval", protocol, "a", fold, [], {}, {}, history=history)


def rows(run):
    """The run's rows of the record table: what a rule reads."""
    return Records.from_runs([run]).frame


@pytest.mark.parametrize("protocol", ["TOTO", "LOTO"])
def test_oracle_test_keeps_the_first_of_two_equal_epochs(protocol):
    r = run("T", [{"epoch": 1, "val": 80.0, "test": 60.0}, {"epoch": 2, "val": 85.0, "test": 70.0},
                  {"epoch": 3, "val": 90.0, "test": 70.0}, {"epoch": 4, "val": 95.0, "test": 65.0}], protocol)
    assert select(rows(r), "oracle_test") == Selected(2, 85.0, 70.0)


def test_leave_one_team_out_keeps_the_first_of_two_equal_epochs():
    fold = run("T", [{"epoch": 1, "val": 90.0, "test": 50.0}, {"epoch": 2, "val": 92.0, "test": 40.0},
                     {"epoch": 3, "val": 95.0, "test": 45.0}])
    fold.train_teams = ["h1", "h2"]
    # mean held-out accuracy: epoch 1 60, epoch 2 65, epoch 3 65 (a tie): epoch 2
    fold.held_out = [run("h1", [{"epoch": 1, "test": 70.0}, {"epoch": 2, "test": 60.0}, {"epoch": 3, "test": 66.0}]),
                     run("h2", [{"epoch": 1, "test": 50.0}, {"epoch": 2, "test": 70.0}, {"epoch": 3, "test": 64.0}])]
    assert select(rows(fold), "leave_one_team_out") == Selected(2, 92.0, 40.0)


def test_every_registered_rule_states_itself_with_a_worked_example_that_runs():
    """Each rule of the registry is a class whose docstring names the rule and holds an example; the examples
    pass (run here one class at a time, so a rule without one is named)."""
    import doctest

    from agrieval.scoring.ctv import _selection_rules as selection_rules
    from agrieval.scoring.ctv._selection_rules import ALL_RULES, REGISTRY

    assert set(REGISTRY) == set(ALL_RULES) == {"training_team_val", "last_epoch", "oracle_test",
                                                "leave_one_team_out"}
    for name, cls in REGISTRY.items():
        assert cls.name == name and f"``{name}``" in cls.__doc__
        tests = doctest.DocTestFinder(recurse=False).find(cls, name, module=selection_rules,
                                                          globs=vars(selection_rules))
        assert sum(len(t.examples) for t in tests) >= 1, f"{name} has no worked example"
        runner = doctest.DocTestRunner()
        for t in tests:
            runner.run(t)
        assert runner.summarize(verbose=False).failed == 0, name
