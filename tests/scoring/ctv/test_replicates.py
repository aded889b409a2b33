"""Replicates, selection rules, worst groups and accuracy on the line in ``ctv report``, each number checked
against a computation written here from the generated outcomes (numpy/scipy), never from the report's code."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from agrieval.scoring.ctv.report import build_report

TEAMS = ["t1", "t2", "t3", "t4"]
CLASSES = ["chene", "frene", "tipu"]
SEEDS = [42, 43, 44]
EPOCHS = 4


def _make_tree(root: Path, rng: np.random.Generator) -> dict:
    """Random runs; returns the truth: per run, the per-(team, split) correctness and the history."""
    truth = {}
    for seed in SEEDS:
        for protocol in ("TOTO", "LOTO"):
            for arch in ("net_a", "net_b"):
                for fold in TEAMS:
                    others = [t for t in TEAMS if t != fold]
                    val_teams, test_teams = ([fold], others) if protocol == "TOTO" else (others, [fold])
                    rows, items = [], []
                    skill = rng.uniform(0.3, 0.9)
                    for split, teams in (("val", val_teams), ("test", test_teams)):
                        for team in teams:
                            for k in range(int(rng.integers(6, 12))):
                                true = CLASSES[k % 3]
                                ok = rng.random() < skill * (0.6 if true == "tipu" else 1.0)
                                pred = true if ok else CLASSES[(k + 1) % 3]
                                rows.append([f"{team}/{split}/{k}.jpg", team, split, true, pred, "0.5"])
                                items.append((split, team, true, ok))
                    d = root / f"seed-{seed}" / protocol.lower() / arch / fold
                    d.mkdir(parents=True)
                    with (d / "predictions.csv").open("w", newline="") as fh:
                        w = csv.writer(fh)
                        w.writerow(["image_id", "team", "split", "true_label", "predicted_label", "confidence"])
                        w.writerows(rows)
                    history = [{"epoch": e, "val_acc": float(rng.uniform(0.2, 0.95)),
                                "test_acc": float(rng.uniform(0.1, 0.9))} for e in range(1, EPOCHS + 1)]
                    (d / "history.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))
                    (d / "run.json").write_text(json.dumps({"protocol": protocol.lower(), "arch": arch, "fold": fold,
                                                            "train_teams": val_teams, "base_seed": seed}))
                    truth[(seed, protocol, arch, fold)] = (items, history)
    return truth


def _acc(items, split, team=None, cls=None):
    sel = [ok for s, t, c, ok in items if s == split and (team is None or t == team) and (cls is None or c == cls)]
    return 100.0 * sum(sel) / len(sel)


def _interval(values):
    x = np.array(values)
    m, se = x.mean(), stats.sem(x)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=m, scale=se)
    return m, se, lo, hi


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("replicates")
    truth = _make_tree(root / "runs", np.random.default_rng(46))
    build_report(root / "runs", root / "report", plots=True)
    return truth, json.loads((root / "report" / "summary.json").read_text()), root / "report"


def _entry(summary, protocol, arch, rule):
    return next(e for e in summary["over_seeds"] if (e["protocol"], e["arch"], e["rule"]) == (protocol, arch, rule))


def _check(stat, values):
    m, se, lo, hi = _interval(values)
    assert stat["n_seeds"] == len(values)
    assert stat["per_seed"] == pytest.approx(values, abs=1e-8)
    assert (stat["mean"], stat["se"], stat["ci_low"], stat["ci_high"]) == pytest.approx((m, se, lo, hi), abs=1e-8)


@pytest.mark.parametrize("protocol", ["TOTO", "LOTO"])
@pytest.mark.parametrize("arch", ["net_a", "net_b"])
def test_over_seeds_under_each_rule_agrees_with_numpy(study, protocol, arch):
    truth, summary, _ = study
    runs = {s: [truth[(s, protocol, arch, f)] for f in TEAMS] for s in SEEDS}
    paper = {s: [(_acc(i, "val"), _acc(i, "test")) for i, _ in runs[s]] for s in SEEDS}
    last = {s: [(100 * h[-1]["val_acc"], 100 * h[-1]["test_acc"]) for _, h in runs[s]] for s in SEEDS}
    oracle = {}
    for s in SEEDS:
        oracle[s] = []
        for _, h in runs[s]:
            best = max(range(len(h)), key=lambda k: (h[k]["test_acc"], -k))  # first epoch of the best
            oracle[s].append((100 * h[best]["val_acc"], 100 * h[best]["test_acc"]))
    paper_test = [np.mean([t for _, t in paper[s]]) for s in SEEDS]
    for rule, chosen in (("training_team_val", paper), ("last_epoch", last), ("oracle_test", oracle)):
        e = _entry(summary, protocol, arch, rule)
        assert e["interval"] == "student_t_over_seeds" and e["seeds"] == SEEDS and e["n_runs_without"] == 0
        test = [np.mean([t for _, t in chosen[s]]) for s in SEEDS]
        val = [np.mean([v for v, _ in chosen[s]]) for s in SEEDS]
        _check(e["metrics"]["test_acc"], test)
        _check(e["metrics"]["val_acc"], val)
        _check(e["metrics"]["vtg"], list(np.array(val) - np.array(test)))
        if rule == "training_team_val":
            assert "gap_to_paper_rule" not in e["metrics"]
        else:
            _check(e["metrics"]["gap_to_paper_rule"], list(np.array(test) - np.array(paper_test)))
    assert _entry(summary, protocol, arch, "oracle_test")["metrics"]["test_acc"]["mean"] >= \
        _entry(summary, protocol, arch, "last_epoch")["metrics"]["test_acc"]["mean"]


@pytest.mark.parametrize("protocol", ["TOTO", "LOTO"])
def test_worst_team_and_class_agree_with_numpy(study, protocol):
    truth, summary, _ = study
    e = _entry(summary, protocol, "net_a", "training_team_val")
    worst_team, worst_class, names = [], [], []
    for s in SEEDS:
        items = [truth[(s, protocol, "net_a", f)][0] for f in TEAMS]
        team_means = {t: np.mean([_acc(i, "test", team=t) for i in items if any(x[1] == t and x[0] == "test"
                                                                                 for x in i)]) for t in TEAMS}
        worst_team.append(min(team_means.values()))
        names.append(min(team_means, key=team_means.get))
        worst_class.append(min(np.mean([_acc(i, "test", cls=c) for i in items]) for c in CLASSES))
    _check(e["metrics"]["worst_team_acc"], worst_team)
    _check(e["metrics"]["worst_class_acc"], worst_class)
    assert e["worst_team_per_seed"] == names
    assert set(e["worst_class_per_seed"]) <= set(CLASSES)


def test_the_paper_rule_is_the_per_team_table(study):
    """results.csv (what summarize reads) holds the mean over seeds per team, under the paper's rule."""
    truth, summary, out = study
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert len(rows) == 2 * 2 * len(TEAMS)
    for r in rows:
        expect = np.mean([_acc(truth[(s, r["protocol"], r["arch"], r["team"])][0], "test") for s in SEEDS])
        assert float(r["test_acc"]) == pytest.approx(expect, abs=1e-8)
    runs = list(csv.DictReader((out / "runs.csv").open()))
    assert sorted({r["seed"] for r in runs}) == [str(s) for s in SEEDS]


