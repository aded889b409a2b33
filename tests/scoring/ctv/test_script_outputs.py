"""ctv report on the public AgrI script's real output trees: every stored number reproduced to 1e-9,
mismatches named, one arch vocabulary with the kit's runs."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.metrics import precision_recall_fscore_support

from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.cli.main import cli
from agrieval.scoring.ctv._weighted_prf import weighted_prf
from agrieval.scoring.ctv.run_set import read_runs

REAL = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "real" / "agri_script"
TOTO = REAL / "CTV_TOTO_densenet_epochs_2"
LOTO = REAL / "CTV_LOTO_densenet_epochs_1"
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "ctv" / "runs"


def _csv(path: Path) -> list[dict]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "report"
    res = CliRunner().invoke(cli, ["ctv", "report", str(TOTO), str(LOTO), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out, res


def test_command_as_written_reads_both_trees(report):
    out, res = report
    assert "8 runs; 104 stored numbers checked, 0 disagree" in res.stdout
    # the script logs no per-epoch test accuracy: only the rules that need it warn, naming the runs
    warnings = [w for w in res.stderr.splitlines() if w.startswith("warning")]
    assert warnings and all(w.split(":")[1].strip() in ("last_epoch", "oracle_test") and "no number" in w
                            for w in warnings), warnings
    runs = _csv(out / "runs.csv")
    assert {(r["protocol"], r["arch"], r["arch_as_written"]) for r in runs} == {
        ("TOTO", "densenet121", "densenet"), ("LOTO", "densenet121", "densenet")}
    md = (out / "report.md").read_text()
    assert "All 104 numbers stored in 19 files agree" in md and "`densenet` → `densenet121`" in md


def test_every_stored_number_is_reproduced(report):
    """Independent recomputation from the raw files, compared with what the script stored and the report says."""
    out, _ = report
    runs = {(r["protocol"], r["fold"]): r for r in _csv(out / "runs.csv")}
    team_acc = {(r["protocol"], r["fold"], r["test_team"]): float(r["accuracy"])
                for r in _csv(out / "team_accuracy.csv")}
    for tree, scen in ((TOTO, "TOTO"), (LOTO, "LOTO")):
        summary = json.loads((tree / "results" / f"{scen}_densenet_summary.json").read_text())
        accs = []
        for path in sorted((tree / "results").glob("*_results.json")):
            meta = json.loads(path.read_text())
            fold = meta["train_team"] if scen == "TOTO" else meta["held_out_team"]
            pred = pd.read_csv(tree / "predictions" / path.name.replace("_results.json", "_predictions.csv"))
            assert (pred["correct"] == (pred["true_label"] == pred["predicted_label"])).all()
            test, val = pred[pred["split"] == "test"], pred[pred["split"] == "val"]
            p, r, f, _ = precision_recall_fscore_support(test["true_label"], test["predicted_label"],
                                                         average="weighted", zero_division=0)
            mine = {"test_accuracy": 100 * (test["true_label"] == test["predicted_label"]).mean(),
                    "test_precision": 100 * p, "test_recall": 100 * r, "test_f1": 100 * f,
                    "best_val_accuracy": 100 * (val["true_label"] == val["predicted_label"]).mean()}
            for key, value in mine.items():
                assert meta["final_results"][key] == pytest.approx(value, abs=1e-9), (path.name, key)
                assert summary["results"][fold][key] == pytest.approx(value, abs=1e-9)
            row = runs[(scen, fold)]
            assert float(row["test_acc"]) == pytest.approx(meta["final_results"]["test_accuracy"], abs=1e-9)
            assert float(row["val_acc"]) == pytest.approx(meta["final_results"]["best_val_accuracy"], abs=1e-9)
            train = pred[pred["split"] == "train"]
            train_acc = 100 * (train["true_label"] == train["predicted_label"]).mean()
            assert float(row["train_acc"]) == pytest.approx(train_acc, abs=1e-9)
            accs.append(float(row["test_acc"]))
        assert summary["avg_accuracy"] == pytest.approx(np.mean(accs), abs=1e-9)
        assert summary["std_accuracy"] == pytest.approx(np.std(accs, ddof=0), abs=1e-9)
    with (TOTO / "matrices" / "TOTO_densenet_cross_team_matrix.csv").open() as fh:
        for row in csv.DictReader(fh):
            for col, cell in row.items():
                if col == "Train_Team":
                    continue
                test_team = col[len("Test_"):]
                if test_team == row["Train_Team"]:
                    assert cell == ""
                else:
                    assert float(cell) == pytest.approx(team_acc[("TOTO", row["Train_Team"], test_team)], abs=1e-9)
    checks = _csv(out / "cross_check.csv")
    assert len(checks) == 104 and all(c["agrees"] == "yes" for c in checks)
    assert {c["quantity"] for c in checks} >= {"avg_accuracy", "std_accuracy (ddof 0)", "cell team02 -> team04",
                                               "final_results.best_val_accuracy", "results.team03.test_f1"}


def test_summary_statistics_follow_the_paper_ddofs(report):
    out, _ = report
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ddof"] == {"TOTO": 0, "LOTO": 1}
    script_summary = json.loads((LOTO / "results" / "LOTO_densenet_summary.json").read_text())
    accs = [v["test_accuracy"] for v in script_summary["results"].values()]
    g = next(g for g in summary["groups"] if g["protocol"] == "LOTO")
    assert g["test_acc"]["std"] == pytest.approx(np.std(accs, ddof=1), abs=1e-9)  # Table 7: sample std
    toto = next(g for g in summary["groups"] if g["protocol"] == "TOTO")
    assert toto["test_acc"]["std"] == pytest.approx(
        json.loads((TOTO / "results" / "TOTO_densenet_summary.json").read_text())["std_accuracy"], abs=1e-9)
    splits = {(s["protocol"]): s for s in summary["split_accuracy"]}
    assert splits["TOTO"]["train"]["n_runs"] == 4 and splits["LOTO"]["ddof"] == 1


def test_mismatches_are_warnings_naming_file_and_both_values(tmp_path):
    tree = tmp_path / "CTV_TOTO_densenet_epochs_2"
    shutil.copytree(TOTO, tree)
    res_file = tree / "results" / "TOTO_densenet_trainteam02_results.json"
    meta = json.loads(res_file.read_text())
    meta["final_results"]["best_val_accuracy"] = 45.45454545454545  # as e736f7e: best epoch's val, last epoch's weights
    res_file.write_text(json.dumps(meta, indent=2))
    matrix = tree / "matrices" / "TOTO_densenet_cross_team_matrix.csv"
    matrix.write_text(matrix.read_text().replace("31.428571428571427", "31.4"))
    out = tmp_path / "rep"
    res = CliRunner().invoke(cli, ["ctv", "report", str(tree), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (f"{res_file}: final_results.best_val_accuracy: stored 45.45454545454545, recomputed from the predictions "
            "36.36363636363637") in res.stderr
    assert "e736f7e" in res.stderr
    assert f"{matrix}: cell team02 -> team04: stored 31.4, recomputed from the predictions 31.428571428571427" \
        in res.stderr
    assert "2 of 58 numbers stored in 10 files disagree" in (out / "report.md").read_text()
    runs = _csv(out / "runs.csv")  # the recomputed value is used
    assert float(next(r for r in runs if r["fold"] == "team02")["val_acc"]) == pytest.approx(400 / 11, abs=1e-9)


def test_script_and_kit_runs_share_one_vocabulary(tmp_path):
    kit = tmp_path / "kit" / "TOTO" / "densenet121" / "team01"
    kit.mkdir(parents=True)
    pred = pd.read_csv(TOTO / "predictions" / "TOTO_densenet_trainteam01_predictions.csv")
    frame = pd.DataFrame({"image_id": pred["file_path"].str.split("/").str[-3:].str.join("/"), "team": pred["team"],
                          "split": pred["split"], "true_label": pred["true_label"],
                          "predicted_label": pred["predicted_label"], "confidence": pred["confidence"] / 100})
    frame.to_csv(kit / "predictions.csv", index=False)
    (kit / "run.json").write_text(json.dumps({"protocol": "toto", "arch": "densenet121", "fold": "team01"}))
    # the same fold run by the script and by the kit: side by side, one group per layout
    both = read_runs([TOTO, tmp_path / "kit"])
    assert sorted({r.arch for r in both.runs}) == ["densenet121 (agri_script)", "densenet121 (agrieval)"]
    kit_run = next(r for r in both.runs if r.layout == "agrieval")
    script_run = next(r for r in both.runs if r.fold == "team01" and r.layout == "agri_script")
    assert kit_run.pct("test") == script_run.pct("test")  # the same predictions, read through both layouts
    dup = tmp_path / "dup" / "TOTO" / "densenet" / "team01"  # the same layout twice is an error
    shutil.copytree(kit, dup)
    with pytest.raises(InputError) as info:
        read_runs([tmp_path / "kit", tmp_path / "dup"])
    assert info.value.code == "bad_run" and "'densenet121' and 'densenet121' are both 'densenet121'" in \
        info.value.message
    rs = read_runs([LOTO, tmp_path / "kit"])  # kit TOTO + script LOTO: one arch, both protocols
    assert {(r.protocol, r.arch, r.layout) for r in rs.runs} == {("TOTO", "densenet121", "agrieval"),
                                                                ("LOTO", "densenet121", "agri_script")}
    assert rs.results_table().archs() == ["densenet121"]


def test_bundled_script_example_is_the_real_layout(tmp_path):
    tree = EXAMPLE / "agri_script" / "CTV_TOTO_swin_epochs_20"
    for sub in ("results", "predictions", "matrices"):
        assert (tree / sub).is_dir()
    real_header = (TOTO / "predictions" / "TOTO_densenet_trainteam01_predictions.csv").open().readline()
    assert (tree / "predictions" / "TOTO_swin_trainteam01_predictions.csv").open().readline() == real_header
    real_keys = set(json.loads((TOTO / "results" / "TOTO_densenet_trainteam01_results.json").read_text()))
    assert set(json.loads((tree / "results" / "TOTO_swin_trainteam01_results.json").read_text())) == real_keys
    rs = read_runs(tree)
    assert {r.arch for r in rs.runs} == {"swin_base"} and len(rs.checks) == 4 * 5 + 4 + 4 * 5 + 2 + 12
    assert all(c.ok for c in rs.checks) and not rs.warnings


def test_weighted_prf_equals_sklearn():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(1, 40))
        t = rng.choice(list("abcdef"), n)
        p = rng.choice(list("abcdefg"), n)
        mine = weighted_prf(t, p)
        ref = precision_recall_fscore_support(t, p, average="weighted", zero_division=0)
        assert [mine["precision"], mine["recall"], mine["f1"]] == pytest.approx(list(ref[:3]), abs=1e-12)


def test_bad_script_json_names_the_file(tmp_path):
    tree = tmp_path / "t"
    shutil.copytree(LOTO, tree)
    f = tree / "results" / "LOTO_densenet_heldoutteam03_results.json"
    meta = json.loads(f.read_text())
    del meta["held_out_team"]
    f.write_text(json.dumps(meta))
    with pytest.raises(InputError) as info:
        read_runs(tree)
    assert info.value.code == "bad_json" and info.value.file == str(f) and "held_out_team" in info.value.message
    meta["held_out_team"] = "team02"  # contradicts the predictions
    f.write_text(json.dumps(meta))
    with pytest.raises(InputError) as info:
        read_runs(tree)
    assert info.value.code == "bad_run" and "'team02'" in info.value.message
