from __future__ import annotations

import pytest

from agrieval.data_tools.classes import canonical, load_class_map
from agrieval.data_tools.errors import DataError


@pytest.mark.parametrize("folder,expected", [
    ("Chênes", "chene"), ("chene", "chene"), ("CHÊNE", "chene"), ("Frênes", "frene"), ("frenes", "frene"),
    ("Faux poivrier", "faux_poivrier"), ("Faux-Poivriers", "faux_poivrier"), ("faux  poivrier ", "faux_poivrier"),
    ("Caroubiers", "caroubier"), ("Pistachier", "pistachier"), ("Tipu", "tipu"), ("Tipus", "tipu"),
])
def test_shipped_map_normalises_team_spellings(folder, expected):
    assert load_class_map().normalise(folder) == expected


@pytest.mark.parametrize("folder", ["Olivier", "chêne vert", "misc", "frene2"])
def test_unknown_folders_are_not_guessed(folder):
    assert load_class_map().normalise(folder) is None


def test_canonical_form():
    assert canonical("  Chênes  Verts ") == "chenes_verts"
    assert canonical("Faux-poivrier.") == "faux_poivrier"


def test_user_map_extends_and_overrides(tmp_path):
    user = tmp_path / "map.toml"
    user.write_text('[aliases]\n"Chêne vert" = "chene"\nolivier_sauvage = "chene"\n', encoding="utf-8")
    cmap = load_class_map(user)
    assert cmap.normalise("chêne vert") == "chene"
    assert cmap.normalise("Olivier sauvage") == "chene"
    assert cmap.normalise("Frênes") == "frene"  # shipped aliases stay


@pytest.mark.parametrize("text", ['classes = "chene"', '[aliases]\nx = "olivier"', "nonsense = [", "foo = 1"])
def test_bad_user_map_is_an_error_naming_the_file(tmp_path, text):
    user = tmp_path / "bad.toml"
    user.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_class_map(user)
    assert err.value.code == "bad_class_map" and "bad.toml" in err.value.message