def test_accuracy_on_the_line_agrees_with_scipy(study):
    truth, summary, out = study
    fits = {f["protocol"]: f for f in summary["accuracy_on_the_line"]["fits"]}
    assert list(fits) == ["TOTO", "LOTO"]
    for protocol, fit in fits.items():
        pts = [(arch, 100 * h["val_acc"], 100 * h["test_acc"]) for (s, p, arch, f), (_, hist) in truth.items()
               if p == protocol for h in hist]
        x = stats.norm.ppf(np.clip([v for _, v, _ in pts], 0.1, 99.9) / 100)
        y = stats.norm.ppf(np.clip([t for _, _, t in pts], 0.1, 99.9) / 100)
        lr = stats.linregress(x, y)
        assert fit["n_points"] == len(pts) == len(SEEDS) * 2 * len(TEAMS) * EPOCHS
        assert (fit["slope"], fit["intercept"], fit["r2"]) == pytest.approx((lr.slope, lr.intercept, lr.rvalue ** 2),
                                                                            abs=1e-8)
        for a in fit["archs"]:
            k = np.array([arch == a["arch"] for arch, _, _ in pts])
            tests = np.array([t for _, _, t in pts])[k]
            er = np.mean(tests - 100 * stats.norm.cdf(lr.slope * x[k] + lr.intercept))
            assert a["effective_robustness"] == pytest.approx(er, abs=1e-8)
            assert a["effective_robustness_probit"] == pytest.approx(
                np.mean(y[k] - (lr.slope * x[k] + lr.intercept)), abs=1e-8)
    assert (out / "plots" / "accuracy_on_the_line.png").is_file()
    text = (out / "report.md").read_text()
    assert "## Accuracy on the line" in text and "## Replicates, selection rules and worst groups" in text
    assert len(list(csv.DictReader((out / "on_the_line.csv").open()))) == 2 * len(SEEDS) * 2 * len(TEAMS) * EPOCHS


