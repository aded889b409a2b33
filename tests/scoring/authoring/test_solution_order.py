"""The order tests of scoring/authoring/solution_order.py: exact moments (checked against every permutation
of small groups), and what `agrieval score` says about a solution whose order gives its labels away."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.solution_order import _Z_LIMIT as Z_LIMIT
from agrieval.scoring.authoring.solution_order import _order_tests as order_tests

REF = Path(__file__).resolve().parents[3] / "reference_submissions" / "agrichallenge2024"


def _statistics(values, groups, n_values):
    found = order_tests(np.array(values), np.array(groups))
    return [f.observed for f in found], [(f.expected, f.sd) for f in found]


@settings(max_examples=40, deadline=None)
@given(groups=st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=5), min_size=1, max_size=2))
def test_moments_are_those_of_every_order_of_the_rows_within_groups(groups):
    values = [v for g in groups for v in g]
    codes = [k for k, g in enumerate(groups) for _ in g]
    if len(values) < 2:
        return
    n_values = max(values) + 1
    # every arrangement within each group, equally likely (repeats of a multiset weigh the same)
    per_group = [sorted(set(itertools.permutations(g))) for g in groups]  # distinct arrangements: same weight
    seen = []
    for choice in itertools.product(*per_group):
        flat = [v for g in choice for v in g]
        seen.append(_statistics(flat, codes, n_values)[0])
    seen = np.array(seen)
    _, moments = _statistics(values, codes, n_values)
    for j, (mean, sd) in enumerate(moments):
        if j >= seen.shape[1]:
            break
        assert seen[:, j].mean() == pytest.approx(mean, abs=1e-9)
        assert seen[:, j].std() == pytest.approx(sd, abs=1e-9)


def test_a_shuffled_order_is_quiet_and_blocks_or_alternation_are_found():
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(12), 60)
    values = np.tile(np.repeat(np.arange(6), 10), 12)  # each group written class by class
    assert max(abs(f.z) for f in order_tests(values, groups)) > 20
    alternating = np.tile([0, 1], 360)
    runs = order_tests(alternating, groups)[0]
    assert runs.test == "runs" and runs.z < -Z_LIMIT
    quiet = [max(abs(f.z) for f in order_tests(rng.permutation(values), groups)) for _ in range(50)]
    assert max(quiet) < Z_LIMIT


def test_score_warns_the_host_on_stderr_and_keeps_the_report_clean(tmp_path):
    from agrieval.scoring.cli.main import cli

    lines = (REF / "solution.csv").read_text().splitlines()
    header, rows = lines[0], sorted(lines[1:], key=lambda r: (r.split(",")[2], r.split(",")[1]))
    ordered = tmp_path / "solution.csv"
    ordered.write_text("\n".join([header] + rows) + "\n")
    sub = REF / "submissions" / "perfect.csv"
    res = CliRunner().invoke(cli, ["score", str(sub), "-s", str(ordered), "-c", "agrichallenge2024", "--json"])
    assert res.exit_code == 0, res.output
    assert "warning [order_reveals_labels]" in res.stderr
    report = json.loads(res.stdout)
    assert "order_reveals" not in json.dumps(report)
    quiet = CliRunner().invoke(cli, ["score", str(sub), "-s", str(REF / "solution.csv"), "-c", "agrichallenge2024"])
    assert quiet.exit_code == 0 and "order_reveals" not in quiet.stderr
