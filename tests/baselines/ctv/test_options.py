"""The run settings' flags are generated from ``TrainConfig``: ``--help`` names every preset's value."""

from __future__ import annotations

import dataclasses
import re

import pytest
from click.testing import CliRunner

from agrieval.baselines.ctv._cli import ctv
from agrieval.baselines.ctv.config import PRESETS, TrainConfig, make_config
from agrieval.baselines.ctv.options import TRAIN_FIELDS, as_flags, overrides

NOT_FLAGS = {"preset", "protocol", "arch", "fold", "extra"}  # the commands' own options, or not a setting


def _shown(value) -> str:
    """How a value should read in the help, written here apart from the module's formatter."""
    if value is None:
        return "none"
    if value is True or value is False:
        return {True: "on", False: "off"}[value]
    if isinstance(value, (list, tuple)):
        return " ".join(_shown(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _help_brackets(command: str) -> dict[str, str]:
    """``--flag`` -> the text of the last [...] of its help, from the rendered ``--help`` (one long line each)."""
    res = CliRunner().invoke(ctv, [command, "--help"], terminal_width=10_000)
    assert res.exit_code == 0, res.output
    blocks: list[str] = []  # one per option: a long flag pair puts its help on the next line
    for line in res.output.split("Options:", 1)[1].splitlines():
        if re.match(r"\s{2}-", line):
            blocks.append(line)
        elif blocks:
            blocks[-1] += " " + line.strip()
    out = {}
    for block in blocks:
        m = re.match(r"\s+(--[a-z0-9-]+)(?: / --[a-z0-9-]+)?\s.*\[([^\[\]]*)\]\s*$", block)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _per_preset(bracket: str) -> dict[str, str]:
    if ":" not in bracket or not any(bracket.startswith(p) for p in PRESETS):
        return {p: bracket for p in PRESETS}  # every preset agrees
    out = {}
    for part in bracket.split("; "):
        names, _, value = part.partition(": ")
        for name in names.split(", "):
            out[name] = value
    return out


def test_every_setting_is_a_flag():
    settings = {f.name for f in dataclasses.fields(TrainConfig)} - NOT_FLAGS
    assert {f.name for f in TRAIN_FIELDS} == settings


@pytest.mark.parametrize("command", ["run", "run-all", "slurm"])
def test_help_names_every_presets_value(command):
    brackets = _help_brackets(command)
    configs = {p: make_config(p) for p in PRESETS}
    for f in TRAIN_FIELDS:
        flag = f.metadata.get("flags", ["--" + f.name.replace("_", "-")])[0]
        assert flag in brackets, flag
        stated = _per_preset(brackets[flag])
        assert set(stated) == set(PRESETS), (flag, brackets[flag])
        for preset, cfg in configs.items():
            assert stated[preset] == _shown(getattr(cfg, f.name)), (flag, preset, brackets[flag])


def test_the_drifted_defaults_now_read_as_the_presets():
    """The hand-written table said auto and 0 where official sets off and 4."""
    brackets = _help_brackets("run")
    assert _per_preset(brackets["--channels-last"])["official"] == "off"
    assert _per_preset(brackets["--num-workers"])["official"] == "4"
    assert PRESETS["official"]["num_workers"] == 4 and PRESETS["official"]["channels_last"] == "off"


def test_flags_round_trip_through_the_command_line():
    """What ``slurm`` writes into the sbatch script parses back to the same settings."""
    given = {"epochs": 3, "rrc_scale": (0.5, 1.0), "pretrained": False, "deterministic": True, "amp": "fp16",
             "color_jitter": (0.1, 0.2, 0.3, 0.0), "cache": "c", "drop_last": True}
    words = as_flags(given)
    seen = {}

    train_options = __import__("agrieval.baselines.ctv.options", fromlist=["x"]).train_options

    @ctv.command("_probe")
    @train_options
    def probe(**params):
        seen.update(overrides(params))

    try:
        res = CliRunner().invoke(ctv, ["_probe", *words])
        assert res.exit_code == 0, res.output
    finally:
        ctv.commands.pop("_probe")
    assert seen == given