def test_one_seed_gives_no_interval_and_a_rule_without_history_no_number(tmp_path):
    from tests.scoring.ctv.run_folders import write_run

    for fold in ("a", "b", "c"):
        others = [t for t in ("a", "b", "c") if t != fold]
        outcomes = {(fold, "val"): (3, 4), **{(t, "test"): (1, 4) for t in others}}
        write_run(tmp_path / "runs", "toto", "net", fold, outcomes, {"base_seed": 7})
    build_report(tmp_path / "runs", tmp_path / "report")
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    paper = _entry(summary, "TOTO", "net", "training_team_val")
    assert paper["metrics"]["test_acc"]["mean"] == 25.0 and paper["metrics"]["test_acc"]["se"] is None
    last = _entry(summary, "TOTO", "net", "last_epoch")
    assert last["metrics"] == {} and last["n_runs_without"] == 3
    assert "3 of 3 runs have no per-epoch test accuracy" in (tmp_path / "report" / "report.md").read_text()
    # the runs that lack it are named, in summary.json's warnings and the report's Warnings section
    assert last["runs_without"] == ["TOTO/net/a (seed 7)", "TOTO/net/b (seed 7)", "TOTO/net/c (seed 7)"]
    named = [w for w in summary["warnings"] if w.startswith("last_epoch: TOTO/net: no number")]
    assert len(named) == 1 and named[0].endswith("TOTO/net/a (seed 7), TOTO/net/b (seed 7), TOTO/net/c (seed 7)")
    assert "--eval-test-every-epoch" in named[0]
    assert any(w.startswith("oracle_test: TOTO/net: no number") for w in summary["warnings"])
    report = (tmp_path / "report" / "report.md").read_text()
    assert "last_epoch: TOTO/net: no number, 3 of 3 runs lack" in report


def test_the_documented_json_names_are_the_reports(study):
    """docs/ctv_reporting.md lists the stable names of summary.json; each is in the report, and each metric,
    rule and fit field the report writes is named there."""
    import re

    from agrieval.scoring.ctv._over_seeds import METRICS
    from agrieval.scoring.ctv._selection_rules import RULES

    _, summary, _ = study
    doc = (Path(__file__).resolve().parents[3] / "docs" / "ctv_reporting.md").read_text(encoding="utf-8")
    table = doc.split("## Stable names", 1)[1]
    documented = re.findall(r"^\| `([a-z_]+)", table, flags=re.M)
    assert documented and all(k in summary for k in documented), documented
    names = set(re.findall(r"`([a-z_0-9.]+)`", table))
    assert set(METRICS) <= names and set(RULES) <= names
    entry = summary["over_seeds"][0]
    per_seed_names = {"worst_team_per_seed", "worst_class_per_seed"}  # documented as over_seeds[].<name>
    assert set(entry) - {"metrics", "protocol", "arch", "rule"} <= names | per_seed_names
    assert all(f"over_seeds[].{n}" in table or f"`{n}`" in table for n in per_seed_names)
    assert set(entry["metrics"]["test_acc"]) <= names
    fit = summary["accuracy_on_the_line"]["fits"][0]
    assert set(fit) - {"protocol", "archs"} <= names and set(fit["archs"][0]) <= names


