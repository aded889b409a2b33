"""Regenerate the bundled CTV example inputs (deterministic, seed 42).

The numbers are ILLUSTRATIVE, drawn to look like a CTV study (high in-team
validation accuracy, lower and more spread cross-team test accuracy under
TOTO, a smaller gap under LOTO); they are not the paper's results.

    python examples/ctv/make_examples.py

writes ``RESULTS.csv`` (12 teams x 2 archs x 2 protocols), ``loto_<arch>.csv``
(team, test_acc: two rankings for ``agrieval rank-agreement``) and ``runs/``: the
agrieval baselines layout ``runs/<protocol>/<arch>/<fold>/{run.json,predictions.csv}``
for 4 teams, plus ``runs/agri_script/CTV_TOTO_swin_epochs_20/``: one TOTO Swin
run in the public AgrI training script's own output layout (``results/``,
``predictions/`` with train rows, ``matrices/``, the summary JSON), as
``scoring/ctv/_script_runs.py`` describes it. Real outputs of the script are in
the project's shared ``real/agri_script/``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
TEAMS = [f"team{i:02d}" for i in range(1, 13)]
ARCHS = ["densenet121", "swin_tiny"]
CLASSES = ["caroubier", "chene", "faux_poivrier", "frene", "pistachier", "tipu"]


def results_table(rng: np.random.Generator) -> list[list]:
    skill = rng.uniform(-1, 1, len(TEAMS))  # a team's data quality, shared by both archs
    rows = []
    for protocol in ("TOTO", "LOTO"):
        for a, arch in enumerate(ARCHS):
            for t, team in enumerate(TEAMS):
                if protocol == "TOTO":
                    val = 97.5 + 1.5 * rng.uniform(-1, 1) + a * 0.4
                    test = 72 + 9 * skill[t] + 4 * a + rng.normal(0, 2.5)
                else:
                    val = 95.5 + 1.0 * rng.uniform(-1, 1) + a * 0.3
                    test = 86 + 4 * skill[t] + 2 * a + rng.normal(0, 1.5)
                rows.append([protocol, arch, team, round(min(val, 100), 2), round(min(test, 100), 2)])
    return rows


def predictions(rng, team_acc: dict[str, float], split_of: dict[str, str], n_per_team: int):
    out = []
    for team in sorted(team_acc):
        for k in range(n_per_team):  # noqa: B007
            true = CLASSES[int(rng.integers(len(CLASSES)))]
            correct = rng.random() < team_acc[team]
            pred = true if correct else CLASSES[(CLASSES.index(true) + 1 + int(rng.integers(5))) % 6]
            conf = round(float(rng.uniform(0.55, 0.99) if correct else rng.uniform(0.2, 0.7)), 4)
            out.append((f"{team}/{true}/{team}_{split_of[team]}_{k:03d}.jpg", team, split_of[team], true, pred, conf))
    return out


def write_csv(path: Path, header: list[str], rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def main() -> None:
    rng = np.random.default_rng(42)
    table = results_table(rng)
    write_csv(HERE / "RESULTS.csv", ["protocol", "arch", "team", "val_acc", "test_acc"], table)
    # two rankings of the same teams, for `agrieval rank-agreement`
    for arch in ARCHS:
        write_csv(HERE / f"loto_{arch}.csv", ["team", "test_acc"],
                  [[r[2], r[4]] for r in table if r[0] == "LOTO" and r[1] == arch])

    teams = TEAMS[:4]
    quality = dict(zip(teams, [0.9, 0.75, 0.6, 0.82]))
    header = ["image_id", "team", "split", "true_label", "predicted_label", "confidence"]
    for protocol in ("TOTO", "LOTO"):
        for a, arch in enumerate(ARCHS):
            for fold in teams:
                if protocol == "TOTO":
                    split_of = {t: "val" if t == fold else "test" for t in teams}
                    acc = {t: 0.97 if t == fold else (quality[t] + quality[fold]) / 2 - 0.1 + 0.04 * a for t in teams}
                    train = [fold]
                else:
                    split_of = {t: "test" if t == fold else "val" for t in teams}
                    acc = {t: 0.95 if t != fold else quality[t] + 0.03 * a for t in teams}
                    train = [t for t in teams if t != fold]
                preds = predictions(rng, acc, split_of, 40)
                run = HERE / "runs" / protocol / arch / fold
                write_csv(run / "predictions.csv", header, preds)
                val = [p[3] == p[4] for p in preds if p[2] == "val"]
                test = [p[3] == p[4] for p in preds if p[2] == "test"]
                meta = {"protocol": protocol, "arch": arch, "fold": fold, "train_teams": train,
                        "val_acc": sum(val) / len(val), "test_acc": sum(test) / len(test),
                        "seed": 42, "preset": "paper"}
                (run / "run.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    write_script_tree(rng, teams, quality)
    written = sorted(p for p in HERE.rglob("*") if p.is_file() and p.suffix in (".csv", ".json"))
    runs = sorted({p.parent for p in written if p.name == "run.json"})
    print(f"wrote {len(written)} files under {HERE.relative_to(HERE.parents[1])}/ (seed 42, the same bytes every "
          f"time): RESULTS.csv, {', '.join(f'loto_{a}.csv' for a in ARCHS)}, {len(runs)} agrieval run folders "
          "and one public-script output tree under runs/")
    print("try: agrieval ctv summarize examples/ctv/RESULTS.csv; agrieval ctv report examples/ctv/runs")


def write_script_tree(rng, teams: list[str], quality: dict[str, float]) -> None:
    """One TOTO Swin run of the public AgrI script, in its own output layout (``agrieval.scoring.ctv._script_runs``)."""
    import sys

    sys.path.insert(0, str(HERE.parents[1]))
    from agrieval.scoring.ctv._weighted_prf import weighted_prf

    tree = HERE / "runs" / "agri_script" / "CTV_TOTO_swin_epochs_20"
    prefix = "/data/agrichallenge/Dataset_w336_h336"
    header = ["file_path", "team", "split", "true_label", "predicted_label", "confidence", "correct"]
    results, matrix = {}, {}
    for fold in teams:
        acc = {t: 0.98 if t == fold else (quality[t] + quality[fold]) / 2 - 0.05 for t in teams}
        rows = []
        for split, members in (("train", [fold]), ("val", [fold]), ("test", [t for t in teams if t != fold])):
            n = {"train": 28, "val": 12, "test": 40}[split]
            for p in predictions(rng, {t: acc[t] for t in members}, {t: split for t in members}, n):
                # the script writes absolute paths, percent confidences and True/False
                path = f"{prefix}/{p[1]}/{p[3]}/{rng.integers(2**63):016x}.jpg"
                rows.append([path, p[1], split, p[3], p[4], f"{100 * p[5]:.5f}", str(p[3] == p[4])])
        tag = f"TOTO_swin_train{fold}"
        write_csv(tree / "predictions" / f"{tag}_predictions.csv", header, rows)
        test = [r for r in rows if r[2] == "test"]
        val = [r for r in rows if r[2] == "val"]
        prf = weighted_prf([r[3] for r in test], [r[4] for r in test])
        final = {"test_accuracy": 100.0 * sum(r[6] == "True" for r in test) / len(test),
                 "test_precision": prf["precision"] * 100, "test_recall": prf["recall"] * 100,
                 "test_f1": prf["f1"] * 100,
                 "best_val_accuracy": 100.0 * sum(r[6] == "True" for r in val) / len(val)}
        meta = {"scenario": "TOTO", "architecture": "swin", "train_team": fold,
                "test_teams": [t for t in teams if t != fold], "final_results": final}
        (tree / "results").mkdir(parents=True, exist_ok=True)
        (tree / "results" / f"{tag}_results.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        results[fold] = final
        matrix[fold] = {t: 100.0 * sum(r[6] == "True" for r in test if r[1] == t) / sum(r[1] == t for r in test)
                        for t in teams if t != fold}
    accs = [r["test_accuracy"] for r in results.values()]
    summary = {"scenario": "TOTO", "architecture": "swin", "results": results,
               "avg_accuracy": float(np.mean(accs)), "std_accuracy": float(np.std(accs))}
    (tree / "results" / "TOTO_swin_summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    write_csv(tree / "matrices" / "TOTO_swin_cross_team_matrix.csv", ["Train_Team"] + [f"Test_{t}" for t in teams],
              [[a] + ["" if a == b else repr(matrix[a][b]) for b in teams] for a in teams])


if __name__ == "__main__":
    main()
