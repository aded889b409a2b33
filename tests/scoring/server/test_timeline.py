"""Times given to the store (--now, the timeline) that the store cannot hold are refused at entry, never stored."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from agrieval.scoring._server.timeline import parse_utc
from agrieval.scoring.cli.main import cli

from .conftest import SOL, SUBS


@pytest.mark.parametrize("text", ["0999-12-31T23:00:00Z", "0001-01-01T00:10:00Z", "9999-12-31T23:00:00Z",
                                  "9999-12-31T00:00:00+00:00"])
def test_a_time_outside_the_stores_years_is_a_value_error(text):
    with pytest.raises(ValueError, match="between the years"):
        parse_utc(text)


@pytest.mark.parametrize("when", ["0999-12-31T23:00:00Z", "9999-12-31T23:00:00Z"])
def test_grade_and_init_refuse_such_times_with_a_usage_error_and_leave_no_half_made_store(tmp_path, when):
    db = tmp_path / "comp.db"
    out = CliRunner().invoke(cli, ["server", "init", str(db), "-c", "plantclef2025", "-s", str(SOL),
                                   "--deadline", when])
    assert out.exit_code == 2 and "between the years" in out.output and not db.exists(), out.output
    assert CliRunner().invoke(cli, ["server", "init", str(db), "-c", "plantclef2025", "-s", str(SOL)]).exit_code == 0
    out = CliRunner().invoke(cli, ["grade", str(SUBS / "partial.csv"), "--team", "a", "--store", str(db),
                                   "--now", when])
    assert out.exit_code == 2 and "between the years" in out.output and "Error:" not in out.output, out.output
