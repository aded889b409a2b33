"""End to end through the command line with a tiny random-init ViT of the DINOv2 family."""


import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from agrieval.baselines.plantclef._synthetic import demo_ids, make_quadrats
from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli

N_CLASSES = 5


# Later tests read the first test's tile scores: under pytest-xdist the module runs on one worker, in order
# (tests/conftest.py), so they never skip for want of them.
XDIST_GROUP = "plantclef-cli"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, tiny_checkpoint):
    folder = tmp_path_factory.mktemp("e2e")
    species = sorted(load_competition("plantclef2025").labels)[:N_CLASSES]
    (folder / "class_mapping.txt").write_text("".join(f"{s}\n" for s in species))
    planted = make_quadrats(folder / "images", demo_ids(4), N_CLASSES, grid=2, width=150, height=120)
    return folder, tiny_checkpoint[0], species, planted


def _predict(ws, out, *extra):
    folder, ckpt, _, _ = ws
    args = ["baselines", "plantclef", "predict", str(folder / "images"), "--checkpoint", str(ckpt),
            "--class-mapping", str(folder / "class_mapping.txt"), "--preset", "tiny", "--tiling", "grid:2",
            "--tiling", "window:80:60", "--device", "cpu", "--batch-size", "8", "--save-top-k", "3",
            "--out", str(out), "--quiet", *extra]
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_predict_writes_a_file_that_validate_accepts_and_reaggregation_matches(workspace):
    folder = workspace[0]
    res = _predict(workspace, folder / "sub.csv", "--strategy", "vote", "--top-k", "2", "--min-votes", "2",
                   "--save-tile-scores", str(folder / "tiles.parquet"), "--image-stats", "level")
    assert res.exit_code == 0, res.output
    assert "weights: state_dict_ema" in res.output and "predicted 4 quadrats" in res.output
    val = CliRunner().invoke(cli, ["validate", str(folder / "sub.csv"), "--competition", "plantclef2025"])
    assert val.exit_code == 0, val.output
    text = (folder / "sub.csv").read_text()
    assert text.startswith('"quadrat_id","species_ids"\n"DEMO-T1-Q1-20240615","[')
    tiles = pd.read_parquet(folder / "tiles.parquet")
    # grid:2 (4 tiles) + window 80/60 on 150x120 (3 x 2 = 6 tiles) per image, top 3 each.
    assert len(tiles) == 4 * (4 + 6) * 3
    assert np.allclose(tiles.groupby(["image_id", "tile"])["prob"].apply(lambda p: p.is_monotonic_decreasing), 1)
    agg = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(folder / "tiles.parquet"),
                                   "--out", str(folder / "again.csv"), "--strategy", "vote", "--top-k", "2",
                                   "--min-votes", "2"], catch_exceptions=False)
    assert agg.exit_code == 0, agg.output
    assert (folder / "again.csv").read_bytes() == (folder / "sub.csv").read_bytes()
    # The 2024 format from the same tiles.
    agg24 = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(folder / "tiles.parquet"),
                                     "--out", str(folder / "sub24.csv"), "--competition", "plantclef2024"])
    assert agg24.exit_code == 0 and (folder / "sub24.csv").read_text().startswith("plot_id;species_ids\n")


def test_existing_output_is_not_overwritten(workspace):
    folder = workspace[0]
    keep = folder / "keep.csv"
    keep.write_text("mine\n")
    res = _predict(workspace, keep)
    assert res.exit_code == 2 and "already exists" in res.output and keep.read_text() == "mine\n"


