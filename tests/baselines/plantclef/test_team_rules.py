"""Each team's rule, re-stated in plain Python from docs/facts/plantclef_pipelines.md (and the code it
cites), against the kit's named function on the same probabilities: same species lists, order
included where the team's rule defines one."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.baselines.plantclef._bma import bma_vectors
from agrieval.baselines.plantclef._ensemble import ensemble_tiles, tile_zscores
from agrieval.baselines.plantclef._image_stats import ImageStats
from agrieval.baselines.plantclef._pooling import pool_count_topk, pool_min_images
from agrieval.baselines.plantclef._threshold_search import TargetUnreachable, threshold_for_mean_count
from agrieval.baselines.plantclef.aggregate import NotExact, aggregate
from agrieval.baselines.plantclef.aggregation_config import AggregationConfig

C = 6
SPECIES = 500 + np.arange(C)


@st.composite
def quadrats(draw, max_images=3, max_tiles=5):
    """{image: [p over C classes per tile]} with quantised probabilities: exact ties are common."""
    out = {}
    for i in range(draw(st.integers(1, max_images))):
        tiles = []
        for _ in range(draw(st.integers(1, max_tiles))):
            w = np.asarray(draw(st.lists(st.integers(0, 4), min_size=C, max_size=C)), dtype=np.float64) + 0.25
            if len(set(w)) == 1:  # a uniform softmax has no variance: BMA and z-scores are 0/0 there
                w[0] += 1
            tiles.append((w / w.sum()).astype(np.float32).astype(np.float64))
        out[f"IMG-{i}"] = tiles
    return out


def top_k_frame(full, k):
    rows = []
    for image, tiles in full.items():
        for t, p in enumerate(tiles):
            order = sorted(range(C), key=lambda c: (-p[c], c))[:k]  # torch.topk order on ties: the lower index
            rows += [(image, t, 0, 10 * t, 0, 10 * t + 10, 10, r, c, int(SPECIES[c]), p[c], float((p ** 2).sum()))
                     for r, c in enumerate(order)]
    return pd.DataFrame(rows, columns=["image_id", "tile", "level", "x0", "y0", "x1", "y1", "rank", "class_index",
                                       "species_id", "prob", "tile_p2"])


def saved_lists(frame):
    """Per image, per tile, the saved [(species, prob)] in rank order, as a team's script receives them."""
    out = {}
    for image, g in frame.sort_values(["image_id", "tile", "rank"]).groupby("image_id"):
        out[image] = [list(zip(t["species_id"], t["prob"])) for _, t in g.groupby("tile")]
    return out


# --- DS@GT -----------------------------------------------------------------------------------------


def dsgt_pairs(tiles, top_k):
    """DS@GT 2025 grid runs: flatten every tile's top-10 {species: prob}, sort by -prob (Python's stable
    sort), take the first top_k, de-duplicate keeping the first (``sorted(set(x), key=x.index)``)."""
    flattened = [{s: p} for tile in tiles for s, p in tile]
    sorted_logits = sorted(flattened, key=lambda x: -list(x.values())[0])
    top = [list(item.keys())[0] for item in sorted_logits[:top_k]]
    return sorted(set(top), key=top.index)


@settings(max_examples=60, deadline=None)
@given(full=quadrats(), k=st.integers(1, 6))
def test_dsgt_global_top_k_pairs(full, k):
    frame = top_k_frame(full, C)
    got = aggregate(frame, AggregationConfig(strategy="pairs", top_k=k))
    want = {i: [int(s) for s in dsgt_pairs(t, k)] for i, t in saved_lists(frame).items()}
    assert got == want


def dsgt_nms(tiles, n=10):
    """DS@GT NMS notebook: the top-1 species of every tile, ``Counter(...).most_common(n)``."""
    return [s for s, _ in Counter(tile[0][0] for tile in tiles).most_common(n)]


