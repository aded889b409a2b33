"""Transect of each quadrat, for sharing predictions across repeat surveys.

The rules are the scoring core's (``scoring.runtime.grouping``): no official rule maps
a PlantCLEF quadrat id to its transect, so the rule is always named. Default:
the competition definition's own rule (``strip-date`` for PlantCLEF).
"""

from __future__ import annotations

from scoring.runtime.definition import CompetitionDefinition, GroupingSpec
from scoring.runtime.grouping import FIVE_PATTERNS, SITE_PATTERNS, group_ids

# Chlorophyll Crew's ``extract_plot_name`` (geranium12/plant-clef-2025, src/prediction.py), re-expressed:
# CBN-PdlC / CBN-Pla ids lose their last 9 characters ("-YYYYMMDD"); GUARDEN-CBNMed ids are cut at the first
# dash from position 15 on; every other id is its own plot (the regex rule's whole-id fallback).
PLOT_PATTERNS: tuple[str, ...] = (
    r"^(CBN-(?:PdlC|Pla).*).{9}$",
    r"^(GUARDEN-CBNMed-[^-]*)-",
)
PATTERN_SETS = {"five-pattern": FIVE_PATTERNS, "site": SITE_PATTERNS, "chlorophyll-plot": PLOT_PATTERNS}
RULES = ("strip-date", "first-n-parts", *PATTERN_SETS, "regex")  # "regex": an alias of "site", kept for old commands


def transect_map(ids: list[str], definition: CompetitionDefinition, rule: str | None = None,
                 n_parts: int = 3) -> dict[str, str]:
    """Image id -> transect name."""
    if rule is None:
        spec = definition.grouping
        if spec is None or spec.rule in ("column-only", "whole-id"):
            raise ValueError(f"competition {definition.name} derives no transect from ids; pass --transect-rule "
                             f"({', '.join(RULES)})")
    elif rule in PATTERN_SETS or rule == "regex":
        spec = GroupingSpec(name="transect", rule="regex", patterns=list(PATTERN_SETS.get(rule, SITE_PATTERNS)))
    elif rule in RULES:
        spec = GroupingSpec(name="transect", rule=rule, n_parts=n_parts)
    else:
        raise ValueError(f"transect rule {rule!r} is not one of {', '.join(RULES)}")
    return dict(zip(ids, group_ids(ids, spec)))