def test_resume_predicts_only_the_missing_images(workspace, monkeypatch):
    from agrieval.baselines.plantclef import inference

    folder = workspace[0]
    full = _predict(workspace, folder / "full.csv", "--save-tile-scores", str(folder / "full.parquet"))
    assert full.exit_code == 0
    real_call = inference.TileScorer.score
    calls = {"n": 0}

    def crash_after_first(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt
        return real_call(self, *args, **kwargs)

    monkeypatch.setattr(inference.TileScorer, "score", crash_after_first)
    monkeypatch.setattr("agrieval.baselines.plantclef.predict.RunOptions.flush_images", 1)
    interrupted = _predict(workspace, folder / "resumed.csv", "--save-tile-scores", str(folder / "resumed.parquet"))
    assert interrupted.exit_code == 130 and "error [interrupted]" in interrupted.output  # 128 + SIGINT
    parts = folder / ".resumed.csv.parts"
    assert parts.is_dir() and not (folder / "resumed.csv").exists()
    again = _predict(workspace, folder / "resumed.csv")
    assert again.exit_code == 2 and "--resume" in again.output
    monkeypatch.setattr(inference.TileScorer, "score", real_call)
    res = _predict(workspace, folder / "resumed.csv", "--resume", "--save-tile-scores", str(folder / "resumed.parquet"))
    assert res.exit_code == 0, res.output
    # 10 tiles per image > --batch-size 8: one image per batch, so the first image was kept before the crash.
    assert "(1 resumed)" in res.output
    assert (folder / "resumed.csv").read_bytes() == (folder / "full.csv").read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "resumed.parquet"), pd.read_parquet(folder / "full.parquet"))
    from agrieval.baselines.plantclef._image_stats import read_stats

    resumed, full_stats = read_stats(folder / "resumed.stats.parquet"), read_stats(folder / "full.stats.parquet")
    pd.testing.assert_frame_equal(resumed.keys, full_stats.keys)
    assert np.array_equal(resumed.max, full_stats.max) and np.array_equal(resumed.bma, full_stats.bma)
    assert not parts.exists()


def test_missing_checkpoint_and_mapping_messages(workspace, tmp_path):
    folder = workspace[0]
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "predict", str(folder / "images"), "--checkpoint",
                                   str(tmp_path / "model_best.pth.tar"), "--class-mapping",
                                   str(folder / "class_mapping.txt"), "--out", str(tmp_path / "s.csv")])
    assert res.exit_code == 2
    assert "model_best.pth.tar not found" in res.output and "download" in res.output
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "predict", str(folder / "images"),
                                   "--class-mapping", str(folder / "class_mapping.txt")])
    assert res.exit_code == 2 and "--checkpoint is required" in res.output


def _solution(workspace):
    """The planted species as a solution next to the first test's tile scores."""
    folder, _, species, planted = workspace
    tiles = folder / "tiles.parquet"
    if not tiles.exists():
        pytest.skip("needs the tile scores of the first test")
    from agrieval.baselines.plantclef.demo import _write_solution as write_solution

    truth = {i: sorted(species[c] for c in cls) for i, cls in planted.items()}
    write_solution(folder / "solution.csv", truth, load_competition("plantclef2025"))
    return folder, tiles


def test_sweep_ranks_settings_and_warns(workspace):
    folder, tiles = _solution(workspace)
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "sweep", str(tiles), "--solution",
                                   str(folder / "solution.csv"), "--strategies", "union,vote", "--top-k", "1,2",
                                   "--thresholds", "0.0", "--min-votes", "1", "--out-csv", str(folder / "sweep.csv")],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "tuning on the test leaderboard overfits" in res.output
    table = pd.read_csv(folder / "sweep.csv")
    assert len(table) == 4 and table["transect_f1"].is_monotonic_decreasing
    # Independent check of one row: score the aggregated file with the scorer directly.
    from agrieval.baselines.plantclef.aggregate import aggregate
    from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
    from agrieval.baselines.submission import write_validated
    from agrieval.scoring.runtime.scorer import score_file

    frame = pd.read_parquet(tiles)
    ids = sorted(workspace[3])
    labels = aggregate(frame, AggregationConfig(strategy="vote", top_k=2, min_votes=1), image_ids=ids)
    write_validated(folder / "one.csv", ids, [labels[i] for i in ids], load_competition("plantclef2025"))
    rep = score_file(folder / "one.csv", folder / "solution.csv", load_competition("plantclef2025"))
    row = table[table["setting"] == "vote k=2 m=1"].iloc[0]
    assert row["transect_f1"] == pytest.approx(rep.metrics.public["transect_f1"], abs=1e-9)


