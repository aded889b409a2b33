"""Differential test: the one fast path and the strict per-cell reader (the specification) read every
file alike.

Every real, reference and bad-corpus file is read twice: as shipped, and with
every shortcut switched off (``strict_reading``: the ``csv`` module tokenises,
``parse_cell`` reads every label cell, ``check_ids`` checks every id, group
codes come from the decoded names). Ids, labels, line numbers and every problem
(code, message, line, column) must be identical: a fast path is a shortcut,
never a second opinion.
"""

from pathlib import Path

import numpy as np
import pytest

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.reading.strict_reading import strict_reading

REPO = Path(__file__).resolve().parents[3]
CORPUS = sorted((REPO / "tests" / "platforms" / "corpus").glob("*.csv"))
REFERENCE = sorted((REPO / "reference_submissions").glob("*/submissions/**/*.csv"))
REAL = {
    "plantclef2024_submission_dsgt_run_v1.csv": "plantclef2024",
    "plantclef2025_submission_tiling_quadrat.csv": "plantclef2025",
    "plantclef2025_submission_topk5.csv": "plantclef2025",
    "plantclef2025_submission_vote_k5.csv": "plantclef2025",
}


def _summary(sub) -> dict:
    return {
        "ids": list(sub.ids),
        "lines": sub.lines.tolist(),
        "labels": sub.labels.to_lists() if sub.labels is not None else None,
        "classes": sub.classes,
        "problems": [p.as_dict() for p in sub.problems],
    }


def _both_ways(monkeypatch, read):
    """(as shipped, by the strict per-cell reader alone)."""
    fast = read()
    with monkeypatch.context() as m:
        strict_reading(m)
        slow = read()
    return fast, slow


def _view(read) -> dict | str:
    """What a read gave: a submission's summary, a solution's content, or (an error's) text."""
    if hasattr(read, "problems"):
        return _summary(read)
    if isinstance(read, str):
        return read
    sol = read
    return {"ids": sol.ids, "groups": list(sol.groups), "codes": sol.group_codes[0].tolist(),
            "split": sol.split.tolist(), "labels": sol.labels.to_lists() if sol.labels is not None else None,
            "classes": sol.classes}


def _cases():
    for path in CORPUS:
        yield pytest.param(path, "plantclef2025", id=f"corpus/{path.name}")
    for path in REFERENCE:
        yield pytest.param(path, path.relative_to(REPO / "reference_submissions").parts[0],
                           id=str(path.relative_to(REPO / "reference_submissions")))


@pytest.mark.parametrize(("path", "competition"), list(_cases()))
def test_fast_and_slow_paths_read_alike(monkeypatch, path, competition):
    definition = load_competition(competition)
    fast, slow = _both_ways(monkeypatch, lambda: read_submission(path, definition))
    assert _summary(fast) == _summary(slow)


@pytest.mark.parametrize("name", sorted(REAL))
def test_fast_and_slow_paths_read_real_files_alike(monkeypatch, real_files, name):
    definition = load_competition(REAL[name])
    fast, slow = _both_ways(monkeypatch, lambda: read_submission(real_files / name, definition))
    assert fast.ok and _summary(fast) == _summary(slow)


@pytest.mark.parametrize("competition", ["plantclef2025", "agrichallenge2024"])
def test_fast_and_slow_paths_load_solutions_alike(monkeypatch, competition):
    definition = load_competition(competition)
    path = REPO / "reference_submissions" / competition / "solution.csv"
    fast, slow = _both_ways(monkeypatch, lambda: load_solution(path, definition))
    assert fast.ids == slow.ids and fast.groups == slow.groups
    # group codes: from sorted hashes of the bytes on the fast path, a dict over the names on the slow one
    assert fast.group_codes[0].tolist() == slow.group_codes[0].tolist()
    assert fast.group_codes[1] == slow.group_codes[1]
    assert fast.split.tolist() == slow.split.tolist()
    assert (fast.labels.to_lists() if fast.labels else fast.classes) == \
           (slow.labels.to_lists() if slow.labels else slow.classes)


def _shuffled(path: Path, tmp_path: Path, seed: int) -> Path:
    lines = path.read_bytes().splitlines(keepends=True)
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    body = lines[1:]
    order = np.random.default_rng(seed).permutation(len(body))
    out = tmp_path / f"shuffled_{seed}_{path.name}"
    out.write_bytes(lines[0] + b"".join(body[i] for i in order))
    return out


