"""Regenerate the bundled reference solutions and submissions, and their expected scores.

Run from the repository root: ``python reference_submissions/make_reference.py``.
The expected scores are computed here with plain Python sets and dicts, on purpose
independent of the ``scoring`` package that the tests check against them; two of
them are also worked out by hand in ``reference_submissions/README.md``.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parent

# Real species ids from the organisers' class mapping.
SPECIES = [1355868, 1355869, 1355870, 1356275, 1359835, 1360187, 1361284, 1362443, 1363328, 1392059,
           1392608, 1394643, 1394911, 1395807, 1412857]
WRONG = [1742052, 1741880, 1397463]  # valid ids that no quadrat here contains
# (transect, number of surveys): unequal sizes so that transect F1 differs from sample F1.
TRANSECTS = [("CBN-PdlC-A1", 2), ("CBN-Pla-B2", 3), ("CBN-can-F4", 4), ("GUARDEN-AMB-CF04-1-10", 5),
             ("LISAH-BOU-0-10", 6), ("OPTMix-0108-P1-312", 2), ("RNNB-1-1", 3), ("RNNB-2-4", 4),
             ("LISAH-PEC-3-16", 5), ("GUARDEN-CBNMed-9-8-16-08", 6)]
DATES = ["20230512", "20230706", "20231006", "20240325", "20240502", "20240602"]


# ---------------------------------------------------------------- PlantCLEF 2025
def plantclef_solution() -> list[dict]:
    rows, k = [], 0
    for t, n in TRANSECTS:
        for j in range(n):
            size = [2, 3, 4, 5][k % 4]
            truth = [SPECIES[(k + i) % len(SPECIES)] for i in range(size)]
            if k == 17:  # one bare quadrat: empty truth
                truth = []
            rows.append({"quadrat_id": f"{t}-{DATES[j]}", "truth": truth, "transect": t,
                         "usage": "Public" if k % 2 == 0 else "Private"})
            k += 1
    return rows


def f1(truth: list[int], pred: list[int]) -> float:
    t, p = set(truth), set(pred)
    if not t and not p:
        return 1.0
    return 2 * len(t & p) / (len(t) + len(p))


def plantclef_metrics(rows: list[dict], preds: dict[str, list[int]], usage: str) -> dict[str, float]:
    sel = [r for r in rows if r["usage"] == usage]
    scores = {r["quadrat_id"]: f1(r["truth"], preds[r["quadrat_id"]]) for r in sel}
    by_transect: dict[str, list[float]] = {}
    for r in sel:
        by_transect.setdefault(r["transect"], []).append(scores[r["quadrat_id"]])
    tp = sum(len(set(r["truth"]) & set(preds[r["quadrat_id"]])) for r in sel)
    nt = sum(len(set(r["truth"])) for r in sel)
    npred = sum(len(set(preds[r["quadrat_id"]])) for r in sel)
    classes = sorted({c for r in sel for c in r["truth"]} | {c for r in sel for c in preds[r["quadrat_id"]]})
    per_class = []
    for c in classes:
        tc = sum(c in r["truth"] for r in sel)
        pc = sum(c in preds[r["quadrat_id"]] for r in sel)
        tpc = sum(c in r["truth"] and c in preds[r["quadrat_id"]] for r in sel)
        per_class.append(2 * tpc / (tc + pc))
    prec, rec = [], []
    for r in sel:
        t, p = set(r["truth"]), set(preds[r["quadrat_id"]])
        if not t and not p:
            prec.append(1.0)
            rec.append(1.0)
        else:
            prec.append(len(t & p) / len(p) if p else 0.0)
            rec.append(len(t & p) / len(t) if t else 0.0)
    return {
        "transect_f1": mean(mean(v) for v in by_transect.values()),
        "sample_f1": mean(scores.values()),
        "micro_f1": 2 * tp / (nt + npred),
        "macro_f1": mean(per_class),
        "sample_precision": mean(prec),
        "sample_recall": mean(rec),
    }


def write_csv(path: Path, header: list[str], rows: list[list], *, delimiter: str = ",", quote_all: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, delimiter=delimiter, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL,
                       lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def shuffled(rows: list[dict], key: str) -> list[dict]:
    """The solution's rows by a hash of their id: its order then follows neither the classes nor the split (rows
    built class by class with the split alternating, as below, gave both away to anyone reading ids in order)."""
    return sorted(rows, key=lambda r: hashlib.sha256(r[key].encode()).hexdigest())


def lst(x: list[int]) -> str:
    return "[" + ", ".join(map(str, x)) + "]"


def make_plantclef() -> dict:
    out = ROOT / "plantclef2025"
    rows = plantclef_solution()
    write_csv(out / "solution.csv", ["quadrat_id", "species_ids", "Usage"],
              [[r["quadrat_id"], lst(r["truth"]), r["usage"]] for r in shuffled(rows, "quadrat_id")])
    common = [1392608, 1395807, 1394643, 1412857, 1394911]  # the five most frequent species of a real run
    subs = {
        "perfect": {r["quadrat_id"]: r["truth"] for r in rows},
        "empty_lists": {r["quadrat_id"]: [] for r in rows},
        "partial": {r["quadrat_id"]: r["truth"][:1] for r in rows},
        "over_predicting": {r["quadrat_id"]: r["truth"] + WRONG for r in rows},
        "baseline_top5_common": {r["quadrat_id"]: common for r in rows},
    }
    expected = {}
    for name, preds in subs.items():
        write_csv(out / "submissions" / f"{name}.csv", ["quadrat_id", "species_ids"],
                  [[r["quadrat_id"], lst(preds[r["quadrat_id"]])] for r in rows])
        expected[name] = {"status": "scored", "public": plantclef_metrics(rows, preds, "Public"),
                          "private": plantclef_metrics(rows, preds, "Private")}
    # Malformed files: each must be rejected with the given codes.
    ids = [r["quadrat_id"] for r in rows]
    mal = out / "submissions" / "malformed"
    write_csv(mal / "semicolon_2024_style.csv", ["quadrat_id", "species_ids"],
              [[i, lst(subs["perfect"][i])] for i in ids], delimiter=";", quote_all=False)
    write_csv(mal / "float_labels.csv", ["quadrat_id", "species_ids"],
              [[i, "[" + ", ".join(f"{s}.0" for s in subs["perfect"][i]) + "]"] for i in ids])
    write_csv(mal / "missing_row.csv", ["quadrat_id", "species_ids"], [[i, lst(subs["perfect"][i])] for i in ids[1:]])
    write_csv(mal / "duplicate_id.csv", ["quadrat_id", "species_ids"],
              [[i, lst(subs["perfect"][i])] for i in ids] + [[ids[3], "[1395807]"]])
    write_csv(mal / "unknown_species.csv", ["quadrat_id", "species_ids"],
              [[i, lst(subs["perfect"][i] + ([999999999] if k == 5 else []))] for k, i in enumerate(ids)])
    write_csv(mal / "wrong_header.csv", ["quadratid", "species"], [[i, lst(subs["perfect"][i])] for i in ids])
    expected.update({
        "malformed/semicolon_2024_style": {"status": "rejected", "codes": ["wrong_delimiter"]},
        "malformed/float_labels": {"status": "rejected", "codes": ["float_label"]},
        "malformed/missing_row": {"status": "rejected", "codes": ["missing_ids"]},
        "malformed/duplicate_id": {"status": "rejected", "codes": ["duplicate_id"]},
        "malformed/unknown_species": {"status": "rejected", "codes": ["unknown_label"]},
        "malformed/wrong_header": {"status": "rejected", "codes": ["missing_column"]},
    })
    return expected


# ---------------------------------------------------------------- AgrI Challenge
CLASSES = ["caroubier", "chene", "faux_poivrier", "frene", "pistachier", "tipu"]
TEAMS = ["team_a", "team_b", "team_c", "team_d"]


def agri_solution() -> list[dict]:
    rows, k = [], 0
    for team in TEAMS:
        for c in CLASSES:
            for j in range(5):
                # the id as `agrieval data splits` wrote it before issue 43, <team>/<16 hex digits of sha256(path)>:
                # an id that carried the class (team_a/caroubier/img_00.jpg) would give the truth away
                # (ids_reveal_labels). An unkeyed hash of a guessable path gives it away too (a dictionary of
                # guessed paths); this example publishes its truth anyway, but the kit's own ids are keyed now
                # (data_tools/_keyed_ids.py)
                path = f"{team}/{c}/img_{j:02d}.jpg"
                rows.append({"image_id": f"{team}/{hashlib.sha256(path.encode()).hexdigest()[:16]}", "label": c,
                             "team": team, "usage": "Public" if k % 2 == 0 else "Private", "j": j})
                k += 1
    return rows


def agri_metrics(rows: list[dict], preds: dict[str, str], usage: str) -> dict[str, float]:
    sel = [r for r in rows if r["usage"] == usage]
    correct = [preds[r["image_id"]] == r["label"] for r in sel]
    recalls = []
    for c in sorted({r["label"] for r in sel}):
        rc = [preds[r["image_id"]] == c for r in sel if r["label"] == c]
        recalls.append(sum(rc) / len(rc))
    f1s = []
    for c in sorted({r["label"] for r in sel} | {preds[r["image_id"]] for r in sel}):
        tp = sum(r["label"] == c and preds[r["image_id"]] == c for r in sel)
        tc = sum(r["label"] == c for r in sel)
        pc = sum(preds[r["image_id"]] == c for r in sel)
        f1s.append(2 * tp / (tc + pc))
    teams = sorted({r["team"] for r in sel})
    team_acc = [mean(preds[r["image_id"]] == r["label"] for r in sel if r["team"] == t) for t in teams]
    return {"accuracy": mean(correct), "balanced_accuracy": mean(recalls), "macro_f1": mean(f1s),
            "group_accuracy": mean(team_acc)}


def make_agri() -> dict:
    out = ROOT / "agrichallenge2024"
    rows = agri_solution()
    write_csv(out / "solution.csv", ["image_id", "label", "team", "Usage"],
              [[r["image_id"], r["label"], r["team"], r["usage"]] for r in shuffled(rows, "image_id")],
              quote_all=False)
    swap = {"faux_poivrier": "pistachier", "pistachier": "faux_poivrier"}
    subs = {
        "perfect": {r["image_id"]: r["label"] for r in rows},
        "constant_chene": {r["image_id"]: "chene" for r in rows},
        # confuses the two look-alike species on every team
        "confuses_faux_poivrier_pistachier": {r["image_id"]: swap.get(r["label"], r["label"]) for r in rows},
        # a model trained on team_a: right on its own team, right on the first 3 images of a class elsewhere
        "baseline_trained_on_team_a": {
            r["image_id"]: r["label"] if r["team"] == "team_a" or r["j"] < 3 else
            CLASSES[(CLASSES.index(r["label"]) + 1) % 6] for r in rows},
    }
    expected = {}
    for name, preds in subs.items():
        write_csv(out / "submissions" / f"{name}.csv", ["image_id", "label"],
                  [[r["image_id"], preds[r["image_id"]]] for r in rows], quote_all=False)
        expected[name] = {"status": "scored", "public": agri_metrics(rows, preds, "Public"),
                          "private": agri_metrics(rows, preds, "Private")}
    mal = out / "submissions" / "malformed"
    write_csv(mal / "capitalised_class.csv", ["image_id", "label"],
              [[r["image_id"], r["label"].capitalize() if k == 7 else r["label"]] for k, r in enumerate(rows)],
              quote_all=False)
    write_csv(mal / "missing_label.csv", ["image_id", "label"],
              [[r["image_id"], "" if k == 11 else r["label"]] for k, r in enumerate(rows)], quote_all=False)
    expected.update({
        "malformed/capitalised_class": {"status": "rejected", "codes": ["unknown_label"]},
        "malformed/missing_label": {"status": "rejected", "codes": ["missing_value"]},
    })
    return expected


def main() -> None:
    expected = {"plantclef2025": make_plantclef(), "agrichallenge2024": make_agri()}
    text = json.dumps(expected, indent=2, sort_keys=True) + "\n"
    (ROOT / "expected_scores.json").write_text(text, encoding="utf-8")
    print(f"wrote {ROOT / 'expected_scores.json'}")


if __name__ == "__main__":
    main()
