"""The recipe table and the aggregation options table, rendered from the recipes, the config and the options.

Each recipe value is written as the option that sets it, taken from ``predict``'s own click options (the
command that has every option a recipe can set): an on/off value as its flag or its negation, a repeated option
once per value, a list of numbers as its comma list. ``recipes`` prints these tables and ``docs/plantclef.md``
holds them (``python -m agrieval.baselines.plantclef._cli.doc_tables`` rewrites them; a test checks they are current).
"""

from __future__ import annotations

from dataclasses import fields

import click

from agrieval.baselines.plantclef._cli.predict import predict
from agrieval.baselines.plantclef.aggregation_config import STRATEGIES, AggregationConfig
from agrieval.baselines.plantclef.recipes import RECIPES, Recipe


def recipe_options() -> dict[str, click.Option]:
    """Recipe key -> the option that sets it (every option of ``predict``)."""
    return {p.name: p for p in predict.params if isinstance(p, click.Option)}


def _value(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_value(v) for v in value)
    return str(value)


def render_option(option: click.Option, value) -> str:
    """One recipe value as the option that sets it (``no --x`` for an option left unset)."""
    name = option.opts[0]
    if option.is_flag and not option.multiple:
        if value:
            return name
        return option.secondary_opts[0] if option.secondary_opts else f"no {name}"
    if value is None:
        if isinstance(option.type, click.Choice) and "none" in option.type.choices:
            return f"{name} none"
        return f"no {name}"
    if option.multiple:
        return " ".join(f"{name} {_value(v)}" for v in value)
    return f"{name} {_value(value)}"


def recipe_lines(recipe: Recipe) -> list[str]:
    options = recipe_options()
    return [render_option(options[key], value) for key, value in recipe.values.items()]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def recipe_table(markdown: bool = False) -> str:
    """Every recipe with its option values, its source's other settings and its source."""
    if markdown:
        lines = ["| recipe | what it does | option values | the source's other settings | source | "
                 "not fixed by the source |",
                 "| :--- | :--- | :--- | :--- | :--- | :--- |"]
        for r in RECIPES.values():
            values = ", ".join(f"`{v}`" for v in recipe_lines(r))
            variants = "; ".join(f"`{o}`: {_cell(what)}" for o, what in r.variants) or "-"
            lines.append(f"| `{r.name}` | {_cell(r.summary)} | {values} | {variants} | {_cell(r.source)} | "
                         f"{_cell(r.choices) or '-'} |")
        return "\n".join(lines) + "\n"
    out = []
    for r in RECIPES.values():
        out.append(f"{r.name}: {r.summary}")
        out += [f"  {v}" for v in recipe_lines(r)]
        out += [f"  other setting of the source: {o}  ({what})" for o, what in r.variants]
        out.append(f"  source: {r.source}")
        if r.choices:
            out.append(f"  not fixed by the source: {r.choices}")
    return "\n".join(out) + "\n"


def readers(name: str) -> list[str]:
    """The strategies that read the config field ``name`` (before the conditions of ``ignored``)."""
    return [s for s, strategy in STRATEGIES.items() if name == "strategy" or name in strategy.options()]


def options_table(markdown: bool = False) -> str:
    """The aggregation options of ``aggregate`` and ``predict``: default, the strategies that read them, help."""
    options = recipe_options()
    rows = []
    for f in fields(AggregationConfig):
        option = options[f.name]
        names = " / ".join([*option.opts, *option.secondary_opts])
        default = option.default if not option.is_flag else (option.opts[0] if option.default
                                                               else option.secondary_opts[0])
        who = readers(f.name)
        read_by = "all" if len(who) == len(STRATEGIES) else ", ".join(who)
        rows.append((names, "-" if default is None else _value(default), read_by, f.metadata["help"]))
    if markdown:
        lines = ["| option | default | read by | what it does |", "| :--- | :--- | :--- | :--- |"]
        lines += [f"| `{n}` | `{d}` | {r} | {_cell(h)} |" for n, d, r, h in rows]
        return "\n".join(lines) + "\n"
    return "".join(f"{n} (default {d}; read by {r}): {h}\n" for n, d, r, h in rows)

