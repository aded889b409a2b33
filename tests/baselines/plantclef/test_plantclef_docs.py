"""docs/plantclef.md's option tables are what the code renders (recipes, aggregation options)."""

from agrieval.baselines.plantclef.cli.doc_tables import DOC, rendered, tables


def test_the_generated_tables_of_the_docs_are_current():
    text = DOC.read_text(encoding="utf-8")
    assert rendered(text) == text, "regenerate with: python -m agrieval.baselines.plantclef.cli.doc_tables"


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

    from agrieval.baselines.plantclef.cli.aggregate import aggregate_cmd
    from agrieval.baselines.plantclef.cli.options import aggregation_config, apply_recipe
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
