"""The files the runtime tests feed every path: reference submissions, the bad-submission corpus, the real files."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO / "reference_submissions"
CORPUS = REPO / "tests" / "platforms" / "corpus"
REAL = REPO / "tests" / "fixtures" / "real"


def uploads(competition: str, *, zips: bool = False) -> list:
    """Every reference submission of ``competition``; for plantclef2025 also the corpus's CSVs (and zips)
    and the real 2025 submissions."""
    files = sorted((REFERENCE / competition / "submissions").rglob("*.csv"))
    if competition == "plantclef2025":
        files += sorted(CORPUS.glob("*.csv")) + (sorted(CORPUS.glob("*.zip")) if zips else [])
        files += sorted(REAL.glob("plantclef2025_*.csv"))
    return files
