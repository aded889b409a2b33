"""Reading the solution in a second thread changes nothing but the time it takes.

``scorer.read_both`` (what ``score_file`` and ``agrieval score`` run) loads the
solution in another thread while this one reads the upload. Every reference
submission, every file of the bad-submission corpus and the real files must get
the same report with two threads as with one, and a bad solution must still be
raised as a host error whatever the upload holds, with no thread left running.
Runtime imports only: this runs under every interpreter of the portable runtime.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.reading.submission import read_submission
from agrieval.scoring.runtime.scorer import read_both, score_file
from shipped_files import CORPUS, REFERENCE, uploads



@pytest.mark.parametrize("competition", ["plantclef2025", "agrichallenge2024"])
def test_two_threads_give_every_upload_the_one_thread_report(competition):
    definition = load_definition(competition)
    solution = REFERENCE / competition / "solution.csv"
    files = uploads(competition, zips=True)
    assert len(files) > (60 if competition == "plantclef2025" else 4)
    for path in files:
        one = score_file(path, solution, definition, reveal_private=True, threads=1)
        two = score_file(path, solution, definition, reveal_private=True, threads=2)
        assert two.to_dict() == one.to_dict(), path.name
    assert threading.active_count() == 1  # every solution thread was waited for


@pytest.mark.parametrize("threads", [1, 2])
def test_a_bad_solution_is_a_host_error_even_when_the_upload_is_refused(tmp_path, threads):
    """The solution's problem wins over the upload's, as when they are read one after the other."""
    definition = load_definition("plantclef2025")
    bad_solution = tmp_path / "solution.csv"
    bad_solution.write_text("quadrat_id,species_ids\nq1,[1]\nq1,[2]\n")  # a repeated id: the host's mistake
    for upload in [REFERENCE / "plantclef2025" / "submissions" / "perfect.csv", CORPUS / "zip_corrupt.zip",
                   b"\x89PNG not a csv"]:
        if isinstance(upload, Path) and not upload.exists():
            continue
        with pytest.raises(HostError) as caught:
            read_both(upload, bad_solution, definition, threads=threads)
        assert caught.value.code == "solution_invalid"
        assert "already appeared on line 2" in str(caught.value)
    assert threading.active_count() == 1


@pytest.mark.parametrize("threads", [1, 2])
def test_a_solution_whose_ids_were_handed_over_and_labels_are_bad_still_wins(monkeypatch, tmp_path, threads):
    """With two threads the solution's checked ids reach the upload's reader before the solution's labels are
    read (``load_solution``'s ``on_ids``); a bad label found after that is still the verdict: a HostError,
    whatever the upload held, as one after the other."""
    import agrieval.scoring.runtime.scorer as scorer
    from agrieval.scoring.runtime.reading import solution as solution_module

    definition = load_definition("plantclef2025")
    lines = (REFERENCE / "plantclef2025" / "solution.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[-1] = lines[-1].replace("[", "[x", 1)  # valid ids, a bad list on the last line
    bad_solution = tmp_path / "solution.csv"
    bad_solution.write_text("".join(lines), encoding="utf-8")
    handed = []
    real_load = solution_module.load_solution

    def load(path, definition, on_ids=None):
        def spy(checked):
            handed.append(len(checked))
            on_ids(checked)
        return real_load(path, definition, on_ids=spy if on_ids else None)

    for upload in [REFERENCE / "plantclef2025" / "submissions" / "perfect.csv", CORPUS / "zip_corrupt.zip"]:
        if not upload.exists():
            continue
        with pytest.raises(HostError) as caught:
            scorer.read_both(upload, bad_solution, definition, threads=threads, load=load)
        assert caught.value.code == "solution_invalid" and f"solution.csv:{len(lines)}:2: error [non_integer_label]" in str(caught.value)
    assert handed == ([len(lines) - 1] * len(handed)) and (len(handed) > 0) == (threads == 2)
    assert threading.active_count() == 1


def test_an_error_while_reading_the_upload_still_waits_for_the_solution(monkeypatch):
    definition = load_definition("plantclef2025")
    solution = REFERENCE / "plantclef2025" / "solution.csv"

    def broken(*args, **kwargs):
        raise RuntimeError("reader broke")

    monkeypatch.setattr("agrieval.scoring.runtime.scorer.read_submission", broken)
    with pytest.raises(RuntimeError, match="reader broke"):
        read_both(REFERENCE / "plantclef2025" / "submissions" / "perfect.csv", solution, definition, threads=2)
    assert threading.active_count() == 1


@pytest.mark.parametrize("threads", [1, 2])
def test_a_bad_solution_wins_over_an_error_while_reading_the_upload(monkeypatch, tmp_path, threads):
    """Read one after the other, a bad solution stops everything before the upload is read: with two
    threads its HostError must still win over whatever the upload's reading raised (a time limit, a bug)."""
    definition = load_definition("plantclef2025")
    bad_solution = tmp_path / "solution.csv"
    bad_solution.write_text("quadrat_id,species_ids\nq1,[1]\nq1,[2]\n")

    def broken(*args, **kwargs):
        raise RuntimeError("reader broke")

    monkeypatch.setattr("agrieval.scoring.runtime.scorer.read_submission", broken)
    with pytest.raises(HostError) as caught:
        read_both(REFERENCE / "plantclef2025" / "submissions" / "perfect.csv", bad_solution, definition,
                  threads=threads)
    assert caught.value.code == "solution_invalid" and "already appeared on line 2" in str(caught.value)
    assert threading.active_count() == 1


def test_the_checked_ids_may_come_from_a_function_called_once_after_the_labels():
    definition = load_definition("plantclef2025")
    solution_path = REFERENCE / "plantclef2025" / "solution.csv"
    upload = (REFERENCE / "plantclef2025" / "submissions" / "perfect.csv").read_bytes()
    from agrieval.scoring.runtime.reading.solution import load_solution

    sol = load_solution(solution_path, definition)
    calls = []

    def later():
        calls.append(1)
        return sol.checked_ids

    direct = read_submission(upload, definition, checked_ids=sol.checked_ids)
    deferred = read_submission(upload, definition, checked_ids=later)
    assert calls == [1]
    assert deferred.ids == direct.ids and deferred.id_order[0] is sol.checked_ids
    assert deferred.labels.to_lists() == direct.labels.to_lists() and deferred.problems == direct.problems


def test_the_csv_modules_field_limit_is_never_shared_between_two_reads():
    """``csv.field_size_limit`` is one process-wide setting: a read with a large limit (a solution) in one
    thread must not let a read with a small limit (a submission) in another accept a longer field, or the
    other way round. Both go through the csv module here (a ragged row sends a file there)."""
    from agrieval.scoring.runtime.problems import ProblemLog
    from agrieval.scoring.runtime.reading import tokenize

    long_cell = "x" * 5000
    text = "a,b\n" + f"1,{long_cell}\n" * 50 + "2,3,4\n"  # the ragged last row: the csv module reads it all

    def read(limit: int) -> list:
        log = ProblemLog()
        tokenize.parse(text.encode(), delimiter=",", required=["a", "b"], max_rows=1000, max_cell_chars=limit,
                       log=log)
        return [(p.code, p.line) for p in log.finish()]

    small, large = read(1000), read(10**6)
    assert small != large and small[0][0] == "malformed_csv"
    results: dict = {"small": [], "large": []}

    def loop(name: str, limit: int) -> None:
        for _ in range(40):
            results[name].append(read(limit))

    workers = [threading.Thread(target=loop, args=("large", 10**6)), threading.Thread(target=loop, args=("small", 1000))]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can: a shared limit would show
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(interval)
    assert all(r == small for r in results["small"]) and all(r == large for r in results["large"])
