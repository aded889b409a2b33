"""Leave-one-team-out model selection in ``ctv report --lodo`` (DomainBed's leave-one-domain-out): the epoch
of each LOTO run is chosen from held-out runs alone, checked against a selection written here from the generated
histories (never the report's code); the fold's test team is never looked at, a missing held-out run gives no
number and a warning, and a fold name read from a run's files cannot lead the reader out of the --lodo folder."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from agrieval.scoring.cli.main import cli
from agrieval.scoring.ctv.report import build_report

TEAMS = ["t1", "t2", "t3", "t4"]
SEEDS = [42, 43]
EPOCHS = 5
RULE = "leave_one_team_out"


def _run(d: Path, protocol: str, fold: str, train: list, test: list, seed: int, history: list,
         rng: np.random.Generator) -> None:
    d.mkdir(parents=True)
    rows = [[f"{team}/{split}/{k}.jpg", team, split, "chene", "chene" if rng.random() < 0.7 else "tipu", "0.5"]
            for split, teams in (("val", train), ("test", test)) for team in teams for k in range(5)]
    with (d / "predictions.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["image_id", "team", "split", "true_label", "predicted_label", "confidence"])
        w.writerows(rows)
    (d / "history.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))
    (d / "run.json").write_text(json.dumps({"protocol": protocol, "arch": "net", "fold": fold, "train_teams": train,
                                            "base_seed": seed}))


def _history(rng) -> list:
    return [{"epoch": e, "val_acc": float(rng.uniform(0.3, 0.9)), "test_acc": float(rng.uniform(0.1, 0.9))}
            for e in range(1, EPOCHS + 1)]


@pytest.fixture()
def study(tmp_path):
    """Main LOTO and TOTO runs over 4 teams and 2 seeds; for each LOTO fold T, one held-out run per training
    team h under LODO/T (trained on the other training teams, tested on h)."""
    rng = np.random.default_rng(7)
    main, lodo, truth = tmp_path / "runs", tmp_path / "lodo", {}
    for seed in SEEDS:
        for fold in TEAMS:
            others = [t for t in TEAMS if t != fold]
            _run(main / f"seed-{seed}" / "toto" / "net" / fold, "toto", fold, [fold], others, seed, _history(rng), rng)
            own = _history(rng)
            _run(main / f"seed-{seed}" / "loto" / "net" / fold, "loto", fold, others, [fold], seed, own, rng)
            held = {}
            for h in others:
                rest = [t for t in others if t != h]
                held[h] = _history(rng)
                _run(lodo / fold / f"seed-{seed}" / "loto" / "net" / h, "loto", h, rest, [h], seed, held[h], rng)
            truth[(seed, fold)] = (own, held)
    return main, lodo, truth


def _expected(truth) -> dict:
    """Per seed: the mean over LOTO folds of the test accuracy (percent) at the chosen epoch, and of val."""
    out = {}
    for seed in SEEDS:
        tests, vals = [], []
        for fold in TEAMS:
            own, held = truth[(seed, fold)]
            mean_held = [np.mean([held[h][e]["test_acc"] for h in held]) for e in range(EPOCHS)]
            e = int(np.argmax(mean_held))  # the first of the best
            tests.append(100 * own[e]["test_acc"])
            vals.append(100 * own[e]["val_acc"])
        out[seed] = (float(np.mean(tests)), float(np.mean(vals)))
    return out


def test_the_rule_picks_the_epoch_of_the_best_held_out_mean_and_reads_the_fold_there(study, tmp_path):
    main, lodo, truth = study
    result = build_report(main, tmp_path / "report", lodo=lodo)
    assert RULE in result.extra["selection_rules"]
    entries = {(e["protocol"], e["rule"]): e for e in result.extra["over_seeds"]}
    assert ("TOTO", RULE) not in entries  # no training team is held out in TOTO
    got = entries[("LOTO", RULE)]
    assert got["n_runs_without"] == 0
    expected = _expected(truth)
    assert got["metrics"]["test_acc"]["per_seed"] == pytest.approx([expected[s][0] for s in SEEDS])
    assert got["metrics"]["val_acc"]["per_seed"] == pytest.approx([expected[s][1] for s in SEEDS])
    report = (tmp_path / "report" / "report.md").read_text()
    assert f"**{RULE}**" in report and "| LOTO | net | leave_one_team_out |" in report


def test_the_fold_test_team_is_never_looked_at(study, tmp_path):
    """Changing the fold's own per-epoch test accuracy changes the reported number only through the epoch
    the held-out runs chose, never the choice itself."""
    main, lodo, truth = study
    before = {e["rule"]: e for e in build_report(main, tmp_path / "a", lodo=lodo).extra["over_seeds"]
              if e["protocol"] == "LOTO"}[RULE]["metrics"]["test_acc"]["per_seed"]
    for seed in SEEDS:
        for fold in TEAMS:
            path = main / f"seed-{seed}" / "loto" / "net" / fold / "history.jsonl"
            rows = [json.loads(line) for line in path.read_text().splitlines()]
            own, held = truth[(seed, fold)]
            e = int(np.argmax([np.mean([held[h][k]["test_acc"] for h in held]) for k in range(EPOCHS)]))
            for k, row in enumerate(rows):
                if k != e:
                    row["test_acc"] = 1.0  # every other epoch perfect on the test team: the oracle would move
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    after = {e["rule"]: e for e in build_report(main, tmp_path / "b", lodo=lodo).extra["over_seeds"]
             if e["protocol"] == "LOTO"}[RULE]["metrics"]["test_acc"]["per_seed"]
    assert after == pytest.approx(before)


def test_a_missing_held_out_run_gives_no_number_and_a_warning(study, tmp_path):
    main, lodo, _ = study
    import shutil

    shutil.rmtree(lodo / "t2" / "seed-42" / "loto" / "net" / "t3")
    result = build_report(main, tmp_path / "report", lodo=lodo)
    entry = {(e["protocol"], e["rule"]): e for e in result.extra["over_seeds"]}[("LOTO", RULE)]
    assert entry["n_runs_without"] == 1 and entry["metrics"] == {}
    assert any("LOTO/net/t2 seed 42: no held-out run for t3" in w for w in result.warnings)
    assert "have no held-out run for every training team" in (tmp_path / "report" / "report.md").read_text()


def test_without_lodo_the_report_names_the_three_rules_only(study, tmp_path):
    main, _, _ = study
    result = build_report(main, tmp_path / "report")
    assert RULE not in result.extra["selection_rules"]
    assert all(e["rule"] != RULE for e in result.extra["over_seeds"])


def test_a_fold_name_cannot_lead_out_of_the_lodo_folder(study, tmp_path):
    """The fold name is read from run.json: joined under --lodo by the one rule for paths from files."""
    main, lodo, _ = study
    run = main / "seed-42" / "loto" / "net" / "t1"
    (run / "run.json").write_text((run / "run.json").read_text().replace('"fold": "t1"', '"fold": "../outside"'))
    predictions = (run / "predictions.csv").read_text()  # the test team's own name says the same
    (run / "predictions.csv").write_text(predictions.replace("t1/test/", "x/test/").replace(",t1,test,",
                                                                                         ",../outside,test,"))
    (tmp_path / "outside" / "seed-42" / "loto" / "net").mkdir(parents=True)
    res = CliRunner().invoke(cli, ["ctv", "report", str(main), "--lodo", str(lodo), "--out", str(tmp_path / "r")])
    assert res.exit_code == 1 and "[bad_run]" in res.output and "not a safe name" in res.output, res.output


def test_the_data_tools_make_the_held_out_splits(tmp_path):
    """`agrieval data splits --without-team T` leaves T out of the pool (same key, same ids); an unknown team
    is refused."""
    import pandas as pd

    from agrieval.data_tools.errors import DataError
    from agrieval.data_tools.splits import without

    df = pd.DataFrame({"team": ["a", "a", "b", "c"], "path": ["a/x/1", "a/x/2", "b/x/1", "c/x/1"]})
    assert sorted(without(df, "a")["team"]) == ["b", "c"]
    with pytest.raises(DataError) as err:
        without(df, "z")
    assert err.value.code == "bad_option" and "its teams: a, b, c" in err.value.message
    with pytest.raises(DataError):
        without(df[df["team"] != "c"], "a")  # one training team left: nothing to hold out


def test_the_worked_example_of_the_rule_holds():
    import doctest

    from agrieval.scoring.ctv import _selection_rules as selection_rules

    results = doctest.testmod(selection_rules)
    assert results.attempted >= 5 and results.failed == 0
