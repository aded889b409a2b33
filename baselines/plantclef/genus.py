"""Species -> genus mapping file, for one species per genus (Chlorophyll Crew's ``filter_genus``).

CSV with a header holding ``species_id`` and ``genus`` (any other columns ignored), one row per species, as
PlantCLEF's training metadata gives them. Strict: a missing column, a species listed twice with two genera,
or a species id that is not an integer is an error naming the line.
"""

from __future__ import annotations

import csv
from pathlib import Path


def load_genus(path: str | Path) -> dict[int, str]:
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"genus file {path} not found")
    out: dict[int, str] = {}
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"species_id", "genus"} <= set(reader.fieldnames):
            raise ValueError(f"{path}: the header needs the columns species_id and genus, got {reader.fieldnames}")
        for line, row in enumerate(reader, start=2):
            try:
                species = int(row["species_id"])
            except (TypeError, ValueError):
                raise ValueError(f"{path}:{line}: species_id {row['species_id']!r} is not an integer") from None
            genus = (row["genus"] or "").strip()
            if not genus:
                raise ValueError(f"{path}:{line}: empty genus for species {species}")
            if out.get(species, genus) != genus:
                raise ValueError(f"{path}:{line}: species {species} has genus {out[species]!r} and {genus!r}")
            out[species] = genus
    return out
