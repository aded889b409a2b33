"""Fixtures for the hook tests: the shipped definition and the corpus, big generated files included."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from agrieval.scoring.authoring.definitions import load_competition
from tests.platforms.hook_drivers import BIG_CASES, CASES, COMPETITION, CORPUS


@pytest.fixture(scope="session")
def definition():
    return load_competition(COMPETITION)


@pytest.fixture(scope="session")
def big_cases(tmp_path_factory) -> dict[str, Path]:
    """The corpus files too big to commit, generated quickly (sparse file, repeated bytes, deflate of zeros)."""
    d = tmp_path_factory.mktemp("big")
    header = b'"quadrat_id","species_ids"\n'
    with (d / "big_200mb.csv").open("wb") as fh:
        fh.write(header + b'"CBN-PdlC-A1-20230512","[1355868]"\n')
        fh.seek(200 * 1024**2 - 1)
        fh.write(b"\n")
    (d / "rows_10_million.csv").write_bytes(header + b"a,[]\n" * 10_000_000)
    (d / "rows_200_thousand.csv").write_bytes(header + b"".join(b"r%d,[]\n" % i for i in range(200_000)))
    with zipfile.ZipFile(d / "zip_bomb.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        with zf.open("submission.csv", "w", force_zip64=True) as member:
            member.write(header)
            zero_block = b"0" * (1 << 20)
            for _ in range(60):
                member.write(zero_block)
    assert (d / "zip_bomb.zip").stat().st_size < 1_000_000
    return {name: d / name for name in BIG_CASES}


@pytest.fixture(scope="session")
def all_cases(big_cases) -> dict[str, tuple[Path, dict]]:
    out = {name: (CORPUS / name, meta) for name, meta in CASES.items()}
    out.update({name: (big_cases[name], BIG_CASES[name]) for name in big_cases})
    return out