def test_demo_runs_end_to_end(tmp_path):
    out = tmp_path / "demo"
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "demo", "--out", str(out), "--quiet"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "submission validated" in res.output
    val = CliRunner().invoke(cli, ["score", str(out / "submission.csv"), "--solution", str(out / "solution.csv"),
                                   "--competition", "plantclef2025"])
    assert val.exit_code == 0, val.output
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "precious.txt").write_text("x")
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "demo", "--out", str(tmp_path / "other"), "--quiet"])
    assert res.exit_code == 2 and "not a previous demo folder" in res.output


def test_outputs_follow_the_output_policy(workspace):
    """Issue 12: no --out among the quadrat images or onto a file the command reads, even with --overwrite."""
    folder = workspace[0]
    images = sorted((folder / "images").iterdir())
    res = _predict(workspace, folder / "images" / "sub.csv", "--overwrite")
    assert res.exit_code == 2 and "inside the source folder" in res.output
    assert not (folder / "images" / "sub.csv").exists()
    assert sorted((folder / "images").iterdir()) == images
    res = _predict(workspace, folder / "class_mapping.txt", "--overwrite")
    assert res.exit_code == 2 and "a file this command reads" in res.output
    assert (folder / "class_mapping.txt").read_text().count("\n") == N_CLASSES


def test_tiles_command_draws_every_box_and_the_padding(tmp_path):
    from PIL import Image

    from agrieval.baselines.plantclef._synthetic import field_quadrat

    field_quadrat(600, 400, seed=1).save(tmp_path / "q.jpg")
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "tiles", str(tmp_path / "q.jpg"), "--recipe",
                                   "organisers-tiling", "--out", str(tmp_path / "t.png"), "--max-side", "2000"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    # window:518:259 with kornia's centred padding on 600x400: x starts -88, 171 (pad 177); y: one window at -59.
    assert "level 0 window:518:259: 2 tiles of 518x518 px" in res.output and "border centre" in res.output
    drawing = Image.open(tmp_path / "t.png")
    assert drawing.size[0] == 259 + 518 and drawing.size[1] > 518  # the padded windows and the legend line
    assert drawing.getpixel((1, 200))[:2] == (255, 214)  # level 0's outline colour on the first box edge
    again = CliRunner().invoke(cli, ["baselines", "plantclef", "tiles", str(tmp_path / "q.jpg"),
                                     "--out", str(tmp_path / "t.png")])
    assert again.exit_code == 2 and "already exists" in again.output
    grid = CliRunner().invoke(cli, ["baselines", "plantclef", "tiles", str(tmp_path / "q.jpg"), "--tiling", "grid:2",
                                    "--tile-policy", "stretch", "--out", str(tmp_path / "g.png")])
    assert grid.exit_code == 0 and "4 tiles of 300x200 px, stretch -> 518 px" in grid.output


def test_recipes_are_listed_with_sources_and_flags_override_them(workspace):
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "recipes", "--markdown"])
    assert res.exit_code == 0
    for name in ("organisers-tiling", "dsgt-2025-grid", "winner-2025", "chlorophyll-2025"):
        assert f"| `{name}` |" in res.output
    folder = workspace[0]
    tiles = folder / "tiles.parquet"
    if not tiles.exists():
        pytest.skip("needs the tile scores of the first test")
    base = ["baselines", "plantclef", "aggregate", str(tiles), "--overwrite"]
    rec = CliRunner().invoke(cli, base + ["--recipe", "organisers-tiling", "--out", str(folder / "r.csv")])
    assert rec.exit_code == 0 and "union k=2 thr=0.1" in rec.output, rec.output
    mine = CliRunner().invoke(cli, base + ["--recipe", "organisers-tiling", "--top-k", "1",
                                           "--out", str(folder / "r1.csv")])
    assert mine.exit_code == 0 and "union k=1 thr=0.1" in mine.output


