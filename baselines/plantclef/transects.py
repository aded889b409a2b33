"""Transect of each quadrat, for sharing predictions across repeat surveys.

The rules are the scoring core's (``agrieval.scoring.runtime.grouping``): no official rule maps
a PlantCLEF quadrat id to its transect, so the rule is always named. Default:
the competition definition's own rule (``strip-date`` for PlantCLEF).
"""

from __future__ import annotations

from agrieval.scoring.runtime.definition import CompetitionDefinition, GroupingSpec
from agrieval.scoring.runtime.grouping import FIVE_PATTERNS, SITE_PATTERNS, group_ids

# Chlorophyll Crew's ``extract_plot_name`` (geranium12/plant-clef-2025, src/prediction.py), re-expressed:
# CBN-PdlC / CBN-Pla ids lose their last 9 characters ("-YYYYMMDD"); GUARDEN-CBNMed ids are cut at the first
# dash from position 15 on; every other id is its own plot (the regex rule's whole-id fallback).
_PLOT_PATTERNS: tuple[str, ...] = (
    r"^(CBN-(?:PdlC|Pla).*).{9}$",
    r"^(GUARDEN-CBNMed-[^-]*)-",
)
_PATTERN_SETS = {"five-pattern": FIVE_PATTERNS, "site": SITE_PATTERNS, "chlorophyll-plot": _PLOT_PATTERNS}
# ``group_same_plot_by_year`` (src/prediction.py ~433-435): a matched plot name gets "_" + the id's year
# (``image_path[-8:-4]`` of the quadrat id); an id that no pattern matches stays its own plot, without a year.
_YEAR_RULES = {"chlorophyll-plot-year": "chlorophyll-plot"}
RULES = ("strip-date", "first-n-parts", *_PATTERN_SETS, *_YEAR_RULES, "regex")  # "regex": an alias of "site"


def transect_map(ids: list[str], definition: CompetitionDefinition, rule: str | None = None,
                 n_parts: int = 3) -> dict[str, str]:
    """Image id -> transect name."""
    if rule in _YEAR_RULES:
        base = transect_map(ids, definition, _YEAR_RULES[rule], n_parts)
        return {i: f"{g}_{i[-8:-4]}" if g != i else g for i, g in base.items()}
    if rule is None:
        spec = definition.grouping
        if spec is None or spec.rule in ("column-only", "whole-id"):
            raise ValueError(f"competition {definition.name} derives no transect from ids; pass --transect-rule "
                             f"({', '.join(RULES)})")
    elif rule in _PATTERN_SETS or rule == "regex":
        spec = GroupingSpec(name="transect", rule="regex", patterns=list(_PATTERN_SETS.get(rule, SITE_PATTERNS)))
    elif rule in RULES:
        spec = GroupingSpec(name="transect", rule=rule, n_parts=n_parts)
    else:
        raise ValueError(f"transect rule {rule!r} is not one of {', '.join(RULES)}")
    return dict(zip(ids, group_ids(ids, spec)))
