"""The training flags of ``agrieval baselines ctv run | run-all | slurm``, generated from ``TrainConfig``.

Each flag is made from one field of ``config.TrainConfig`` that carries a help text in its metadata: the
name (``--`` + the field's name, dashes for underscores), type, choices and ``nargs`` (a tuple's length) come
from the field, and the help ends with the value every preset gives it, read from ``PRESETS`` through
``make_config``, so ``--help`` cannot contradict a preset. Every flag defaults to None: "the preset's value".
"""

from __future__ import annotations

from dataclasses import Field, fields

import click

from agrieval.baselines.ctv.config import PRESETS, TrainConfig, make_config

__all__ = ["TRAIN_FIELDS", "as_flags", "format_value", "overrides", "preset_values", "train_option",
           "train_options"]

#: the run settings that are flags (the dataclass's fields with a help text), in declaration order
TRAIN_FIELDS: tuple[Field, ...] = tuple(f for f in fields(TrainConfig) if "help" in f.metadata)


def format_value(value) -> str:
    """A setting's value as the help shows it: on/off, space-separated tuples, ``%g`` floats, none."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return format(value, "g")
    if isinstance(value, (tuple, list)):
        return " ".join(format_value(v) for v in value)
    return str(value)


def preset_values(name: str) -> str:
    """``paper, demo: 0.3; official: 0.5``: each preset's value of one setting, presets with the same value
    together (in ``PRESETS`` order); one value when they all agree."""
    groups: dict[str, list[str]] = {}
    for preset in PRESETS:
        groups.setdefault(format_value(getattr(make_config(preset), name)), []).append(preset)
    if len(groups) == 1:
        return next(iter(groups))
    return "; ".join(f"{', '.join(presets)}: {value}" for value, presets in groups.items())


def _flags(f: Field) -> tuple[str, str | None]:
    if "flags" in f.metadata:
        return f.metadata["flags"]
    return "--" + f.name.replace("_", "-"), None


def _type(f: Field):
    m = f.metadata
    base = f.type.split(" |")[0]  # postponed annotations: "str | None" -> "str"
    if "choices" in m:
        return click.Choice(list(m["choices"]))
    if "path" in m:
        return click.Path(dir_okay=m["path"] == "dir", file_okay=m["path"] == "file")
    if base.startswith("tuple[") or base == "float":
        return float
    return {"int": int, "str": str}[base]


def train_option(f: Field):
    """The click option of one ``TrainConfig`` field (default None: the preset's value)."""
    m = f.metadata
    help_text = f"{m['help']} [{preset_values(f.name)}]"
    on, off = _flags(f)
    if off:
        return click.option(f"{on}/{off}", f.name, default=None, help=help_text)
    if m.get("flag_only"):
        return click.option(on, f.name, is_flag=True, default=None, help=help_text)
    nargs = len(f.default) if isinstance(f.default, tuple) else 1
    return click.option(on, f.name, type=_type(f), nargs=nargs, default=None, metavar=m.get("metavar"),
                        help=help_text)


def train_options(fn):
    """One option per run setting, in the dataclass's order."""
    for f in reversed(TRAIN_FIELDS):
        fn = train_option(f)(fn)
    return fn


def overrides(params: dict) -> dict:
    """The settings given on the command line (the others stay the preset's)."""
    return {f.name: params[f.name] for f in TRAIN_FIELDS if params.get(f.name) is not None}


def as_flags(params: dict) -> list[str]:
    """The given training flags, back as command-line words (for the sbatch script)."""
    words: list[str] = []
    for f in TRAIN_FIELDS:
        v = params.get(f.name)
        if v is None:
            continue
        on, off = _flags(f)
        if off:
            words.append(on if v else off)
        elif f.metadata.get("flag_only"):
            if v:
                words.append(on)
        elif isinstance(v, (tuple, list)):
            words += [on, *map(str, v)]
        else:
            words += [on, str(v)]
    return words