def test_aggregate_exposes_stats_strategies_and_ensembles(workspace):
    from agrieval.baselines.plantclef._image_stats import read_stats
    from agrieval.baselines.plantclef.tile_scores import read_tile_scores

    folder = workspace[0]
    tiles = folder / "tiles.parquet"
    if not tiles.exists():
        pytest.skip("needs the tile scores of the first test")
    frame, meta = read_tile_scores(tiles)
    stats = read_stats(folder / "tiles.stats.parquet", expect_meta=meta)
    # The stats' max of every saved species is the max of its saved tile probabilities.
    best = frame.groupby(["image_id", "species_id"])["prob"].max()
    col = {int(s): c for c, s in enumerate(stats.species)}
    for (image_id, species), p in best.items():
        rows = stats.keys.index[stats.keys["image_id"] == image_id]
        assert stats.max[rows, col[species]].max() == pytest.approx(p, abs=1e-6)
    for args in (["--strategy", "mean", "--top-k", "2"], ["--strategy", "bma", "--z-threshold", "1"],
                 ["--strategy", "multiscale", "--scale-weights", "1,0.5", "--threshold", "0.2"],
                 ["--strategy", "max", "--target-mean", "2"], ["--strategy", "pairs", "--top-k", "3"],
                 ["--strategy", "vote", "--tie-rule", "first-seen", "--tile-transform", "zscore"],
                 ["--strategy", "union", "--transect-mode", "count-topk", "--pool-k", "3"],
                 ["--strategy", "union", "--transect-mode", "min-images", "--transect-rule", "chlorophyll-plot"]):
        res = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(tiles), "--overwrite",
                                       "--out", str(folder / "s.csv"), *args])
        assert res.exit_code == 0, (args, res.output)
    # Two files: the ensemble. The same file twice is its own mean, so the species lists are unchanged.
    one = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(tiles), "--strategy", "mean",
                                   "--top-k", "2", "--out", str(folder / "e1.csv"), "--overwrite"])
    two = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(tiles), str(tiles), "--strategy",
                                   "mean", "--top-k", "2", "--out", str(folder / "e2.csv"), "--overwrite"])
    assert one.exit_code == two.exit_code == 0 and "ensemble of 2 files" in two.output
    assert (folder / "e1.csv").read_bytes() == (folder / "e2.csv").read_bytes()
    refused = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(tiles), str(tiles), "--strategy",
                                       "max", "--out", str(folder / "e3.csv"), "--overwrite"])
    assert refused.exit_code == 2 and "no exact max" in refused.output


def test_per_scale_weights_need_per_level_stats(workspace):
    folder = workspace[0]
    res = _predict(workspace, folder / "w.csv", "--save-tile-scores", str(folder / "w.parquet"), "--overwrite")
    assert res.exit_code == 0, res.output
    from agrieval.baselines.plantclef._image_stats import read_stats

    assert set(read_stats(folder / "w.stats.parquet").keys["level"]) == {-1}  # the default: per image
    agg = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(folder / "w.parquet"), "--strategy",
                                   "multiscale", "--scale-weights", "1,0.5", "--out", str(folder / "w2.csv")])
    assert agg.exit_code == 2 and "--image-stats level" in agg.output


def test_predict_with_a_recipe_uses_its_tiling_and_preprocessing(workspace):
    folder = workspace[0]
    res = _predict(workspace, folder / "rec.csv", "--recipe", "dsgt-2025-grid", "--top-k", "3",
                   "--save-tile-scores", str(folder / "rec.parquet"), "--overwrite")
    # _predict passes --tiling grid:2 --tiling window:80:60 --save-top-k 3 explicitly: they win over the recipe
    assert res.exit_code == 0, res.output
    assert "pairs k=3" in res.output
    from agrieval.baselines.plantclef.tile_scores import read_tile_scores

    _, meta = read_tile_scores(folder / "rec.parquet")
    assert meta["preprocess"]["levels"] == ["grid:2", "window:80:60"]
    assert meta["preprocess"]["resize_filter"] == "bicubic" and meta["preprocess"]["tile_policy"] == "timm"
    folder_, ckpt, _, _ = workspace
    plain = CliRunner().invoke(cli, ["baselines", "plantclef", "predict", str(folder / "images"), "--checkpoint",
                                     str(ckpt), "--class-mapping", str(folder / "class_mapping.txt"), "--preset",
                                     "tiny", "--device", "cpu", "--recipe", "dsgt-2025-grid", "--quiet",
                                     "--save-top-k", "5",  # the recipe's 10 > the 5 classes of this model
                                     "--save-tile-scores", str(folder / "rec9.parquet"), "--out",
                                     str(folder / "rec9.csv"), "--overwrite"], catch_exceptions=False)
    assert plain.exit_code == 0, plain.output
    frame, meta = read_tile_scores(folder / "rec9.parquet")
    assert meta["preprocess"]["levels"] == ["floor:3"] and meta["save_top_k"] == 5
    assert "pairs k=5" in plain.output
    assert frame.groupby("image_id")["tile"].nunique().eq(9).all()