def test_one_seed_per_fold_keeps_the_paper_tables(tmp_path):
    """The examples (agrieval runs without a recorded seed beside the public script's tree) are one seed per
    fold: no Seed column, no interval, and results.csv is the runs' own numbers."""
    examples = Path(__file__).resolve().parents[3] / "examples" / "ctv" / "runs"
    build_report(examples, tmp_path / "rep")
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "| Seed |" not in text and "seeds per fold" not in text and "Seeds: not recorded (1 per group)" in text
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert all(e["seeds"] == [None] for e in summary["over_seeds"])
    runs = {(r["protocol"], r["arch"], r["fold"]): r for r in csv.DictReader((tmp_path / "rep" / "runs.csv").open())}
    for r in csv.DictReader((tmp_path / "rep" / "results.csv").open()):
        assert r["test_acc"] == runs[(r["protocol"], r["arch"], r["team"])]["test_acc"]


def test_every_figure_names_its_selection_rule(study):
    """A figure of one number per run says which rule chose the epoch; the line figure says it has none."""
    from agrieval.scoring.ctv import _plots as plots
    from agrieval.scoring.ctv._on_the_line import fit_lines, line_points
    from agrieval.scoring.ctv._paper_figures import split_accuracy
    from agrieval.scoring.ctv.cross_team_matrix import toto_matrices
    from agrieval.scoring.ctv.run_set import read_runs
    from agrieval.scoring.writing.figures import pyplot

    _, _, out = study
    runset = read_runs(out.parent / "runs")
    table = runset.results_table()
    figures = [plots.draw_heatmap(toto_matrices(runset.records)[0]), plots.draw_vtg_distribution(table),
               plots.draw_team_bars(table, "LOTO"), plots.draw_split_bars(split_accuracy(runset.records, {"TOTO": 0,
                                                                                                      "LOTO": 1}))]
    for fig in figures:
        assert any("model selection: training_team_val" in ax.get_title() for ax in fig.axes)
        pyplot().close(fig)
    pts = line_points(runset.records)
    fig = plots.draw_on_the_line(pts, fit_lines(pts))
    assert all(ax.get_title().endswith("no selection") for ax in fig.axes)
    pyplot().close(fig)


def _spreads(values):
    """The oracle: numpy's sample std (ddof 1), scipy's sem and Student-t interval."""
    x = np.array(values)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    return {"mean": x.mean(), "std": x.std(ddof=1), "se": stats.sem(x), "ci95": (hi - lo) / 2}


def test_every_mean_over_seeds_has_its_spread_as_numpy_computes_it(study):
    """team_over_seeds.csv: each per-team cell (val, test, VTG) and each cross-team cell, with all three spreads."""
    truth, _, out = study
    rows = {(r["protocol"], r["arch"], r["team"], r["test_team"], r["metric"]): r
            for r in csv.DictReader((out / "team_over_seeds.csv").open())}
    expected = {}
    for protocol in ("TOTO", "LOTO"):
        for arch in ("net_a", "net_b"):
            for fold in TEAMS:
                runs = [truth[(s, protocol, arch, fold)][0] for s in SEEDS]
                val, test = [_acc(i, "val") for i in runs], [_acc(i, "test") for i in runs]
                expected[(protocol, arch, fold, "", "val_acc")] = val
                expected[(protocol, arch, fold, "", "test_acc")] = test
                expected[(protocol, arch, fold, "", "vtg")] = [v - t for v, t in zip(val, test)]
                if protocol == "TOTO":
                    expected[(protocol, arch, fold, fold, "own_val_acc")] = val
                    for team in TEAMS:
                        if team != fold:
                            expected[(protocol, arch, fold, team, "cross_team_acc")] = [
                                _acc(i, "test", team=team) for i in runs]
    assert set(rows) == set(expected)
    for key, values in expected.items():
        want = _spreads(values)
        assert rows[key]["n_seeds"] == str(len(SEEDS))
        assert {k: float(rows[key][k]) for k in want} == pytest.approx(want, abs=1e-8), key


