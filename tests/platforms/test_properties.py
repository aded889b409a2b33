"""Properties over hypothesis-generated files, on a synthetic competition whose labels are secret.

The solution's labels (7xxxxxx) are drawn from a pool the participant never
writes (their labels are 8xxxxxx, and there is no public vocabulary), so any
7xxxxxx number in a message came from the solution: a leak. Each generated file
is a valid submission damaged by a few random edits; for each we check that
(1) no participant message shows a secret label or says which ids are public
or private, also when Kaggle scores one split at a time; (2) the same bytes
give the same answer, and grading never changes a file of the solution or the
output folder other than scores.json.
"""

from __future__ import annotations

import csv
import io
import re
import shutil

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.definitions import TOML_DIR, load_competition
from agrieval.scoring.runtime._platforms import codabench
from agrieval.scoring.runtime.guard import grade
from agrieval.scoring.runtime.reading.solution import load_solution
from tests.platforms.hook_drivers import tree_state

N = 12
IDS = [f"SYN-T{i // 3}-Q{i}-2023050{i % 3 + 1}" for i in range(N)]
SECRET = [[7_000_000 + 97 * i + k for k in range(i % 4)] for i in range(N)]
USAGE = ["Public" if i % 2 else "Private" for i in range(N)]
NASTY = st.text(alphabet=st.sampled_from(list('ab01,;"[]\n\r\t =+-@.eE') + ["\u0421", "\x00", "\ufeff"]),
                max_size=25)


def _csv(rows, header) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([header, *rows])
    return buf.getvalue().encode()


@pytest.fixture(scope="module")
def world(tmp_path_factory, definition):
    d = tmp_path_factory.mktemp("synthetic")
    toml = re.sub(r'(?m)^vocabulary_file = .*$', "", (TOML_DIR / "plantclef2025.toml").read_text())
    toml = toml.replace('name = "plantclef2025"', 'name = "synthetic"')
    (d / "synthetic.toml").write_text(toml)
    sol = _csv([[i, str(lab), u] for i, lab, u in zip(IDS, SECRET, USAGE)], ["quadrat_id", "species_ids", "Usage"])
    (d / "solution.csv").write_bytes(sol)
    defn = load_competition(d / "synthetic.toml")
    assert defn.labels is None  # open label set: the solution's labels are secret
    return {"dir": d, "definition": defn, "solution": load_solution(d / "solution.csv", defn),
            "solution_path": d / "solution.csv"}


@st.composite
def damaged_files(draw) -> bytes:
    rows = [[i, str([8_000_000 + draw(st.integers(0, 50)) for _ in range(draw(st.integers(0, 3)))])] for i in IDS]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["cell", "drop", "dup", "bytes", "truncate", "swap"]))
        i = draw(st.integers(0, len(rows) - 1)) if rows else 0
        if kind == "cell" and rows:
            rows[i][draw(st.integers(0, 1))] = draw(NASTY)
        elif kind == "drop" and rows:
            rows.pop(i)
        elif kind == "dup" and rows:
            rows.insert(i, list(rows[i]))
        elif kind == "swap" and len(rows) > 1:
            rows[0], rows[i] = rows[i], rows[0]
    data = _csv(rows, ["quadrat_id", "species_ids"])
    kind = draw(st.sampled_from(["none", "insert", "truncate"]))
    pos = draw(st.integers(0, len(data)))
    if kind == "insert":
        data = data[:pos] + draw(st.binary(min_size=1, max_size=6)) + data[pos:]
    elif kind == "truncate":
        data = data[:pos]
    return data


def _assert_safe(messages: list[str], data: bytes) -> None:
    raw = data.decode("latin-1")
    for m in messages:
        low = m.lower()
        assert "private" not in low and "public" not in low
        for label in re.findall(r"(?<!\d)7\d{6}(?!\d)", m):
            assert label in raw, f"secret label {label} leaked: {m}"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=damaged_files())
def test_generated_files_are_safe_deterministic_and_change_nothing(world, tmp_path_factory, data):
    defn, sol = world["definition"], world["solution"]
    first = grade(data, sol, defn).participant_view()
    assert grade(data, sol, defn).participant_view() == first
    _assert_safe([e["message"] for e in first["errors"] + first["warnings"]], data)

    # Codabench layout: nothing but scores.json may appear, nothing else may change.
    work = tmp_path_factory.mktemp("cb")
    (work / "in" / "ref").mkdir(parents=True)
    (work / "in" / "res").mkdir()
    (work / "out").mkdir()
    shutil.copy(world["solution_path"], work / "in" / "ref" / "solution.csv")
    (work / "in" / "res" / "submission.csv").write_bytes(data)
    (work / "out" / "metadata").write_text("worker\n")
    before_in, before_out = tree_state(work / "in"), tree_state(work / "out")
    result = codabench.run(work / "in", work / "out", competition=world["definition"])
    assert tree_state(work / "in") == before_in
    after_out = tree_state(work / "out")
    if result.status == "scored":
        assert set(after_out) == {"metadata", "scores.json", "scores.txt"} and after_out["metadata"] == before_out["metadata"]
    else:
        assert result.status == "rejected" and after_out == before_out
    assert {k: v for k, v in result.participant_view().items() if k != "metrics"} == \
        {k: v for k, v in first.items() if k != "metrics"}

    # Kaggle, one split at a time: an id mismatch must not reveal which ids are in the split.
    from agrieval.scoring.runtime._platforms.kaggle import ParticipantVisibleError, score

    try:
        frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    except Exception:  # noqa: BLE001 - Kaggle's reader refuses it before any metric runs
        return
    solution = pd.read_csv(world["solution_path"], dtype=str, keep_default_na=False)
    for usage in ("Public", "Private"):
        part = solution[solution.Usage == usage].drop(columns="Usage")
        try:
            score(part, frame, "quadrat_id", competition=world["definition"])
        except ParticipantVisibleError as exc:
            _assert_safe([str(exc)], data)
            for line in str(exc).splitlines():
                if line.startswith(("[missing_ids]", "[unknown_ids]")):
                    assert not any(i in line for i in IDS), line
