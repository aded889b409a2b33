"""docs/plantclef.md's option tables are what the code renders (recipes, aggregation options)."""

from agrieval.baselines.plantclef._cli.doc_tables import DOC, rendered, tables


def test_the_generated_tables_of_the_docs_are_current():
    text = DOC.read_text(encoding="utf-8")
    assert rendered(text) == text, "regenerate with: python -m agrieval.baselines.plantclef._cli.doc_tables"


def test_every_recipe_and_every_option_is_in_the_docs():
    from dataclasses import fields

    from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
    from agrieval.baselines.plantclef.recipes import RECIPES

    text = DOC.read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in text for name in RECIPES)
    options = tables()["aggregation-options"]
    assert len(options.splitlines()) == 2 + len(fields(AggregationConfig))
    assert "`--use-z-score / --no-use-z-score`" in options and "| zmerge |" in options


def test_every_recipe_of_the_side_by_side_table_runs_from_aggregate():
    """Each row of "proven equal to" (3.5) names recipes that `aggregate --recipe` takes, with their rule."""
    import re

    from agrieval.baselines.plantclef._cli.aggregate import aggregate_cmd
    from agrieval.baselines.plantclef._cli.options import aggregation_config, apply_recipe
    from agrieval.baselines.plantclef.recipes import RECIPES

    text = DOC.read_text(encoding="utf-8")
    table = text.split("| recipe | proven equal to | how |")[1].split("\n\n")[0]
    names = set()
    for row in table.splitlines()[2:]:
        first = row.split("|")[1]
        base = re.findall(r"`([a-z0-9-]+)`", first)[0]
        family = "-".join(base.split("-")[:2])  # `dsgt-2025-grid` / `-transect`: dsgt-2025-transect
        names |= {base} | {family + suffix for suffix in re.findall(r"`(-[a-z0-9]+)`", first)}
    assert len(names) == 10 and names <= set(RECIPES), names
    for name in sorted(names):
        ctx = aggregate_cmd.make_context("aggregate", [".", "--recipe", name])
        kw = dict(ctx.params)
        apply_recipe(ctx, kw)
        cfg, _ = aggregation_config(ctx, kw)
        assert {k: getattr(cfg, k) for k in RECIPES[name].aggregation_values()} == RECIPES[name].aggregation_values()


def test_the_missing_weights_message_of_the_docs_is_the_codes_and_comes_before_torch(tmp_path):
    """The docs show the line the command prints for a missing checkpoint; the check runs before torch is
    imported (a fresh interpreter: torch is not in sys.modules when the line is printed)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[3] / "docs" / "plantclef.md").read_text(encoding="utf-8")
    shown = re.search(r"^error \[checkpoint_missing\] .*$", docs, re.M).group(0)
    images = tmp_path / "images"
    images.mkdir()
    probe = ("import sys; from click.testing import CliRunner; "
             "from agrieval.scoring.cli.main import cli; "
             "r = CliRunner().invoke(cli, ['baselines', 'plantclef', 'predict', sys.argv[1], '--checkpoint', "
             "'models/model_best.pth.tar', '--class-mapping', 'models/class_mapping.txt']); "
             "print(r.exit_code); print(r.output.strip()); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe, str(images)], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120).stdout.splitlines()
    assert out[0] == "2", out
    assert out[1] == shown
    assert out[-1] == "False"
    assert "https://zenodo.org/records/10848263" in shown
    assert "PlantNet_PlantCLEF2024_pretrained_models_on_the_flora_of_south-western_europe.tar" in shown
