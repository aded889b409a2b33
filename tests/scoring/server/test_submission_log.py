"""Team names and the former log attacked: names that look like another team's, a hostile log.csv."""

from __future__ import annotations

import unicodedata

import pytest

from agrieval.scoring._server.migrate_log import import_log
from agrieval.scoring._server.submission_log import COLUMNS, LogError, check_team

from .conftest import make_store

HEADER = ",".join(COLUMNS)


@pytest.mark.parametrize("team", ["team\u200b", "\ufeffteam", "te\u2060am", "team\u00ad",
                                  unicodedata.normalize("NFD", "équipe")])
def test_a_team_name_that_looks_like_another_is_refused(team):
    """Invisible characters or a decomposed accent: a second row on the board that reads as "team" or
    "équipe" (a participant posing as another team, or a second count of the limits for one team)."""
    with pytest.raises(LogError) as err:
        check_team(team)
    assert err.value.code == "bad_team"


@pytest.mark.parametrize("team", ["équipe", "チーム", "فريق", "team-a_2", "=1+1"])
def test_ordinary_names_in_any_script_pass(team):
    assert check_team(team) == team


@pytest.mark.parametrize("row", ["a,2026-05-01T00:00:00Z,,selected,,,,,,-1",
                                 "a,2026-05-01T00:00:00Z,,selected,,,,,,0",
                                 "a,2026-05-01T00:00:00Z,,selected,,,,,,1 x"])
def test_a_hostile_selection_in_an_imported_log_names_its_line(tmp_path, row):
    log = tmp_path / "log.csv"
    log.write_text(f"{HEADER}\n{row}\n")
    store = make_store(tmp_path / "comp.db")
    with pytest.raises(LogError) as err:
        import_log(store, log, max_bytes=1 << 20)
    assert err.value.code == "log_corrupt" and "line 2" in str(err.value)
    assert store.conn.execute("SELECT count(*) FROM selections").fetchone()[0] == 0
