"""The aggregation options: one source (AggregationConfig's fields), recipes rendered as options, every team
setting reachable from the command line, options a strategy ignores refused, the two bugs of issue 35."""

import shlex
from dataclasses import fields

import click
import pytest
from click.testing import CliRunner

from agrieval.baselines.plantclef._cli.aggregate import aggregate_cmd
from agrieval.baselines.plantclef._cli.options import aggregation_config, apply_recipe, flag_of
from agrieval.baselines.plantclef._cli.predict import predict
from agrieval.baselines.plantclef._cli.recipe_table import recipe_lines, recipe_table
from agrieval.baselines.plantclef._pooling import contained_ids, containment_notes
from agrieval.baselines.plantclef._synthetic import make_quadrats
from agrieval.baselines.plantclef.aggregate import aggregate
from agrieval.baselines.plantclef.aggregation_config import STRATEGIES, AggregationConfig
from agrieval.baselines.plantclef.recipes import RECIPES
from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli

N_CLASSES = 5
IDS = ["CBN-A-1-20240615", "CBN-A-1-20240615-2", "CBN-B-2-20240615", "CBN-C-3-20240615"]  # the first in the second


@pytest.fixture(scope="module")
def tiles(tmp_path_factory, tiny_checkpoint):
    """Tile scores (every class saved, image stats, the dense sidecar) of 4 quadrats from the tiny model."""
    folder = tmp_path_factory.mktemp("options")
    species = sorted(load_competition("plantclef2025").labels)[:N_CLASSES]
    (folder / "class_mapping.txt").write_text("".join(f"{s}\n" for s in species))
    make_quadrats(folder / "images", IDS, N_CLASSES, grid=2, width=150, height=120)
    res = CliRunner().invoke(cli, [
        "baselines", "plantclef", "predict", str(folder / "images"), "--checkpoint", str(tiny_checkpoint[0]),
        "--class-mapping", str(folder / "class_mapping.txt"), "--preset", "tiny", "--tiling", "grid:2",
        "--tiling", "grid:3", "--device", "cpu", "--save-top-k", str(N_CLASSES), "--save-full-probs",
        "--save-tile-scores", str(folder / "tiles.parquet"), "--out", str(folder / "sub.csv"), "--quiet"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return folder / "tiles.parquet"


def _aggregate(tiles, *args):
    out = tiles.with_name("agg.csv")
    return CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", str(tiles), "--out", str(out),
                                    "--overwrite", *args])


def _parsed(command: click.Command, args: list[str]) -> tuple[AggregationConfig, click.Context]:
    ctx = command.make_context(command.name, args)
    kw = dict(ctx.params)
    apply_recipe(ctx, kw)
    return aggregation_config(ctx, kw)[0], ctx


def test_every_config_field_is_an_option_of_aggregate_and_predict_with_its_default():
    for command in (aggregate_cmd, predict):
        options = {p.name: p for p in command.params if isinstance(p, click.Option)}
        for f in fields(AggregationConfig):
            assert f.name in options, (command.name, f.name)
            assert flag_of(f) in options[f.name].opts + options[f.name].secondary_opts
        cfg, _ = _parsed(command, ["."])
        assert cfg == AggregationConfig()  # every default is the dataclass's


def test_every_recipe_key_is_an_option_and_each_recipe_parses_to_its_values():
    options = {p.name for p in predict.params}
    for recipe in RECIPES.values():
        assert set(recipe.values) <= options, recipe.name
        cfg, _ = _parsed(predict, [".", "--recipe", recipe.name])
        for key, value in recipe.aggregation_values().items():
            assert getattr(cfg, key) == value, (recipe.name, key)