def test_sweep_covers_every_strategy_and_lists_refusals(workspace):
    folder, tiles = _solution(workspace)
    args = ["baselines", "plantclef", "sweep", str(tiles), "--solution", str(folder / "solution.csv"),
            "--strategies", "union,max,mean,vote,pairs,bma,multiscale", "--top-k", "2,4", "--thresholds", "0.2",
            "--min-votes", "1", "--z-thresholds", "1", "--scale-weights", "none;1,0.5", "--target-means", "none,2",
            "--transect-modes", "none,count-topk", "--tie-rules", "score,first-seen",
            "--out-csv", str(folder / "all.csv")]
    res = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    table = pd.read_csv(folder / "all.csv", keep_default_na=False)
    strategies = {s.split()[0] for s in table["setting"]}
    assert strategies == {"union", "max", "mean", "vote", "pairs", "bma", "multiscale"}
    # pairs k=4 needs 4 saved per tile (3 were): refused with the flag to use, not scored
    refused = table[table["setting"].str.startswith("pairs k=4")]
    assert len(refused) and refused["note"].str.contains("--save-top-k 4").all()
    scored = table[table["note"] == ""]
    assert len(scored) > 20 and pd.to_numeric(scored["transect_f1"]).is_monotonic_decreasing


def test_the_winners_recipe_runs_end_to_end_on_the_cpu(workspace):
    folder, ckpt, _, _ = workspace
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "predict", str(folder / "images"), "--checkpoint",
                                   str(ckpt), "--class-mapping", str(folder / "class_mapping.txt"), "--preset", "tiny",
                                   "--device", "cpu", "--recipe", "winner-2025", "--save-top-k", "5", "--quiet",
                                   "--image-stats", "level", "--save-tile-scores", str(folder / "win.parquet"),
                                   "--out", str(folder / "win.csv"), "--overwrite"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "multiscale thr=0 max_species=10" in res.output
    from agrieval.baselines.plantclef._image_stats import read_stats
    from agrieval.baselines.plantclef.tile_scores import read_tile_scores

    frame, meta = read_tile_scores(folder / "win.parquet")
    assert frame.groupby("image_id")["tile"].nunique().eq(285).all()  # 1 + 4 + ... + 81
    assert meta["preprocess"]["jpeg_stage"] == "tile" and meta["preprocess"]["jpeg_quality"] == 85
    assert len(read_stats(folder / "win.stats.parquet").keys) == 4 * 9  # per image and scale
    weighted = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(folder / "win.parquet"),
                                        "--recipe", "winner-2025", "--scale-weights", "1,1,1,1,1,1,1,0.5,0.5",
                                        "--out", str(folder / "win_w.csv"), "--overwrite"])
    assert weighted.exit_code == 0, weighted.output


@pytest.mark.parametrize("device", ["cuda", "cuda:1", "gpu"])
def test_device_errors_are_one_line_and_exit_2(workspace, tmp_path, monkeypatch, device):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    res = _predict(workspace, tmp_path / "sub.csv", "--device", device)
    assert res.exit_code == 2 and "Traceback" not in res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error [device_unavailable] --device"), res.output
    assert not (tmp_path / "sub.csv").exists()