@pytest.mark.parametrize("competition", ["plantclef2025", "agrichallenge2024"])
def test_the_solutions_checked_ids_change_nothing_but_the_work(competition, tmp_path):
    """A submission read with the solution's checked ids (same order, or shuffled rows: matched by hashes,
    then byte for byte) gives the ids, labels, lines, problems and alignment of one read without them."""
    from agrieval.scoring.runtime.matching import align
    from agrieval.scoring.runtime.problems import ProblemLog

    definition = load_competition(competition)
    sol = load_solution(REPO / "reference_submissions" / competition / "solution.csv", definition)
    files = sorted((REPO / "reference_submissions" / competition / "submissions").rglob("*.csv"))
    if competition == "plantclef2025":
        files += CORPUS
    files += [_shuffled(f, tmp_path, seed) for f in files[:6] for seed in (1, 2)]
    reused = 0
    for path in files:
        with_ids = read_submission(path, definition, checked_ids=sol.checked_ids)
        without = read_submission(path, definition)
        assert _summary(with_ids) == _summary(without), path.name
        if with_ids.ok:
            a, b = align(with_ids, sol, ProblemLog()), align(without, sol, ProblemLog())
            assert (a is None and b is None) or a.tolist() == b.tolist(), path.name
        reused += with_ids.id_order is not None
    assert reused >= 6  # the shuffled files took the permutation shortcut


@pytest.mark.parametrize("quoting", ["all", "minimal"])
def test_fast_and_slow_paths_group_a_transect_column_alike(monkeypatch, tmp_path, quoting):
    """A ``transect_id`` column: codes from the bytes (sorted hashes) on the fast path, from a dict over
    the decoded names on the slow one; the same codes, names and groups."""
    import csv

    definition = load_competition("plantclef2025")
    src = REPO / "reference_submissions" / "plantclef2025" / "solution.csv"
    with src.open(newline="") as fh:
        rows = list(csv.reader(fh))
    path = tmp_path / "solution.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL if quoting == "all" else csv.QUOTE_MINIMAL)
        w.writerow(rows[0] + ["transect_id"])
        for k, row in enumerate(rows[1:]):  # names of every length around 8 bytes, shared by several rows
            w.writerow(row + [row[0][:4 + k % 13] + ("-é" if k % 17 == 0 else "")])
    fast, slow = _both_ways(monkeypatch, lambda: load_solution(path, definition))
    assert fast.groups == slow.groups and len(set(fast.groups)) > 10
    assert fast.group_codes[0].tolist() == slow.group_codes[0].tolist()
    assert fast.group_codes[1] == slow.group_codes[1]


@pytest.mark.parametrize("blank", ["", " ", "\u00a0"])
def test_a_blank_transect_is_named_with_its_line_on_both_paths(monkeypatch, tmp_path, blank):
    """A solution row without its transect is the host's mistake, named with its line: the names are
    decoded lazily on the fast path, and the blank one found from the bytes."""
    from agrieval.scoring.runtime.problems import HostError

    definition = load_competition("plantclef2025")
    path = tmp_path / "solution.csv"
    path.write_text("quadrat_id,species_ids,Usage,transect_id\n"
                    f"q1,[1355868],Public,T1\nq2,[1355868],Private,{blank}\nq3,[1355868],Private,T1\n",
                    encoding="utf-8")

    def load():
        with pytest.raises(HostError) as caught:
            load_solution(path, definition)
        return str(caught.value)

    fast, slow = _both_ways(monkeypatch, load)
    assert fast == slow == "solution.csv: empty 'transect_id' on lines [3]"


BLANKS = ["\u00a0", "\u3000", "\x1c", "\x1f", "\x0b", "\u2028"]


@pytest.mark.parametrize("blank", BLANKS, ids=[f"U+{ord(b):04X}" for b in BLANKS])
def test_a_unicode_blank_in_a_real_list_is_refused_alike_on_both_paths(monkeypatch, real_files, tmp_path, blank):
    """Issue 22: str.strip() and str.split() read U+00A0, U+3000 and \\x1c-\\x1f as blanks; Python's parser
    and both reading paths refuse them (the byte path declines anything but ', ', the cell path names it)."""
    lines = (real_files / "plantclef2024_submission_dsgt_run_v1.csv").read_text(encoding="utf-8").splitlines()
    key, cell = lines[1].split(";")
    lines[1] = f"{key};{cell[:-1]},{blank}1363875]" if cell != "[]" else f"{key};[{blank}1363875]"
    path = tmp_path / "blank.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    definition = load_competition("plantclef2024")
    fast, slow = _both_ways(monkeypatch, lambda: read_submission(path, definition))
    assert _summary(fast) == _summary(slow)
    assert [p.code for p in fast.errors] == ["list_syntax"] and f"U+{ord(blank):04X}" in fast.errors[0].message
