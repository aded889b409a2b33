"""docs/plantclef.md's option tables are what the code renders (recipes, aggregation options)."""

from baselines.plantclef.cli.doc_tables import DOC, rendered, tables


def test_the_generated_tables_of_the_docs_are_current():
    text = DOC.read_text(encoding="utf-8")
    assert rendered(text) == text, "regenerate with: python -m baselines.plantclef.cli.doc_tables"


def test_every_recipe_and_every_option_is_in_the_docs():
    from dataclasses import fields

    from baselines.plantclef.aggregate import AggregationConfig
    from baselines.plantclef.recipes import RECIPES

    text = DOC.read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in text for name in RECIPES)
    options = tables()["aggregation-options"]
    assert len(options.splitlines()) == 2 + len(fields(AggregationConfig))
    assert "`--use-z-score / --no-use-z-score`" in options and "| zmerge |" in options