@settings(max_examples=60, deadline=None)
@given(full=quadrats(max_tiles=8), n=st.integers(1, 4))
def test_dsgt_vote_with_counter_most_common_ties(full, n):
    frame = top_k_frame(full, 2)
    cfg = AggregationConfig(strategy="vote", top_k=1, max_species=n, tie_rule="first-seen")
    want = {i: [int(s) for s in dsgt_nms(t, n)] for i, t in saved_lists(frame).items()}
    assert aggregate(frame, cfg) == want


def test_first_seen_and_score_tie_rules_differ_where_documented():
    # Two tiles, top-1 each: species 7 on tile 0, species 3 on tile 1: one vote each.
    frame = pd.DataFrame({"image_id": ["q", "q"], "tile": [0, 1], "level": [0, 0], "rank": [0, 0],
                          "species_id": [7, 3], "prob": [0.5, 0.5]})
    assert aggregate(frame, AggregationConfig(strategy="vote", max_species=1, tie_rule="first-seen")) == {"q": [7]}
    assert aggregate(frame, AggregationConfig(strategy="vote", max_species=1)) == {"q": [3]}  # species id asc


def dsgt_union_agg_topk(lists_of_images, top_k):
    """DS@GT aggregation.py ``union_agg_topk``."""
    species_counts = Counter([s for sublist in lists_of_images for s in sublist])
    return [s for s, _ in species_counts.most_common(top_k)]


@settings(max_examples=60, deadline=None)
@given(lists=st.lists(st.lists(st.integers(1, 6), max_size=4, unique=True), min_size=1, max_size=6),
       plot=st.lists(st.integers(0, 1), min_size=6, max_size=6), k=st.integers(1, 4))
def test_dsgt_transect_pooling_by_image_count(lists, plot, k):
    ids = [f"P{plot[n]}-{n}" for n in range(len(lists))]
    per_image = dict(zip(ids, lists))
    groups = {i: i.split("-")[0] for i in ids}
    got = pool_count_topk(per_image, groups, k)
    for g in set(groups.values()):
        members = sorted(i for i in ids if groups[i] == g)
        want = dsgt_union_agg_topk([per_image[i] for i in members], k)
        assert all(got[i] == want for i in members)


def test_count_topk_through_aggregate_uses_the_final_image_lists():
    frame = pd.DataFrame({"image_id": ["T-1", "T-1", "T-2", "T-2", "T-3"], "tile": [0, 1, 0, 1, 0],
                          "level": 0, "rank": 0, "species_id": [1, 2, 2, 3, 2], "prob": 0.9})
    cfg = AggregationConfig(strategy="vote", group_mode="count-topk", pool_k=2, tie_rule="first-seen")
    got = aggregate(frame, cfg, groups={"T-1": "T", "T-2": "T", "T-3": "T"})
    assert got == {i: [2, 1] for i in ("T-1", "T-2", "T-3")}  # 2 in three images; 1 seen before 3


# --- Chlorophyll Crew ------------------------------------------------------------------------------


def chlorophyll_combine_same_plot(image_predictions, plot_of, threshold):
    """Chlorophyll Crew src/prediction.py, ``combine_same_plot_threshold`` branch, re-stated."""
    by_plot = {}
    for image, prediction in image_predictions.items():
        by_plot.setdefault(plot_of(image), []).append(prediction)
    combined = {}
    for image in image_predictions:
        predictions = by_plot[plot_of(image)]
        if len(predictions) == 1:
            combined[image] = predictions[0]
            continue
        count = {}
        for prediction in predictions:
            for s in prediction:
                count[s] = count.get(s, 0) + 1
        if not any(c >= threshold for c in count.values()):
            combined[image] = predictions[0]
            continue
        combined[image] = [s for s, c in count.items() if c >= threshold]
    return combined


@settings(max_examples=60, deadline=None)
@given(lists=st.lists(st.lists(st.integers(1, 5), max_size=4, unique=True), min_size=1, max_size=6),
       plot=st.lists(st.integers(0, 2), min_size=6, max_size=6), n=st.integers(1, 3))
