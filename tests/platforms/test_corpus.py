"""Every bad submission of the corpus, through every hook, as each platform drives it.

For each (hook, file): a participant-visible rejection with a useful message,
never a traceback, a host error or a hang; the files accepted on purpose (BOM,
CRLF, mixed line endings, a zip holding the CSV) score exactly like the clean
file. Along the way: no participant message leaks a ground-truth label absent
from the file, says which ids are public or private, or starts like a
spreadsheet formula.
"""

from __future__ import annotations

import re

import pytest

from agrieval.scoring.runtime.problems import CODES
from tests.platforms.hook_drivers import BIG_CASES, CASES, DRIVERS, EXTRA_DRIVERS, PLATFORM_VERDICTS, solution_rows

ALL_NAMES = sorted(CASES) + sorted(BIG_CASES)
TRUTH_LABELS = sorted({lab.strip() for r in solution_rows() for lab in r["species_ids"].strip("[]").split(",")
                       if lab.strip()})
# Drivers whose answer carries the problem codes (the others give one text, codes parsed from its lines).
FULL_CODES = {"grade_function", "grade_cli", "codabench", "evalai", "hf_competitions"}


def test_the_committed_corpus_is_what_its_generator_writes():
    """``make_corpus.py`` rebuilds every committed file byte for byte from the shipped solution (rows in id
    order, fixed zip dates), so a change of the generator or of the solution shows here, not as a corpus that
    no longer matches its description."""
    import importlib.util
    import json
    from pathlib import Path

    here = Path(__file__).parent / "corpus"
    spec = importlib.util.spec_from_file_location("make_corpus", here / "make_corpus.py")
    make_corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_corpus)
    built = make_corpus.build()
    stale = sorted(name for name, (data, _) in built.items() if (here / name).read_bytes() != data)
    assert not stale, f"run tests/platforms/corpus/make_corpus.py: {stale}"
    assert json.loads((here / "cases.json").read_text()) == {name: meta for name, (_, meta) in built.items()}


def test_corpus_has_at_least_40_rejections():
    rejected = [n for n, m in {**CASES, **BIG_CASES}.items() if m.get("expect")]
    assert len(rejected) >= 40
    for meta in {**CASES, **BIG_CASES}.values():
        assert set(meta.get("expect", [])) <= set(CODES)


@pytest.mark.parametrize("name", ALL_NAMES)
@pytest.mark.parametrize("hook", sorted(DRIVERS))
def test_every_bad_file_through_every_hook(hook, name, all_cases, tmp_path):
    path, meta = all_cases[name]
    meta = PLATFORM_VERDICTS.get(hook, {}).get(name, meta)
    outcome = DRIVERS[hook](path, tmp_path)
    if hook == "grade_function":  # same bytes, handed over as bytes this time: same answer
        again = EXTRA_DRIVERS["grade_bytes"](path, tmp_path)
        assert again == outcome
    if hook == "kaggle" and outcome.kind == "platform":
        return  # Kaggle's own reader (pandas, its unzip, its upload limit) handled it: our metric is never called
    if meta.get("platform"):
        assert outcome.kind == "platform", f"{name}: {hook}'s worker fails it before our code, not {outcome.kind}"
        return
    if meta.get("expect"):
        assert outcome.kind == "rejected", f"{name} was {outcome.kind} by {hook}"
        if hook in FULL_CODES:
            assert set(meta["expect"]) <= set(outcome.codes), (outcome.codes, outcome.message)
        else:
            assert outcome.codes and set(outcome.codes) <= set(CODES)
        _assert_useful_and_safe(outcome.message, path)
    else:
        assert outcome.kind == "scored", outcome.message
        assert outcome.primary == pytest.approx(1.0)  # built from the solution itself
        if hook in {"grade_function", "grade_cli", "codabench"} and meta["tolerated"] != ["none"]:
            assert outcome.warnings == meta["tolerated"]


def _assert_useful_and_safe(message: str, path) -> None:
    assert message.strip()
    assert "Traceback" not in message and "Error:" not in message
    assert "internal" not in message.lower()
    low = message.lower()
    assert "private" not in low and "public" not in low and "usage" not in low
    raw = path.read_bytes()[:5_000_000].decode("latin-1") if path.stat().st_size < 5_000_000 else ""
    for label in TRUTH_LABELS:
        if re.search(rf"(?<!\d){label}(?!\d)", message):
            assert label in raw, f"message shows truth label {label} that the file does not contain"
    for line in message.splitlines():
        assert not line.lstrip().startswith(("=", "+", "-", "@")), line