def test_the_missing_checkpoint_is_named_first_even_without_a_class_mapping(workspace):
    folder = workspace[0]
    res = CliRunner().invoke(cli, ["baselines", "plantclef", "predict", str(folder / "images")])
    assert res.exit_code == 2 and "error [checkpoint_missing] --checkpoint is required" in res.output
    assert "class_mapping.txt" in res.output  # the download that holds both files


def test_predict_saves_each_teams_tie_pick_and_aggregate_uses_it(workspace):
    folder = workspace[0]
    res = _predict(workspace, folder / "ties.csv", "--save-ties", "argsort:3,topk:2", "--strategy", "union",
                   "--top-k", "2", "--tie-rule", "topk", "--save-tile-scores", str(folder / "ties.parquet"),
                   "--overwrite")
    assert res.exit_code == 0, res.output
    from agrieval.baselines.plantclef.tile_scores import read_tile_scores

    frame, meta = read_tile_scores(folder / "ties.parquet")
    assert meta["save_ties"] == ["argsort:3", "topk:2"] and meta["ties_made_with"]["topk_device"] == "cpu"
    assert (frame.loc[frame["rank"] < 2, "topk2_class"] >= 0).all() and frame["argsort_class"].ge(0).all()
    bad = _predict(workspace, folder / "ties4.csv", "--save-ties", "topk:4", "--overwrite")
    assert bad.exit_code == 2 and "--save-top-k 4" in bad.output
    usage = _predict(workspace, folder / "ties5.csv", "--save-ties", "median:2", "--overwrite")
    assert usage.exit_code == 2 and "argsort:K or topk:K" in usage.output