def test_chlorophyll_keep_if_in_n_images_of_the_plot(lists, plot, n):
    ids = sorted(f"P{plot[k]}-{k}" for k in range(len(lists)))
    per_image = dict(zip(ids, lists))  # iterated in sorted id order, as the kit takes a group's images
    groups = {i: i.split("-")[0] for i in ids}
    assert pool_min_images(per_image, groups, n) == chlorophyll_combine_same_plot(per_image, groups.get, n)


def neuon_bma(tiles, z_threshold):
    """NEUON 2024 Fig. 8 / Chlorophyll Crew ``bma_prediction``, in float64 loops."""
    d = len(tiles[0])
    var = []
    for p in tiles:
        mean = sum(p) / d
        ss = sum((x - mean) ** 2 for x in p) / (d - 1)
        var.append(abs(np.log10(ss)))
    vmax = max(var)
    conf = [np.sqrt((vmax + 0.5 - v) / (vmax + 0.5)) for v in var]
    w = [c / sum(conf) for c in conf]
    image = [sum(w[t] * tiles[t][c] for t in range(len(tiles))) for c in range(d)]
    mu = sum(image) / d
    sd = np.sqrt(sum((x - mu) ** 2 for x in image) / (d - 1))
    return image, [c for c in range(d) if (image[c] - mu) / sd > z_threshold]


@settings(max_examples=40, deadline=None)
@given(full=quadrats(), z=st.sampled_from([0.0, 0.5, 1.0]))
def test_bma_vectors_and_keep_rule_match_neuon(full, z):
    ids = sorted(full)
    p = torch.tensor(np.concatenate([np.asarray(full[i]) for i in ids]), dtype=torch.float64)
    group = torch.tensor(np.repeat(np.arange(len(ids)), [len(full[i]) for i in ids]))
    bma = bma_vectors(p, group, len(ids)).numpy()
    frame = top_k_frame(full, 1)
    mx = np.asarray([np.max(full[i], axis=0) for i in ids])
    sm = np.asarray([np.sum(full[i], axis=0) for i in ids])
    stats = ImageStats(pd.DataFrame({"image_id": ids, "level": 0, "n_tiles": [len(full[i]) for i in ids]}),
                       mx, sm, bma, SPECIES.astype(np.int64))
    got = aggregate(frame, AggregationConfig(strategy="bma", z_threshold=z), stats=stats, n_classes=C)
    for n, i in enumerate(ids):
        vector, kept = neuon_bma(full[i], z)
        assert np.allclose(bma[n], vector, rtol=0, atol=1e-12)
        assert sorted(got[i]) == sorted(int(SPECIES[c]) for c in kept)