@pytest.mark.parametrize("spread", ["se", "std", "ci95"])
def test_the_tables_show_the_chosen_spread_and_say_which(study, tmp_path, spread):
    from click.testing import CliRunner

    from agrieval.scoring.cli.main import cli

    truth, _, out = study
    rep = tmp_path / "rep"
    res = CliRunner().invoke(cli, ["ctv", "report", str(out.parent / "runs"), "--out", str(rep), "--plots",
                                   "--spread", spread])
    assert res.exit_code == 0, res.output
    md = (rep / "report.md").read_text()
    said = {"se": "standard error", "std": "standard deviation (ddof 1)", "ci95": "95 % Student-t half-width"}[spread]
    # the per-team table: t1's TOTO net_a test cell; the matrix: t1 -> t2
    runs = [truth[(s, "TOTO", "net_a", "t1")][0] for s in SEEDS]
    team = _spreads([_acc(i, "test") for i in runs])
    cross = _spreads([_acc(i, "test", team="t2") for i in runs])
    per_team = md.split("### TOTO: per-team accuracy (%)")[1].split("###")[0]
    assert f"mean ± {said} over seeds (n=3 per cell)" in per_team
    row = next(line for line in per_team.splitlines() if line.startswith("| t1 |"))
    assert f"| {team['mean']:.2f} ± {team[spread]:.2f} |" in row
    matrix = md.split("## TOTO cross-team matrices")[1].split("### Agreement")[0]
    assert f"mean ± {said} over seeds" in matrix
    row = next(line for line in matrix.split("### net_a")[1].splitlines() if line.startswith("| t1 |"))
    assert row.split("|")[3].strip() == f"{cross['mean']:.2f} ± {cross[spread]:.2f}"
    assert f"Every cell below is mean ± {said}" in md
    assert json.loads((rep / "summary.json").read_text())["spread"] == spread


def test_the_bars_and_heatmaps_draw_the_spread(study):
    """The bars' error bars and the heatmap's in-cell text are the spread numpy computes; the titles say it."""
    from agrieval.scoring.ctv import _plots as plots
    from agrieval.scoring.ctv.cross_team_matrix import toto_matrices
    from agrieval.scoring.ctv.run_set import read_runs
    from agrieval.scoring.writing.figures import pyplot

    truth, _, out = study
    runset = read_runs(out.parent / "runs")
    fig = plots.draw_team_bars(runset.results_table(), "LOTO", "std")
    ax = fig.axes[0]
    assert "mean over seeds ± standard deviation (ddof 1)" in ax.get_title()
    segments = [seg for c in ax.collections for seg in getattr(c, "get_segments", lambda: [])() if len(seg) == 2]
    lengths = sorted(round(float(abs(seg[1][1] - seg[0][1])) / 2, 8) for seg in segments if seg[0][0] == seg[1][0])
    want = sorted(round(_spreads([_acc(truth[(s, "LOTO", a, t)][0], "test") for s in SEEDS])["std"], 8)
                  for a in ("net_a", "net_b") for t in TEAMS)
    assert lengths == want
    fig = plots.draw_heatmap(toto_matrices(runset.records)[0], spread="se")
    texts = [t.get_text() for t in fig.axes[0].texts]
    runs = [truth[(s, "TOTO", "net_a", "t1")][0] for s in SEEDS]
    cross = _spreads([_acc(i, "test", team="t2") for i in runs])
    assert f"{cross['mean']:.2f}\n± {cross['se']:.2f}" in texts
    assert "mean ± standard error over seeds" in fig.axes[0].get_title()
    pyplot().close("all")


def test_one_seed_shows_no_spread_and_says_n_1(tmp_path):
    examples = Path(__file__).resolve().parents[3] / "examples" / "ctv" / "runs"
    build_report(examples, tmp_path / "rep")
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "±" not in md.split("## Per-team tables")[1].split("## Summary")[0]
    assert md.count("One seed per cell (n=1): no spread over seeds.") == 2 + 1  # TOTO, LOTO, the matrices
    rows = list(csv.DictReader((tmp_path / "rep" / "team_over_seeds.csv").open()))
    assert rows and all(r["n_seeds"] == "1" and r["se"] == r["std"] == r["ci95"] == "" for r in rows)
