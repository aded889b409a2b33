"""Property: the reader with its shortcuts gives what the strict per-cell rules alone give, on every file.

A shortcut is a faster way to the same answer, never a second opinion. Every file is read twice: as shipped,
and with every shortcut switched off (``strict_reading``: the ``csv`` module tokenises every file, the rules that
word the problems in the product read every cell: ``parse_cell`` each label cell, ``check_ids`` each id, a dict
over the decoded names the group codes). Ids, labels, line numbers, ids left unread and every problem (code,
severity, line, column, message) must be identical.

The files: every corpus, reference and real file of the repository, their solutions; and files hypothesis draws
to trip the shortcuts: whole PlantCLEF uploads with their solutions (ids of every length, odd lists, shuffled,
repeated, renamed rows, a header again, every quoting and line end), files regular but for blanks typed after
closing quotes (the vectorised ``quote_blanks`` path), and files with blank lines and rows of other widths
(``csv_spans.line_fields``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.runtime.reading.strict_reading import strict_reading

REPO = Path(__file__).resolve().parents[4]
CORPUS = sorted((REPO / "tests" / "platforms" / "corpus").glob("*.csv"))
REFERENCE = sorted((REPO / "reference_submissions").glob("*/submissions/**/*.csv"))
REAL = {
    "plantclef2024_submission_dsgt_run_v1.csv": "plantclef2024",
    "plantclef2025_submission_tiling_quadrat.csv": "plantclef2025",
    "plantclef2025_submission_topk5.csv": "plantclef2025",
    "plantclef2025_submission_vote_k5.csv": "plantclef2025",
}
PLANTCLEF = load_competition("plantclef2025")


def _summary(sub) -> dict:
    return {"ids": list(sub.ids), "lines": sub.lines.tolist(), "unread": sub.unread_ids,
            "labels": sub.labels.to_lists() if sub.labels is not None else None, "classes": sub.classes,
            "problems": [(p.code, p.severity, p.line, p.column, p.message) for p in sub.problems]}


def _solution_summary(read) -> dict:
    try:
        sol = read()
    except HostError as exc:
        return {"host_error": (exc.code, str(exc))}
    return {"ids": sol.ids, "groups": list(sol.groups), "codes": sol.group_codes[0].tolist(),
            "names": list(sol.group_codes[1]), "split": sol.split.tolist(),
            "labels": sol.labels.to_lists() if sol.labels is not None else None, "classes": sol.classes}


def _both_ways(read):
    """(as shipped, by the strict per-cell rules alone)."""
    shipped = read()
    with pytest.MonkeyPatch.context() as m:
        strict_reading(m)
        strict = read()
    return shipped, strict


# ---- the files of the repository --------------------------------------------------------------------------

def _files_on_disk():
    for path in CORPUS:
        yield pytest.param(path, "plantclef2025", id=f"corpus/{path.name}")
    for path in REFERENCE:
        yield pytest.param(path, path.relative_to(REPO / "reference_submissions").parts[0],
                           id=str(path.relative_to(REPO / "reference_submissions")))
    for name, competition in sorted(REAL.items()):
        yield pytest.param(REPO / "tests" / "fixtures" / "real" / name, competition, id=f"real/{name}")


@pytest.mark.parametrize(("path", "competition"), list(_files_on_disk()))
def test_every_file_of_the_repository_reads_as_by_the_strict_rules(path, competition):
    definition = load_competition(competition)
    shipped, strict = _both_ways(lambda: _summary(read_submission(path, definition)))
    assert shipped == strict
    if "real" in path.parts:
        assert not [p for p in shipped["problems"] if p[1] == "error"]


@pytest.mark.parametrize("competition", ["plantclef2025", "agrichallenge2024"])
def test_every_solution_of_the_repository_loads_as_by_the_strict_rules(competition):
    definition = load_competition(competition)
    path = REPO / "reference_submissions" / competition / "solution.csv"
    shipped, strict = _both_ways(lambda: _solution_summary(lambda: load_solution(path, definition)))
    assert shipped == strict and "host_error" not in shipped


# ---- files drawn to trip the shortcuts ------------------------------------------------------------------------

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
def _uploads_with_solutions(draw) -> tuple:
    """(plantclef2025, a submission, its solution), made to trip the shortcuts."""
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
    return PLANTCLEF, _write(draw, rows), _write(draw, solution)


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


# files regular but for blanks typed after closing quotes (quote_blanks)
_ID = st.text(alphabet=["Q", "1", "-", "é", "x", " "], min_size=1, max_size=6).filter(lambda s: s.strip() == s)
_LABELS = st.lists(st.integers(1, 9_999_999), max_size=4).map(lambda v: "[" + ", ".join(map(str, v)) + "]")
_BLANKS = st.text(alphabet=[" ", "\t"], max_size=3)  # "" most often: no blank there


@st.composite
def _blanks_after_quotes(draw) -> tuple:
    """A submission, quoted field by field at random, with blanks after some of its closing quotes."""
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ['"qid","species"' if draw(st.booleans()) else "qid,species"]
    for _ in range(draw(st.integers(1, 8))):
        id_, labels = draw(_ID), draw(_LABELS)
        id_cell = f'"{id_}"{draw(_BLANKS)}' if draw(st.booleans()) else id_
        lines.append(f'{id_cell},"{labels}"{draw(_BLANKS)}')
    last_end = draw(st.sampled_from([end, ""]))
    return _simple(), (end.join(lines) + last_end).encode("utf-8"), None


# blank lines, rows of other widths and blanks after quotes (csv_spans.line_fields)

@st.composite
def _field(draw, text) -> str:
    value = draw(text)
    return f'"{value}"{draw(_BLANKS)}' if draw(st.booleans()) else value.replace(",", ";")


@st.composite
def _blank_lines_and_ragged_rows(draw) -> tuple:
    """A submission with blank lines, rows of another width and blanks after closing quotes at random."""
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ['"qid","species"' if draw(st.booleans()) else "qid,species"]
    for _ in range(draw(st.integers(1, 10))):
        shape = draw(st.sampled_from(["row", "row", "blank", "ragged"]))
        if shape == "blank":
            lines.append("")
        elif shape == "row":
            lines.append(draw(_field(_ID)) + "," + draw(_field(_LABELS)))
        else:
            lines.append(",".join(draw(st.lists(_field(st.sampled_from(["Q-1", "", "x", "[1]"])), min_size=1,
                                                max_size=5).filter(lambda f: len(f) != 2))))
    return _simple(draw(st.integers(1, 6))), (end.join(lines) + draw(st.sampled_from([end, ""]))).encode("utf-8"), None


def _simple(max_rows: int | None = None, id_pattern: str = ".+") -> CompetitionDefinition:
    """Two columns, ids of ``id_pattern``; ``max_rows`` rows at most where given."""
    d = CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                              list_syntax="python-list", primary_metric="sample_f1", id_pattern=id_pattern)
    if max_rows is None:
        return d
    return dataclasses.replace(d, limits=dataclasses.replace(d.limits, max_rows=max_rows))


@settings(max_examples=1000, deadline=None)
@given(st.one_of(_uploads_with_solutions(), _blanks_after_quotes(), _blank_lines_and_ragged_rows()))
def test_every_generated_file_reads_as_by_the_strict_rules(case):
    """The shortcuts against the csv module and the strict per-cell rules; the solution's checked ids reused or
    not; and the whole scoring of a PlantCLEF pair gives a report, or a host error for a bad solution."""
    from agrieval.scoring.runtime.scorer import score_file

    definition, upload, solution = case
    shipped, strict = _both_ways(lambda: _summary(read_submission(upload, definition, filename="s.csv")))
    assert shipped == strict
    if solution is None:
        return
    shipped_solution, strict_solution = _both_ways(lambda: _solution_summary(lambda: load_solution(solution,
                                                                                                     definition)))
    assert shipped_solution == strict_solution
    if "host_error" not in shipped_solution:
        sol = load_solution(solution, definition)
        assert _summary(read_submission(upload, definition, checked_ids=sol.checked_ids, filename="s.csv")) == shipped
    try:
        report = score_file(upload, solution, definition, reveal_private=True).to_dict()
    except HostError as exc:
        report = exc.code, str(exc)
    event("host error" if isinstance(report, tuple) else report["status"])




# ---- shapes that reach the edges of a shortcut -------------------------------------------------------------

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
    from agrieval.scoring.runtime._matching import align
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
def test_a_transect_column_is_grouped_as_by_the_strict_rules(tmp_path, quoting):
    """A ``transect_id`` column: codes from the bytes (sorted hashes) as shipped, from a dict over the decoded
    names by the strict rules; the same codes, names and groups."""
    import csv

    src = REPO / "reference_submissions" / "plantclef2025" / "solution.csv"
    with src.open(newline="") as fh:
        rows = list(csv.reader(fh))
    path = tmp_path / "solution.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL if quoting == "all" else csv.QUOTE_MINIMAL)
        w.writerow(rows[0] + ["transect_id"])
        for k, row in enumerate(rows[1:]):  # names of every length around 8 bytes, shared by several rows
            w.writerow(row + [row[0][:4 + k % 13] + ("-é" if k % 17 == 0 else "")])
    shipped, strict = _both_ways(lambda: _solution_summary(lambda: load_solution(path, PLANTCLEF)))
    assert shipped == strict and len(set(shipped["groups"])) > 10


@pytest.mark.parametrize("others", ["T1", ""], ids=["one-blank", "every-blank"])
@pytest.mark.parametrize("blank", ["", " ", "\u00a0"])
def test_a_blank_transect_is_named_with_its_line_as_by_the_strict_rules(tmp_path, blank, others):
    """A solution row without its transect is the host's mistake, named with its line: the names are decoded
    lazily as shipped, and the blank one found from the bytes (every transect empty: there was a division by
    zero in ``cell_keys.compact_cells``, which hypothesis found)."""
    path = tmp_path / "solution.csv"
    path.write_text("quadrat_id,species_ids,Usage,transect_id\n"
                    f"q1,[1355868],Public,{others}\nq2,[1355868],Private,{blank}\nq3,[1355868],Private,{others}\n",
                    encoding="utf-8")
    lines = "[3]" if others else "[2, 3, 4]"
    shipped, strict = _both_ways(lambda: _solution_summary(lambda: load_solution(path, PLANTCLEF)))
    assert shipped == strict == {"host_error": ("solution_invalid",
                                                f"solution.csv: empty 'transect_id' on lines {lines}")}


BLANKS = ["\u00a0", "\u3000", "\x1c", "\x1f", "\x0b", "\u2028"]


@pytest.mark.parametrize("blank", BLANKS, ids=[f"U+{ord(b):04X}" for b in BLANKS])
def test_a_unicode_blank_in_a_real_list_is_refused_as_by_the_strict_rules(real_files, tmp_path, blank):
    """Issue 22: str.strip() and str.split() read U+00A0, U+3000 and \\x1c-\\x1f as blanks; Python's parser
    and both reading paths refuse them (the byte path declines anything but ', ', the cell path names it)."""
    lines = (real_files / "plantclef2024_submission_dsgt_run_v1.csv").read_text(encoding="utf-8").splitlines()
    key, cell = lines[1].split(";")
    lines[1] = f"{key};{cell[:-1]},{blank}1363875]" if cell != "[]" else f"{key};[{blank}1363875]"
    path = tmp_path / "blank.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    definition = load_competition("plantclef2024")
    shipped, strict = _both_ways(lambda: _summary(read_submission(path, definition)))
    assert shipped == strict
    assert [p[0] for p in shipped["problems"] if p[1] == "error"] == ["list_syntax"]
    assert f"U+{ord(blank):04X}" in shipped["problems"][0][4]


def test_a_solution_id_named_as_the_id_column_still_lets_a_repeated_header_be_named():
    """A submission whose ids are the solution's reuses their checks: a solution id spelt as the id column
    (valid under the pattern) must not hide the repeated header line that the full checks name."""
    definition = _simple(id_pattern="[A-Za-z0-9][A-Za-z0-9_.-]*")
    sol = load_solution(b"qid,species\nq1,[1]\nqid,[2]\n", definition)
    data = b"qid,species\nq1,[1]\nqid,species\n"
    alone = _summary(read_submission(data, definition))
    assert [p[0] for p in alone["problems"]] == ["repeated_header", "list_syntax"]
    assert _summary(read_submission(data, definition, checked_ids=sol.checked_ids)) == alone


def test_hashes_that_all_collide_only_make_the_shortcuts_decline(monkeypatch):
    """Transect codes, the solution's duplicate check and the reordered ids' matching all start from 64-bit
    hashes of the bytes: with every hash equal, each must decline and give what the strings give."""
    from agrieval.scoring.runtime.reading import _cell_keys as cell_keys

    names = ["T1", "T2", "T1", "AAAAAAAAB", "AAAAAAAAC"]
    solution = b"quadrat_id,species_ids,Usage,transect_id\n" + b"".join(
        f"q{k},[1355868],Public,{names[k % 5]}\n".encode() for k in range(20))
    upload = b"quadrat_id,species_ids\n" + b"".join(f"q{k},[1355868]\n".encode() for k in reversed(range(20)))

    def read():
        sol = load_solution(solution, PLANTCLEF)
        sub = read_submission(upload, PLANTCLEF, checked_ids=sol.checked_ids)
        return (sol.groups, sol.group_codes[0].tolist(), list(sol.group_codes[1]), sol.ids, _summary(sub))

    hashed = read()
    monkeypatch.setattr(cell_keys, "words_hash", lambda words, length: np.zeros(len(length), dtype=np.uint64))
    assert read() == hashed
    assert hashed[2] == ["T1", "T2", "AAAAAAAAB", "AAAAAAAAC"] and hashed[4]["ids"][0] == "q19"


@pytest.mark.parametrize("row", [b'"Q-%d" ,"[1355868, 1355869]"\n', b'"Q-%d"\t,"[1]"  \r\n', b'Q-%d,"[2]" \n'])
def test_a_long_file_of_blanks_after_quotes_reads_as_by_the_strict_rules(row):
    """Thousands of blanks: the log's per-code and same-message summaries, in one step, as one by one."""
    raw = b"qid,species\n" + b"".join(row % (i * 7919 % 100_000) for i in range(5_000))
    shipped, strict = _both_ways(lambda: _summary(read_submission(raw, _simple(), filename="s.csv")))
    assert shipped == strict and len(shipped["problems"]) > 2


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet=[" ", "\t"], max_size=12), min_size=1, max_size=8))
def test_long_runs_of_blanks_after_quotes_read_as_by_the_strict_rules(runs):
    """Runs longer than the steps taken a byte at a time (``quote_blanks._STEPS``) are found from the blanks'
    positions: the same verdicts either way."""
    raw = ("qid,species\n" + "".join(f'"Q-{i}"{run},"[1]"{run[::-1]}\n' for i, run in enumerate(runs))).encode()
    shipped, strict = _both_ways(lambda: _summary(read_submission(raw, _simple(), filename="s.csv")))
    assert shipped == strict


def test_one_long_record_of_blanks_after_quotes_reads_as_by_the_strict_rules(monkeypatch):
    """The benchmark's slowest shape, small: thousands of distinct messages, past the ones the log tracks."""
    from agrieval.scoring.runtime import problems

    raw = b"qid,species\n" + b'"Q-1" ,' * 3_000 + b'"[1]"\n' + b'"Q-2" ,"[2]"\n\n'
    monkeypatch.setattr(problems, "_DISTINCT_TRACKED", 500)
    shipped, strict = _both_ways(lambda: _summary(read_submission(raw, _simple(10), filename="s.csv")))
    assert shipped == strict and shipped["ids"] == ["Q-2"]
    assert ("ragged_row", "error", 2, 3) in [p[:4] for p in shipped["problems"]]
