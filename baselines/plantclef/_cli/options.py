"""The options shared by several commands: aggregation (generated from ``AggregationConfig``), tiling, recipes.

Each aggregation option is made from one field of ``aggregation_config.AggregationConfig``: its name, type,
default and help come from the field, so the dataclass, the command line and the recipes' keys cannot drift
apart. A recipe sets the options left at their default; an option given on the command line that does nothing
with the chosen strategy is a usage error (``AggregationConfig.ignored``).
"""

from __future__ import annotations

from dataclasses import Field, fields
from pathlib import Path

import click
from click.core import ParameterSource

from agrieval.baselines.plantclef.aggregation_config import AggregationConfig
from agrieval.baselines.plantclef.geometry import BORDERS
from agrieval.baselines.plantclef.preprocess import TILE_POLICIES
from agrieval.baselines.plantclef.recipes import RECIPES, get_recipe
from agrieval.scoring.cli._options import load_definition as competition

# Imported inside functions, so that importing this module loads only what it needs: baselines.plantclef.genus, read
# only when a genus file is given.


def flag_of(f: Field, value=True) -> str:
    """The option name of a config field (``--`` + the field's name, dashes for underscores); for an on/off
    pair, the flag that gives ``value``."""
    if "flags" in f.metadata:
        return f.metadata["flags"][0 if value else 1]
    return f.metadata.get("flag", "--" + f.name.replace("_", "-"))


def parse_floats(text: str | None) -> tuple[float, ...] | None:
    """``1,1,0.5`` -> (1.0, 1.0, 0.5); ``none`` or empty -> None."""
    if text is None or text.strip().lower() in ("", "none"):
        return None
    try:
        return tuple(float(t) for t in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma list of numbers, e.g. 1,1,0.5") from None


def _number_type(f: Field):
    m = f.metadata
    base = f.type.split(" |")[0]  # "int | None" -> "int" (the module uses postponed annotations)
    if base == "int":
        return click.IntRange(min=m["minimum"]) if "minimum" in m else click.INT
    if "minimum" in m:
        return click.FloatRange(min=m["minimum"], min_open=m.get("min_open", False))
    return click.FLOAT


def field_option(f: Field):
    """The click option of one ``AggregationConfig`` field."""
    m = f.metadata
    decls = [flag_of(f), *m.get("aliases", ())]
    common = {"help": m["help"], "metavar": m.get("metavar")}
    if "flags" in m:  # a bool: its on and off flags
        on, off = m["flags"]
        return click.option(f"{on}/{off}", f.name, default=f.default, show_default=True, help=m["help"])
    if m.get("file"):  # a bool set by giving the file it needs
        return click.option(*decls, f.name, type=click.Path(dir_okay=False, path_type=Path), default=None, **common)
    if "choices" in m:
        none = m.get("none")
        default = none if f.default is None and none else f.default

        def to_value(ctx, param, value, none=none):
            return None if none is not None and value == none else value

        return click.option(*decls, f.name, type=click.Choice(list(m["choices"])), default=default,
                            show_default=default is not None, callback=to_value, **common)
    if m.get("parse") == "floats":
        return click.option(*decls, f.name, default=None, callback=lambda ctx, param, v: parse_floats(v), **common)
    return click.option(*decls, f.name, type=_number_type(f), default=f.default, show_default=f.default is not None,
                        **common)


def aggregation_options(fn):
    """``--recipe`` and one option per ``AggregationConfig`` field."""
    opts = [click.option("--recipe", type=click.Choice(sorted(RECIPES)), default=None,
                         help="A team's published configuration (see `recipes`); explicit flags override it."),
            *(field_option(f) for f in fields(AggregationConfig))]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def tiling_options(fn):
    opts = [
        click.option("--tiling", multiple=True, default=("grid:4",), show_default=True,
                     help="grid:N, grid:COLSxROWS, window:SIZE[:STRIDE], cover:SIZE, square:N, floor:N, "
                          "resized:N, scale:S:O or full; repeat for several scales."),
        click.option("--tile-policy", type=click.Choice(list(TILE_POLICIES)), default="crop", show_default=True,
                     help="A tile that is not square: crop its centred square (timm eval transform), pad it "
                          "(letterbox on black) or stretch it to the square input."),
        click.option("--border", "border_mode", type=click.Choice(list(BORDERS)), default="snap",
                     show_default=True, help="Windows at the edge: snap inside the image, pad with zeros past the far "
                                             "edge, or centre the zero padding (kornia's compute_padding)."),
        click.option("--crop-border", default="0", show_default=True, help="Border removed from each side: px or N%."),
        click.option("--centre-crop", type=click.FloatRange(0, 1, max_open=True), default=0.0, show_default=True,
                     help="Keep the centred int(w x (1-P)) x int(h x (1-P)) (Chlorophyll Crew's crop_side_percent, "
                          "torchvision CenterCrop)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def apply_recipe(ctx: click.Context, kw: dict) -> None:
    """Recipe values for every option left at its default (explicit flags win)."""
    name = kw.pop("recipe", None)
    if name is None:
        return
    for key, value in get_recipe(name).values.items():
        if key in kw and ctx.get_parameter_source(key) in (ParameterSource.DEFAULT, None):
            kw[key] = tuple(value) if isinstance(value, list) else value


def aggregation_config(ctx: click.Context, kw: dict) -> tuple[AggregationConfig, Path | None]:
    """Pop the aggregation options from ``kw`` (after ``apply_recipe``): the config and the genus file of
    ``--one-per-genus``. An option given on the command line that the setting does not read is refused."""
    values = {f.name: kw.pop(f.name) for f in fields(AggregationConfig)}
    genus_file = values["one_per_genus"]
    values["one_per_genus"] = genus_file is not None
    cfg = AggregationConfig(**values)
    flags = {f.name: flag_of(f, getattr(cfg, f.name)) for f in fields(AggregationConfig)}
    given = [n for n in cfg.ignored() if ctx.get_parameter_source(n) in (ParameterSource.COMMANDLINE,
                                                                           ParameterSource.ENVIRONMENT)]
    if given:
        setting = f"--strategy {cfg.strategy}, --group-mode {cfg.group_mode or 'none'}" + (
            f", --target-mean {cfg.target_mean:g}" if cfg.target_mean is not None else "")
        raise click.UsageError(f"{', '.join(flags[n] for n in given)}: does nothing with {setting}; leave it out "
                               "(`agrieval baselines plantclef recipes --options` lists what each strategy reads)",
                               ctx=ctx)
    return cfg, genus_file


def load_genus(path: Path | None):
    from agrieval.baselines.plantclef._genus import load_genus as load

    return load(path) if path is not None else None


def competition_definition(name: str):
    """The competition's definition (a name or a .toml), read when the command runs."""
    return competition(name)
