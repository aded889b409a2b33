"""Transect rules on the 2,105 real PlantCLEF 2025 ids: the counts documented in scoring/runtime/grouping.py."""

import csv

import pytest

from agrieval.scoring.runtime.definition import GroupingSpec
from agrieval.scoring.runtime.grouping import FIVE_PATTERNS, SITE_PATTERNS, group_ids


@pytest.fixture(scope="module")
def real_ids(real_files):
    rows = list(csv.reader(open(real_files / "plantclef2025_submission_topk5.csv", newline="")))[1:]
    assert len(rows) == 2105
    return [r[0] for r in rows]


@pytest.mark.parametrize(("spec", "expected"), [
    (GroupingSpec(rule="strip-date"), 656),
    (GroupingSpec(rule="first-n-parts", n_parts=3), 257),
    (GroupingSpec(rule="regex", patterns=list(FIVE_PATTERNS)), 425),
    (GroupingSpec(rule="regex", patterns=list(SITE_PATTERNS)), 183),
])
def test_group_counts_on_real_ids(real_ids, spec, expected):
    assert len(set(group_ids(real_ids, spec))) == expected


def test_rules_on_examples():
    ids = ["CBN-PdlC-A1-20130807", "GUARDEN-AMB-CF04-1-10-20240325", "RNNB-1-1-20230512", "2024-CEV3-20240602"]
    assert group_ids(ids, GroupingSpec(rule="strip-date")) == [
        "CBN-PdlC-A1", "GUARDEN-AMB-CF04-1-10", "RNNB-1-1", "2024-CEV3"]
    assert group_ids(ids, GroupingSpec(rule="regex", patterns=list(SITE_PATTERNS))) == [
        "CBN-PdlC-A1", "GUARDEN-AMB-CF04", "RNNB-1", "2024-CEV3-20240602"]  # no pattern: the whole id
    five = ids + ["LISAH-BOU-0-10-20230523", "OPTMix-0108-P1-312-20231006", "CBN-Pla-B2-x-20200101"]
    assert group_ids(five, GroupingSpec(rule="regex", patterns=list(FIVE_PATTERNS))) == [
        "CBN-PdlC-A1", "GUARDEN-AMB-CF04", "RNNB-1-1", "2024-CEV3-20240602",
        "LISAH-BOU-0-10", "OPTMix-0108", "CBN-Pla-B2-x"]  # CBN and LISAH: everything before the date


def test_regex_rule_needs_one_capture_group():
    with pytest.raises(ValueError, match="exactly one capture group"):
        GroupingSpec(rule="regex", patterns=["^CBN-.*$"])


# ids that end in a number of another length than a date: every real id ends in one, so the counts above
# cannot tell "exactly eight digits" from "any trailing number" (scripts/mutation_check.py:
# ``strip_date_any_number``, ``strip_date_any_number_slow_path``)
NOT_DATES = {"RNNB-1-1": "RNNB-1-1", "OPTMix-0108-P1-312": "OPTMix-0108-P1-312", "A-1234567": "A-1234567",
             "A-123456789": "A-123456789", "A_20240325": "A_20240325", "A-2024032５": "A-2024032５",
             "CBN-PdlC-A1-20130807": "CBN-PdlC-A1", "A-1-123456789-20240325": "A-1-123456789", "-20240325": ""}


@pytest.mark.parametrize("line_break", [False, True])  # the one-regex pass, and the per-id rule
def test_strip_date_drops_exactly_a_dash_and_eight_ascii_digits(line_break):
    ids = list(NOT_DATES) + (["X\nY-20240325"] if line_break else [])
    expected = list(NOT_DATES.values()) + (["X\nY"] if line_break else [])
    assert group_ids(ids, GroupingSpec(rule="strip-date")) == expected