def test_predict_with_a_prior_and_a_score_scale(workspace, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = workspace[0]
    ids = sorted(p.stem for p in (folder / "images").iterdir())
    prior = [[1.0, 0.0, 0.0, 0.0, 0.0]] * len(ids)  # only the first class survives the product
    pq.write_table(pa.table({"image_name": [f"{i}.jpg" for i in ids], "prior_probabilities": prior}),
                   tmp_path / "prior.parquet")
    res = _predict(workspace, folder / "prior.csv", "--prior", str(tmp_path / "prior.parquet"), "--score-scale",
                   "100", "--strategy", "pairs", "--top-k", "1", "--save-tile-scores", str(folder / "prior.parquet"),
                   "--overwrite")
    assert res.exit_code == 0, res.output
    from agrieval.baselines.plantclef.tile_scores import read_tile_scores

    frame, meta = read_tile_scores(folder / "prior.parquet")
    assert meta["score_scale"] == 100.0 and meta["prior"]["file"] == "prior.parquet"
    best = frame[frame["rank"] == 0]
    assert (best["class_index"] == 0).all() and (best["prob"] > 1).all()  # x100, and the prior's class wins
    pq.write_table(pa.table({"image_name": ids[:1], "prior_probabilities": prior[:1]}), tmp_path / "short.parquet")
    bad = _predict(workspace, folder / "prior2.csv", "--prior", str(tmp_path / "short.parquet"), "--overwrite")
    assert bad.exit_code != 0 and "no prior for image" in bad.output


def test_shards_merge_to_the_bytes_of_one_process(workspace, tmp_path, monkeypatch):
    one = _predict(workspace, tmp_path / "one.csv", "--save-tile-scores", str(tmp_path / "one.parquet"))
    assert one.exit_code == 0, one.output
    for i in range(2):
        res = _predict(workspace, tmp_path / "unused.csv", "--shard", f"{i}/2", "--save-tile-scores",
                       str(tmp_path / "s.parquet"))
        assert res.exit_code == 0 and "a shard: no submission" in res.output, res.output
    assert not (tmp_path / "unused.csv").exists()
    # a torchrun rank takes its shard from the environment
    monkeypatch.setenv("WORLD_SIZE", "3")
    monkeypatch.setenv("RANK", "2")
    rank = _predict(workspace, tmp_path / "unused.csv", "--save-tile-scores", str(tmp_path / "r.parquet"))
    assert rank.exit_code == 0 and (tmp_path / "r.shard-2-of-3.parquet").is_file(), rank.output
    monkeypatch.delenv("WORLD_SIZE")
    monkeypatch.delenv("RANK")
    merge = ["baselines", "plantclef", "merge-tiles", str(tmp_path / "s.shard-1-of-2.parquet"),
             str(tmp_path / "s.shard-0-of-2.parquet"), "--out", str(tmp_path / "merged.parquet")]
    res = CliRunner().invoke(cli, merge, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "merged.parquet").read_bytes() == (tmp_path / "one.parquet").read_bytes()
    assert (tmp_path / "merged.stats.parquet").read_bytes() == (tmp_path / "one.stats.parquet").read_bytes()
    short = CliRunner().invoke(cli, merge[:4] + ["--out", str(tmp_path / "half.parquet")])
    assert short.exit_code != 0 and "shard(s) 0/2 missing" in short.output
    mixed = CliRunner().invoke(cli, merge[:4] + [str(tmp_path / "r.shard-2-of-3.parquet"), "--out",
                                                 str(tmp_path / "mixed.parquet")])
    assert mixed.exit_code != 0 and "other settings" in mixed.output


def test_full_probabilities_sidecar_feeds_the_merge_rule_and_merges_across_shards(workspace, tmp_path):
    from agrieval.baselines.plantclef._full_probs import full_path, read_full
    from agrieval.baselines.plantclef._threshold_search import TargetUnreachable
    from agrieval.baselines.plantclef.aggregate import aggregate
    from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
    from agrieval.baselines.plantclef.tile_scores import read_tile_scores

    res = _predict(workspace, tmp_path / "f.csv", "--save-full-probs", "--save-top-k", "5",
                   "--save-tile-scores", str(tmp_path / "f.parquet"))
    assert res.exit_code == 0, res.output
    frame, meta = read_tile_scores(tmp_path / "f.parquet")
    dense, species = read_full(full_path(tmp_path / "f.parquet"), expect_meta=meta)
    assert sorted(dense) == sorted(set(frame["image_id"])) and all(p.shape == (10, N_CLASSES) for p in dense.values())
    for image_id, p in dense.items():  # the dense rows are the saved probabilities, class by class
        g = frame[frame["image_id"] == image_id]
        assert np.array_equal(p[g["tile"].to_numpy(), g["class_index"].to_numpy()], g["prob"].to_numpy())
    assert np.array_equal(species, np.asarray(workspace[2]))
    cfg = AggregationConfig(strategy="zmerge", target_mean=1.5, max_species=3, min_species=1)
    try:
        want = aggregate(frame, cfg, n_classes=N_CLASSES)  # every class saved: the long form is complete
    except TargetUnreachable as exc:
        want = str(exc)
    try:
        got = aggregate(frame, cfg, n_classes=N_CLASSES, dense=[(dense, species)])
    except TargetUnreachable as exc:
        got = str(exc)
    assert got == want
    for i in range(2):
        shard = _predict(workspace, tmp_path / "u.csv", "--save-full-probs", "--save-top-k", "5", "--shard",
                         f"{i}/2", "--save-tile-scores", str(tmp_path / "s.parquet"))
        assert shard.exit_code == 0, shard.output
    merged = CliRunner().invoke(cli, ["baselines", "plantclef", "merge-tiles", str(tmp_path / "s.shard-0-of-2.parquet"),
                                      str(tmp_path / "s.shard-1-of-2.parquet"), "--out", str(tmp_path / "m.parquet")])
    assert merged.exit_code == 0, merged.output
    assert full_path(tmp_path / "m.parquet").read_bytes() == full_path(tmp_path / "f.parquet").read_bytes()


def test_an_existing_full_sidecar_is_not_overwritten(workspace, tmp_path):
    from agrieval.baselines.plantclef._full_probs import full_path

    full_path(tmp_path / "x.parquet").write_text("mine")
    res = _predict(workspace, tmp_path / "x.csv", "--save-full-probs", "--save-tile-scores", str(tmp_path / "x.parquet"))
    assert res.exit_code != 0 and "already exists" in res.output
    assert full_path(tmp_path / "x.parquet").read_text() == "mine"
