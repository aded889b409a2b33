"""The byte-level shortcuts of the readers, against the per-cell checks, on nasty but plausible inputs.

Every shortcut must either decline (then the per-cell path decides) or give exactly what that path
gives: the same ids, labels, lines and problems (code, line, column, message). Each test here pairs a
shortcut with the path it stands in for, on inputs made to trip it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.problems import HostError, ProblemLog
from agrieval.scoring.runtime.reading.id_cells import CheckedIds, check_ids
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.reading.strict_reading import strict_reading


def _definition(id_pattern: str) -> CompetitionDefinition:
    return CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                                 list_syntax="python-list", primary_metric="sample_f1", id_pattern=id_pattern)


def _problems(log: ProblemLog) -> list[tuple]:
    return [(p.code, p.line, p.column, p.message) for p in log.finish()]


# patterns a host may write that let through what check_ids refuses first (blank ids, spaces at an end)
_LAX_PATTERNS = [".+", ".*", "[ q1-][ q1-]*", "[q1 ]*", "q.*", "(q| )+", "[A-Za-z0-9][A-Za-z0-9_.-]*"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=["q", "1", "-", " ", "\t", "\u00a0", "\u00e9"], max_size=4), min_size=1,
                max_size=6),
       st.sampled_from(_LAX_PATTERNS))
def test_ids_plainly_valid_from_their_bytes_pass_the_per_id_checks(ids, pattern):
    """``CheckedIds.plainly_valid`` (the ids' bytes against the pattern's byte classes) is only ever sure
    of ids that ``check_ids`` accepts: blank ids, spaces at an end and repeats are left to it."""
    encoded = [i.encode("utf-8") for i in ids]
    length = np.array([len(e) for e in encoded], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(length + 1)[:-1]]).astype(np.int64)
    checked = CheckedIds((b"\n".join(encoded) + b"\n", starts, starts + length), pattern)
    log = ProblemLog()
    check_ids(ids, np.arange(2, len(ids) + 2), 1, _definition(pattern), log)
    if checked.plainly_valid():
        assert _problems(log) == []
    assert checked.ids == ids


@pytest.mark.parametrize("pattern", [".+", "[ q0-9][ q0-9]*"])  # the per-id checks, the byte classes
@pytest.mark.parametrize("bad_id", [" q2", "q2 "])
def test_a_solution_id_with_spaces_at_an_end_is_refused_whatever_the_pattern(pattern, bad_id):
    """plainly_valid (the solution's ids checked without a string per id) must leave such an id to
    check_ids, which names it."""
    definition = _definition(pattern)
    data = f"qid,species\nq1,[1]\n{bad_id},[2]\n".encode()
    with pytest.raises(HostError) as caught:
        load_solution(data, definition)
    assert "3:1: error [invalid_id] id 'q2' has leading or trailing spaces" in str(caught.value)
    sub = read_submission(data, definition)
    assert [(p.code, p.line) for p in sub.problems] == [("invalid_id", 3)]


def test_a_solution_id_named_as_the_id_column_still_lets_a_repeated_header_be_named():
    """A submission whose ids are the solution's reuses their checks: a solution id spelt as the id column
    (valid under the pattern) must not hide the repeated header line that the full checks name."""
    definition = _definition("[A-Za-z0-9][A-Za-z0-9_.-]*")
    sol = load_solution(b"qid,species\nq1,[1]\nqid,[2]\n", definition)
    data = b"qid,species\nq1,[1]\nqid,species\n"
    alone = read_submission(data, definition)
    assert [p.code for p in alone.problems] == ["repeated_header", "list_syntax"]
    with_ids = read_submission(data, definition, checked_ids=sol.checked_ids)
    assert _problems_of(with_ids) == _problems_of(alone) and with_ids.ids == alone.ids


def _problems_of(sub) -> list[tuple]:
    return [(p.code, p.line, p.column, p.message) for p in sub.problems]


# ---- whole files: the shipped reading paths against the csv module and per-cell parsing ----------------

_SPECIES = [1355868, 1355869, 1355870, 1744937, 1361284]  # in plantclef2025's vocabulary
_ID_STEMS = ["q", "CBN-PdlC-A1-2023", "AAAAAAAA", "AAAAAAAAAAAAAAAA", "x.y_z", "CBN-Pla-B2-20230512"]
_ITEMS = [str(s) for s in _SPECIES] + ["0", "01", "7", "12", "1234567890123", "123456789012345678",
                                       "1234567890123456789", "-1", "+5", "1.0", "", " 1355868", "nan"]
_CELLS = ["", "nan", "[[1355868]]", "1355868", "[1355868", " [1355868]", "[1355868] ", "[]", "[ ]"]


@st.composite
def _prediction(draw, clean: bool) -> str:
    if not clean and draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from(_CELLS))
    plain = clean or draw(st.booleans())
    items = draw(st.lists(st.sampled_from([str(s) for s in _SPECIES] if plain else _ITEMS), max_size=5))
    sep = draw(st.sampled_from([", ", ","] if plain else [", ", ",", ",  ", " ,", " "]))
    return "[" + sep.join(items) + "]"


@st.composite
def _files(draw) -> tuple[bytes, bytes]:
    """(submission, solution) for plantclef2025, made to trip the shortcuts."""
    n = draw(st.integers(1, 12))
    stems = draw(st.lists(st.sampled_from(_ID_STEMS), min_size=n, max_size=n))
    ids = list(dict.fromkeys(f"{s}{k % 3 if k % 4 else ''}{k}" for k, s in enumerate(stems)))  # prefixes, too
    if draw(st.integers(0, 19)) == 0:
        ids[-1] += "\u00e9"  # not an id of this competition: the host's mistake
    truth = [draw(st.lists(st.sampled_from(_SPECIES), max_size=3, unique=True)) for _ in ids]
    usage = [draw(st.sampled_from(["Public", "Private", "Ignored"])) for _ in ids]
    if draw(st.integers(0, 9)) == 0:
        usage[draw(st.integers(0, len(ids) - 1))] = draw(st.sampled_from(["public", "Publi", "Private ", ""]))
    transects = draw(st.sampled_from([None, "sorted", "mixed"]))
    names = [draw(st.sampled_from(["T1", "T2", "T\u00e9\u00e9", "AAAAAAAA", "AAAAAAAAB", "A" * 16, "A" * 17]))
             for _ in ids]
    if transects == "sorted":
        names.sort()
    if transects and draw(st.integers(0, 9)) == 0:
        names[draw(st.integers(0, len(ids) - 1))] = draw(st.sampled_from(["", " ", "\u00a0"]))
    sep = draw(st.sampled_from([", ", ","]))
    solution = [["quadrat_id", "species_ids", "Usage"] + (["transect_id"] if transects else [])] + [
        [i, "[" + sep.join(map(str, t)) + "]", u] + ([g] if transects else [])
        for i, t, u, g in zip(ids, truth, usage, names)]
    sub_ids = list(ids)
    change = draw(st.sampled_from(["same", "same", "shuffle", "shuffle", "shuffle", "dup", "drop", "extra",
                                   "rename", "header"]))
    if change == "shuffle":
        sub_ids = draw(st.permutations(sub_ids))
    elif change == "dup" and n > 1:
        sub_ids[-1] = sub_ids[0]
    elif change == "drop":
        sub_ids = sub_ids[:-1] or sub_ids
    elif change == "extra":
        sub_ids.append(ids[0] + "Z")
    elif change == "rename":
        sub_ids[0] = draw(st.sampled_from([" " + ids[0], ids[0] + " ", "", "=" + ids[0], ids[0][:-1]]))
    clean = draw(st.booleans())  # else a bad cell now and then: the per-cell path names it
    rows = [["quadrat_id", "species_ids"]] + [[i, draw(_prediction(clean))] for i in sub_ids]
    if change == "header":
        rows.insert(draw(st.integers(1, len(rows))), ["quadrat_id", "species_ids"])
    return _write(draw, rows), _write(draw, solution)


def _write(draw, rows: list[list[str]]) -> bytes:
    quoting = draw(st.sampled_from(["all", "needed", "some"]))
    ends = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    out = []
    for row in rows:
        cells = []
        for cell in row:
            quote = quoting == "all" or "," in cell or '"' in cell or (quoting == "some" and draw(st.booleans()))
            cells.append('"' + cell.replace('"', '""') + '"' if quote else cell)
        out.append(",".join(cells) + (draw(st.sampled_from(["\n", "\r\n"])) if ends == "mixed" else ends))
    text = "".join(out)
    if draw(st.integers(0, 4)) == 0:
        text = text.rstrip("\r\n")  # no final line end
    return (b"\xef\xbb\xbf" if draw(st.integers(0, 9)) == 0 else b"") + text.encode("utf-8")


def _summary(sub) -> dict:
    return {"ids": list(sub.ids), "lines": sub.lines.tolist(), "problems": _problems_of(sub),
            "labels": sub.labels.to_lists() if sub.labels is not None else None}


def _solution_summary(data: bytes, definition) -> dict:
    try:
        sol = load_solution(data, definition)
    except HostError as exc:
        return {"host_error": (exc.code, str(exc))}
    return {"ids": sol.ids, "groups": list(sol.groups), "codes": sol.group_codes[0].tolist(),
            "names": list(sol.group_codes[1]), "split": sol.split.tolist(), "labels": sol.labels.to_lists()}


@settings(max_examples=150, deadline=None)
@given(_files())
def test_whole_files_read_alike_on_every_path(files):
    """The numpy tokenizer and the cell readers against the csv module and the strict per-cell rules; the
    solution's checked ids reused or not; and the whole scoring gives a report, or a host error for a bad
    solution, never anything else."""
    from agrieval.scoring.authoring.definitions import load_competition
    from agrieval.scoring.runtime.scorer import score_file

    definition = load_competition("plantclef2025")
    upload, solution = files
    fast = read_submission(upload, definition)
    fast_solution = _solution_summary(solution, definition)
    with pytest.MonkeyPatch.context() as m:
        strict_reading(m)
        assert _summary(read_submission(upload, definition)) == _summary(fast)
        assert _solution_summary(solution, definition) == fast_solution
    if "host_error" not in fast_solution:
        sol = load_solution(solution, definition)
        assert _summary(read_submission(upload, definition, checked_ids=sol.checked_ids)) == _summary(fast)

    try:
        report = score_file(upload, solution, definition, reveal_private=True).to_dict()
    except HostError as exc:
        report = exc.code, str(exc)
    event("host error" if isinstance(report, tuple) else report["status"])


# ---- metrics: a prediction in another row order, matched without moving its labels ----------------------

@settings(max_examples=150, deadline=None)
@given(st.integers(1, 14).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, 9), max_size=4), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(0, 9), max_size=4), min_size=n, max_size=n),
    st.permutations(range(n)), st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))),
    st.sampled_from([1, 10**6, 2**59]), st.booleans())
def test_metrics_by_split_of_a_reordered_prediction_match_sklearn(data, scale, numbered):
    """``metrics_by_split`` on a prediction read in file order and moved into the solution's
    (``LabelSets.take``, as the scorer does) against scikit-learn on each split's rows; labels near 2**63 (the two-key matching)."""
    from sklearn.metrics import f1_score
    from sklearn.preprocessing import MultiLabelBinarizer

    from agrieval.scoring.runtime.labelsets import LabelSets
    from agrieval.scoring.runtime.metrics.multilabel import metrics_by_split

    truth, pred, order, split = data
    truth = [sorted({x * scale for x in r}) for r in truth]
    pred = [sorted({x * scale for x in r}) for r in pred]
    in_file = [None] * len(pred)
    for row, at in enumerate(order):
        in_file[at] = pred[row]  # solution row ``row`` is on the upload's row ``order[row]``

    def sets(rows):
        return LabelSets.from_flat(np.array([len(r) for r in rows]), np.array([x for r in rows for x in r],
                                                                               dtype=np.int64))[0]

    class_codes = None
    if numbered and scale == 1:
        class_codes = np.arange(10, dtype=np.int64)
    split_rows = {name: np.flatnonzero(np.array(split) == k) for k, name in enumerate(["public", "private"])}
    split_rows = {name: rows for name, rows in split_rows.items() if len(rows)}
    got = metrics_by_split(sets(truth), sets(in_file).take(np.array(order)), np.zeros(len(truth), int),
                           split_rows, class_codes=class_codes)
    for name, rows in split_rows.items():
        t, p = [truth[i] for i in rows], [pred[i] for i in rows]
        mlb = MultiLabelBinarizer(classes=sorted({x for r in t + p for x in r} | {-1, -2}))
        a, b = mlb.fit_transform(t), mlb.transform(p)
        assert got[name]["sample_f1"] == pytest.approx(f1_score(a, b, average="samples", zero_division=1.0))
        assert got[name]["micro_f1"] == pytest.approx(f1_score(a, b, average="micro", zero_division=1.0))
        present = (a.sum(0) + b.sum(0)) > 0
        if present.any():
            per_class = f1_score(a, b, average=None, zero_division=1.0)[present]
            assert got[name]["macro_f1"] == pytest.approx(float(np.mean(per_class)))


def test_hashes_that_all_collide_only_make_the_shortcuts_decline(monkeypatch):
    """Transect codes, the solution's duplicate check and the reordered ids' matching all start from 64-bit
    hashes of the bytes: with every hash equal, each must decline and give what the strings give."""
    from agrieval.scoring.authoring.definitions import load_competition
    from agrieval.scoring.runtime.reading import cell_keys

    definition = load_competition("plantclef2025")
    names = ["T1", "T2", "T1", "AAAAAAAAB", "AAAAAAAAC"]
    solution = b"quadrat_id,species_ids,Usage,transect_id\n" + b"".join(
        f"q{k},[1355868],Public,{names[k % 5]}\n".encode() for k in range(20))
    upload = b"quadrat_id,species_ids\n" + b"".join(f"q{k},[1355868]\n".encode() for k in reversed(range(20)))

    def read():
        sol = load_solution(solution, definition)
        sub = read_submission(upload, definition, checked_ids=sol.checked_ids)
        return (sol.groups, sol.group_codes[0].tolist(), list(sol.group_codes[1]), sol.ids, _summary(sub))

    hashed = read()
    monkeypatch.setattr(cell_keys, "words_hash", lambda words, length: np.zeros(len(length), dtype=np.uint64))
    assert read() == hashed
    assert hashed[2] == ["T1", "T2", "AAAAAAAAB", "AAAAAAAAC"] and hashed[4]["ids"][0] == "q19"