@settings(max_examples=40, deadline=None)
@given(full=quadrats(), k=st.integers(1, C))
def test_per_tile_zscores_match_the_full_vector(full, k):
    frame = top_k_frame(full, k)
    z = tile_zscores(frame, C)
    for (image, tile), g in z.groupby(["image_id", "tile"]):
        p = np.asarray(full[image][tile])
        want = (p - p.mean()) / p.std(ddof=1)
        assert np.allclose(g["prob"].to_numpy(), want[g["class_index"].to_numpy()], atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(a=quadrats(max_images=2, max_tiles=3), seed=st.integers(0, 1000), k=st.integers(1, C))
def test_ensemble_keeps_exactly_the_entries_it_can_prove(a, seed, k):
    rng = np.random.default_rng(seed)
    b = {i: [np.roll(p, int(rng.integers(0, C))) for p in tiles] for i, tiles in a.items()}
    try:
        got = ensemble_tiles([top_k_frame(a, k), top_k_frame(b, k)], n_classes=C)
    except ValueError as exc:  # refused: some tile has no species provably ahead of the unsaved ones
        assert "no species whose mean" in str(exc) and k < C
        return
    for (image, tile), g in got.groupby(["image_id", "tile"]):
        mean = (np.asarray(a[image][tile]) + np.asarray(b[image][tile])) / 2
        cls = g["species_id"].to_numpy() - 500
        assert np.allclose(g["prob"].to_numpy(), mean[cls])  # exact values
        # a prefix of the true ranking: nothing left out beats the last entry kept
        others = np.delete(mean, cls)
        assert len(others) == 0 or others.max() < g["prob"].min() + 1e-12
    if k == C:  # every class saved: nothing is lost
        assert len(got) == sum(len(t) for t in a.values()) * C


def test_ensemble_refuses_different_tiles():
    one = top_k_frame({"A": [np.full(C, 1 / C)]}, 2)
    with pytest.raises(ValueError, match="same tiles"):
        ensemble_tiles([one, one.assign(x1=one["x1"] + 1)])


# --- the 2025 winner -------------------------------------------------------------------------------


def winner_calc_seuil(scores, target, n_iter=20):
    """lib_soumission.rs ``calc_seuil`` / ``dichotomy`` re-stated (recursive, as written there)."""
    def count(x):
        return sum(sum(1 for v in s if v > x) for s in scores) / len(scores)

    def dichotomy(lo, hi, n, up, down):
        if n == 0:
            if not up or not down:
                raise RuntimeError("Dichotomy did not converge")
            return 0.5 * (lo + hi)
        mid = 0.5 * (lo + hi)
        if target - count(mid) >= 0:
            return dichotomy(lo, mid, n - 1, up, True)
        return dichotomy(mid, hi, n - 1, True, down)

    lo = min(min(s) for s in scores if len(s))
    hi = max(max(s) for s in scores if len(s))
    return dichotomy(lo, hi, n_iter, False, False)


@settings(max_examples=60, deadline=None)
@given(scores=st.lists(st.lists(st.floats(0, 1, width=32), min_size=1, max_size=8), min_size=1, max_size=5),
       target=st.floats(0.5, 6))
def test_threshold_bisection_is_calc_seuil(scores, target):
    arrays = [np.asarray(s) for s in scores]
    try:
        want = winner_calc_seuil(scores, target)
    except RuntimeError:
        with pytest.raises(TargetUnreachable):
            threshold_for_mean_count(arrays, target)
        return
    assert threshold_for_mean_count(arrays, target) == want


def test_target_mean_through_aggregate_keeps_what_calc_seuil_keeps():
    # 4 images, one tile each; the winner's search converges on a boundary score, from either side.
    probs = {i: [0.6, 0.3 - 0.05 * i, 0.07 + 0.01 * i, 0.02] for i in range(4)}
    rows = [(f"Q{i}", 0, 0, r, 10 + r, p) for i in range(4) for r, p in enumerate(probs[i])]
    frame = pd.DataFrame(rows, columns=["image_id", "tile", "level", "rank", "species_id", "prob"])
    for target in (1.5, 2.0, 2.5):
        x = winner_calc_seuil([probs[i] for i in range(4)], target)
        got = aggregate(frame, AggregationConfig(strategy="union", top_k=4, target_mean=target))
        assert got == {f"Q{i}": [10 + r for r, p in enumerate(probs[i]) if p > x] for i in range(4)}
        assert abs(np.mean([len(v) for v in got.values()]) - target) <= 0.5


def test_organisers_notebook_max_is_a_union_of_top2_above_01():
    """The notebook's "max" tests the class index against a dict keyed by species id, so every later tile
    overwrites: the submitted set is the union of per-tile top-2 above 0.1."""
    rng = np.random.default_rng(3)
    full = {"Q": [rng.dirichlet(np.ones(C) * 0.4) for _ in range(6)]}
    frame = top_k_frame(full, 3)
    results = {}
    for tile in saved_lists(frame)["Q"]:
        for index, (species, prob) in enumerate(tile[:2]):
            if prob >= 0.1:
                if index not in results or results[species] < prob:  # the bug, as written there
                    results[species] = prob
    got = aggregate(frame, AggregationConfig(strategy="union", top_k=2, threshold=0.1))["Q"]
    assert sorted(got) == sorted(int(s) for s in results)


@settings(max_examples=30, deadline=None)
@given(full=quadrats(max_images=4), target=st.sampled_from([1.0, 2.0, 3.5]))
def test_winner_max_then_calc_seuil_on_every_class(full, target):
    """The winner: per quadrat the max over all tiles of every class, then the threshold bisected to a target
    mean over every class of every quadrat, strict ``>`` (``new_with_threshold``)."""
    ids = sorted(full)
    scores = [np.max(full[i], axis=0) for i in ids]
    frame = top_k_frame(full, 1)
    stats = ImageStats(pd.DataFrame({"image_id": ids, "level": -1, "n_tiles": [len(full[i]) for i in ids]}),
                       np.asarray(scores), np.asarray([np.sum(full[i], axis=0) for i in ids]),
                       np.asarray(scores), SPECIES.astype(np.int64))
    cfg = AggregationConfig(strategy="max", target_mean=target)
    try:
        x = winner_calc_seuil([list(s) for s in scores], target)
    except RuntimeError:
        with pytest.raises(TargetUnreachable):
            aggregate(frame, cfg, stats=stats, n_classes=C)
        return
    got = aggregate(frame, cfg, stats=stats, n_classes=C)
    assert {i: sorted(v) for i, v in got.items()} == {i: [int(SPECIES[c]) for c in range(C) if s[c] > x]
                                                      for i, s in zip(ids, scores)}
    with pytest.raises(NotExact, match="every class"):
        aggregate(frame, cfg, n_classes=C)  # the search needs every class: no stats, no search


def chlorophyll_extract_plot_name(t):
    """Chlorophyll Crew src/prediction.py ``extract_plot_name`` (group_same_plot_by_year off), re-stated."""
    if "CBN-PdlC" in t or "CBN-Pla" in t:
        return t[:-9]
    if "GUARDEN-CBNMed" in t:
        return t[: t.index("-", 15)]
    return t


def test_chlorophyll_plot_rule_on_the_real_test_ids(real_files):
    import csv

    from agrieval.baselines.plantclef.transects import transect_map
    from agrieval.scoring.authoring.definitions import load_competition

    with open(real_files / "plantclef2025_submission_topk5.csv", newline="") as fh:
        ids = [row[0] for row in csv.reader(fh)][1:]
    groups = transect_map(ids, load_competition("plantclef2025"), "chlorophyll-plot")
    assert len(ids) == 2105 and all(groups[i] == chlorophyll_extract_plot_name(i) for i in ids)
    assert len(set(groups.values())) == 595  # as docs/facts/plantclef_pipelines.md quotes


# --- plot grouping and image order -----------------------------------------------------------------


def winner_plots(tile_lines, top_k, min_score):
    """src/lib.rs ~503-516 then lib_soumission.rs new_with_topk_and_min_score, re-stated: ids are the tile
    names before the first '_', sorted; each id's tiles are the names that contain it; max over them;
    stable sort by probability desc; take top_k; keep value > min_score."""
    ids = sorted({s.split("_")[0] for s, _ in tile_lines})
    out = {}
    for i in ids:
        plot = np.max(np.stack([t for s, t in tile_lines if i in s]), axis=0)
        prs = sorted(enumerate(plot), key=lambda x: -x[1])
        out[i] = [int(SPECIES[c]) for c, v in prs[:top_k] if v > min_score]
    return out


@settings(max_examples=40, deadline=None)
@given(full=quadrats(max_images=4), k=st.integers(1, 4), thr=st.sampled_from([0.0, 0.1, 0.2]),
       names=st.permutations(["A-1", "A-10", "A-1-2", "B"]))
def test_winner_substring_plot_grouping(full, k, thr, names):
    renamed = {names[n]: tiles for n, tiles in enumerate(full.values())}
    lines = [(f"{i}_{t}", p) for i, tiles in renamed.items() for t, p in enumerate(tiles)]
    frame = top_k_frame(renamed, C)
    cfg = AggregationConfig(strategy="max", threshold=thr, strict=True, max_species=k, group_mode="contains")
    assert aggregate(frame, cfg, n_classes=C) == winner_plots(lines, k, thr)


def test_file_name_order_is_dsgts_order_by_image_name():
    lists = {"A-1": [1], "A-1-2": [2]}  # one vote each: the first image seen wins the tie
    groups = {"A-1": "A", "A-1-2": "A"}
    assert pool_count_topk(lists, groups, 1)["A-1"] == [1]
    from agrieval.baselines.plantclef._pooling import order_key

    ordered = sorted(["A-1.jpg", "A-1-2.jpg"])  # Spark orderBy("image_name") on the file names
    want = dsgt_union_agg_topk([lists[n[:-4]] for n in ordered], 1)
    assert pool_count_topk(lists, groups, 1, order_key("file-name"))["A-1"] == want == [2]


def chlorophyll_extract_plot_name_by_year(image_path):
    """``extract_plot_name`` with ``group_same_plot_by_year`` on (src/prediction.py ~422-437), re-stated."""
    if "CBN-PdlC" in image_path or "CBN-Pla" in image_path:
        plot_name = image_path[:-9]
    elif "GUARDEN-CBNMed" in image_path:
        plot_name = image_path[: image_path.index("-", 15)]
    else:
        return image_path
    return f"{plot_name}_{image_path[-8:-4]}"


def test_chlorophyll_plot_by_year_rule_on_the_real_test_ids(real_files):
    import csv

    from agrieval.baselines.plantclef.transects import transect_map
    from agrieval.scoring.authoring.definitions import load_competition

    with open(real_files / "plantclef2025_submission_topk5.csv", newline="") as fh:
        ids = [row[0] for row in csv.reader(fh)][1:]
    groups = transect_map(ids, load_competition("plantclef2025"), "chlorophyll-plot-year")
    assert all(groups[i] == chlorophyll_extract_plot_name_by_year(i) for i in ids)
    assert len(set(groups.values())) > 595  # years split plots


def chlorophyll_filter_genus(image_results, genus_of):
    """src/prediction.py ~394-407 ``filter_genus``, re-stated (species id -> genus instead of their index)."""
    filtered_results = {}
    for species_id, prob in image_results.items():
        genus_id = genus_of[species_id]
        if genus_id not in filtered_results or prob > filtered_results[genus_id][1]:
            filtered_results[genus_id] = (species_id, prob)
    return [species_id for species_id, prob in filtered_results.values()]


@settings(max_examples=60, deadline=None)
@given(full=quadrats(max_tiles=6), k=st.integers(1, 3), genera=st.lists(st.sampled_from("abc"), min_size=C, max_size=C))
def test_chlorophyll_one_species_per_genus(full, k, genera):
    genus_of = {int(s): g for s, g in zip(SPECIES, genera)}
    frame = top_k_frame(full, C)
    plain = aggregate(frame, AggregationConfig(strategy="union", top_k=k, tie_rule="first-seen"))
    best = frame[frame["rank"] < k].groupby(["image_id", "species_id"])["prob"].max()
    want = {i: chlorophyll_filter_genus({s: best[(i, s)] for s in plain[i]}, genus_of) for i in plain}
    got = aggregate(frame, AggregationConfig(strategy="union", top_k=k, tie_rule="first-seen", one_per_genus=True),
                    genus=genus_of)
    assert got == want


def test_genus_file_is_strict(tmp_path):
    from agrieval.baselines.plantclef._genus import load_genus

    good = tmp_path / "g.csv"
    good.write_text("species_id,genus,family\n500,Acer,Sapindaceae\n501,Acer,Sapindaceae\n")
    assert load_genus(good) == {500: "Acer", 501: "Acer"}
    for text, match in (("species,genus\n1,a\n", "header"), ("species_id,genus\nx,a\n", ":2: species_id"),
                        ("species_id,genus\n1,a\n1,b\n", ":3: species 1 has genus")):
        bad = tmp_path / "b.csv"
        bad.write_text(text)
        with pytest.raises(ValueError, match=match):
            load_genus(bad)
    frame = pd.DataFrame({"image_id": "q", "tile": 0, "level": 0, "rank": [0], "species_id": [9], "prob": [0.5]})
    with pytest.raises(ValueError, match="no genus for species 9"):
        aggregate(frame, AggregationConfig(one_per_genus=True), genus={1: "a"})