def test_each_recipe_value_is_rendered_as_the_option_that_sets_it():
    # Bug: every true/false value was printed as --strict.
    chloro = recipe_lines(RECIPES["chlorophyll-2025"])
    assert "--save-full-probs" in chloro and "--strict" not in chloro and "--inclusive" not in chloro
    assert "--no-use-z-score" in recipe_lines(RECIPES["chlorophyll-2025-probs"])
    assert "--strict" in recipe_lines(RECIPES["winner-2025"])
    assert "--group-mode contains" in recipe_lines(RECIPES["winner-2025"])
    table = recipe_table()
    assert "--tiling resized:1 --tiling resized:2" in table and "(9 levels)" not in table
    # Each rendered line, given back to the command line, sets the recipe's values.
    for recipe in RECIPES.values():
        args = [a for line in recipe_lines(recipe) if not line.startswith("no ") for a in shlex.split(line)]
        cfg, ctx = _parsed(predict, [".", *args])
        assert cfg == _parsed(predict, [".", "--recipe", recipe.name])[0], recipe.name
        for key, value in recipe.values.items():
            if key not in {f.name for f in fields(AggregationConfig)}:
                got = ctx.params[key]
                assert (list(got) if isinstance(got, tuple) else got) == value, (recipe.name, key)


def test_each_other_setting_of_a_recipes_source_is_reachable_from_the_command_line(tmp_path):
    genus = tmp_path / "genus.csv"
    for recipe in RECIPES.values():
        for options, _ in recipe.variants:
            args = shlex.split(options.replace("FILE", str(genus)))
            cfg, ctx = _parsed(predict, [".", "--recipe", recipe.name, *args])
            assert all(ctx.get_parameter_source(p.name) == click.core.ParameterSource.COMMANDLINE
                       for p in predict.params if p.name in ctx.params and any(a in p.opts for a in args))
    assert _parsed(aggregate_cmd, [".", "--recipe", "chlorophyll-2025", "--no-use-z-score"])[0].use_z is False


def test_the_winners_recipe_takes_a_target_mean(tiles):
    # Bug: "transect mode contains pools scores before the keep rule: not with multiscale and a target mean".
    res = _aggregate(tiles, "--recipe", "winner-2025", "--target-mean", "2")
    assert res.exit_code == 0, res.output
    assert "target_mean=2" in res.output and "transect=contains" in res.output


def test_contains_with_a_target_mean_bisects_the_pooled_scores():
    """The winner's order: each image's scores max-pooled over the images whose id contains its id, then
    calc_seuil on the pooled vectors, then the top 10 strictly above the threshold."""
    import numpy as np
    import pandas as pd

    from agrieval.baselines.plantclef._threshold_search import threshold_for_mean_count

    rng = np.random.default_rng(3)
    ids = ["A-1", "A-10", "B-2", "C-3", "C-30"]
    rows, best = [], {}
    for image_id in ids:
        p = rng.dirichlet(np.ones(6), size=4)  # 4 tiles, 6 classes: every class saved
        best[image_id] = p.max(axis=0)
        for t, tile in enumerate(p):
            for r, c in enumerate(np.argsort(-tile, kind="stable")):
                rows.append((image_id, t, 0, r, 100 + int(c), float(tile[c])))
    frame = pd.DataFrame(rows, columns=["image_id", "tile", "level", "rank", "species_id", "prob"])
    cfg = AggregationConfig(strategy="multiscale", group_mode="contains", target_mean=2.5, strict=True,
                            max_species=10)
    got = aggregate(frame, cfg, n_classes=6)
    pooled = {i: np.max([best[j] for j in ids if i in j], axis=0) for i in ids}
    x = threshold_for_mean_count(list(pooled.values()), 2.5)
    want = {i: [100 + int(c) for c in np.argsort(-v, kind="stable") if v[c] > x][:10] for i, v in pooled.items()}
    assert got == want


def test_ids_that_contain_one_another_are_named_with_the_grouping(tiles):
    assert contained_ids(IDS) == [(IDS[0], IDS[1])]
    assert containment_notes(IDS, None) == [] and containment_notes(IDS[2:], "contains") == []
    res = _aggregate(tiles, "--recipe", "winner-2025")
    assert res.exit_code == 0, res.output
    assert f"'{IDS[1]}' contains '{IDS[0]}'" in res.output and "--group-mode none" in res.output
    alone = _aggregate(tiles, "--recipe", "winner-2025", "--group-mode", "none")
    assert alone.exit_code == 0 and "contains" not in alone.output
    assert "whose id contains its id" in recipe_table()  # named in the recipe listing


