"""Species -> genus mapping file, for one species per genus (Chlorophyll Crew's ``filter_genus``).

CSV with a header holding ``species_id`` and ``genus`` (any other columns ignored), one row per species, as
PlantCLEF's training metadata gives them. Strict: a missing column, a species listed twice with two genera,
or a species id that is not an integer is an error naming the line.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from agrieval.scoring.runtime.untrusted import UntrustedFileError, open_regular

# One row per species is 7,806 rows (about 0.2 MB); the file may also be PlantCLEF's single-plant training
# metadata itself (1.4 M images, one row each, about 0.5 GB), read as a stream
MAX_GENUS_BYTES = 1 << 30


def load_genus(path: str | Path) -> dict[int, str]:
    path = Path(path)
    try:  # the one opening rule: a FIFO, a device or a folder is refused at once, a huge file before it is read
        raw = open_regular(path, max_bytes=MAX_GENUS_BYTES, what="genus file")
    except FileNotFoundError:
        raise ValueError(f"genus file {path} not found") from None
    except UntrustedFileError as exc:
        raise ValueError(f"{path}: {exc.message}") from None
    try:
        with io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as fh:
            return _read_genus(csv.DictReader(fh), path)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 ({exc})") from None


def _read_genus(reader: csv.DictReader, path: Path) -> dict[int, str]:
    out: dict[int, str] = {}
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