@pytest.mark.parametrize("args, flag", [
    (["--strategy", "zmerge", "--tile-transform", "zscore"], "--tile-transform"),
    (["--recipe", "chlorophyll-2025", "--top-k", "3"], "--top-k"),
    (["--strategy", "max", "--min-votes", "2"], "--min-votes"),
    (["--strategy", "union", "--pool-k", "3"], "--pool-k"),
    (["--strategy", "vote", "--no-use-z-score"], "--no-use-z-score"),
    (["--recipe", "winner-2025", "--target-mean", "2", "--threshold", "0.2"], "--threshold"),
])
def test_an_option_the_strategy_does_not_read_is_a_usage_error(tiles, args, flag):
    res = _aggregate(tiles, *args)
    assert res.exit_code == 2, res.output
    assert "[bad_option]" in res.output and flag in res.output and "does nothing with" in res.output


def test_every_strategy_of_the_table_is_computed_one_way():
    """aggregation_config declares the strategies, aggregate computes them: each by a score and a keep rule, or
    (those that give lists) by a whole algorithm, never both, none missing."""
    from agrieval.baselines.plantclef import aggregate as computed

    assert not set(computed.SCORE_AND_KEEP) & set(computed.LISTS)
    assert set(computed.SCORE_AND_KEEP) | set(computed.LISTS) == set(STRATEGIES)
    assert {name for name, s in STRATEGIES.items() if s.gives_lists} == set(computed.LISTS)


def test_zmerge_is_an_entry_of_the_strategy_table_and_reads_the_probabilities_variant(tiles):
    assert STRATEGIES["zmerge"].gives_lists and "use_z" in STRATEGIES["zmerge"].reads
    # The tiny random model gives every tile of a quadrat one top-1: a target between 0 and 1 species.
    z = _aggregate(tiles, "--recipe", "chlorophyll-2025", "--target-mean", "0.5", "--min-species", "0")
    assert z.exit_code == 0, z.output
    probs = _aggregate(tiles, "--recipe", "chlorophyll-2025", "--target-mean", "0.5", "--min-species", "0",
                       "--no-use-z-score")
    assert probs.exit_code == 0 and "probabilities" in probs.output, probs.output


def test_errors_are_mapped_by_class_the_most_specific_first():
    from agrieval.baselines.plantclef._cli.errors import code_of, input_codes
    from agrieval.baselines.plantclef._exactness import NotExact
    from agrieval.baselines.plantclef._prior import PriorError
    from agrieval.baselines.plantclef.tile_scores import TileScoresError

    codes = input_codes()
    assert code_of(PriorError("x"), codes) == "prior_invalid"
    assert code_of(TileScoresError("x"), codes) == "tile_scores_invalid"
    assert code_of(NotExact("x"), codes) == "bad_option"  # a ValueError
    assert code_of(RuntimeError("x"), codes) is None  # unexpected: a traceback, not a code

    class CheckpointError(ValueError):  # the same name, another class: not the checkpoint's code
        pass

    assert code_of(CheckpointError("x"), codes) == "bad_option"


def test_merge_tiles_help_names_the_files_predict_shard_writes_and_no_submission_code():
    from pathlib import Path

    from agrieval.baselines.plantclef._shards import shard_path

    res = CliRunner().invoke(cli, ["baselines", "plantclef", "merge-tiles", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert shard_path(Path("out/tiles.parquet"), (0, 2)).as_posix() in text
    assert "submission" not in text.split("Exit codes")[1]
    agg = CliRunner().invoke(cli, ["baselines", "plantclef", "aggregate", "--help"])
    assert "1 the submission built was rejected" in " ".join(agg.output.split())
