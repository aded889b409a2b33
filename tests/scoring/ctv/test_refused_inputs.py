"""Issue 22 policy gaps: each mistake gets the contract's code, never an internal error or a silent reading.

* ``ctv report --out`` inside a runs folder it reads (also through a link): refused, exit 2;
* a run.json nested 100,000 deep: ``bad_json`` (exit 1), not a RecursionError (exit 3);
* NaN/Infinity accuracies in history.jsonl: refused with a code (exit 1);
* a run.json or predictions file that is a link to /dev/zero or a FIFO: refused, not read forever;
* lists holding U+00A0, U+3000 or \\x1c-\\x1f: refused (as Python's parser refuses them), on both reading paths;
* bad option values (``--val-accuracy 2``, ``nan``, an unknown ``--own-team``): usage errors, exit 2.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli.main import cli
from agrieval.scoring.runtime.reading.submission import read_submission
from tests.scoring.ctv.run_folders import write_run
from tests.scoring.runtime.reading.strict_reading import strict_reading

REPO = Path(__file__).resolve().parents[3]
PC = REPO / "reference_submissions" / "plantclef2025"
AG = REPO / "reference_submissions" / "agrichallenge2024"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _runs(root: Path) -> Path:
    write_run(root, "TOTO", "net", "a", {("a", "val"): (9, 10), ("b", "test"): (6, 10)})
    write_run(root, "TOTO", "net", "b", {("b", "val"): (8, 10), ("a", "test"): (5, 10)})
    return root


def _assert_coded(res, code: int, text: str):
    assert res.exit_code == code, (res.exit_code, res.output)
    assert text in res.output, res.output
    assert "Traceback" not in res.output and "internal_error" not in res.output


def test_ctv_report_out_inside_the_runs_folder_is_refused(tmp_path):
    runs = _runs(tmp_path / "runs")
    _assert_coded(run("ctv", "report", runs, "--out", runs / "report"), 2, "[output_in_source]")
    assert not (runs / "report").exists()
    link = tmp_path / "link"
    link.symlink_to(runs, target_is_directory=True)
    _assert_coded(run("ctv", "report", runs, "--out", link / "report"), 2, "[output_in_source]")
    _assert_coded(run("ctv", "report", link, "--out", runs / "TOTO"), 2, "[output_in_source]")
    assert run("ctv", "report", runs, "--out", tmp_path / "report").exit_code == 0


def test_a_deeply_nested_run_json_is_bad_json(tmp_path):
    runs = _runs(tmp_path / "runs")
    (runs / "TOTO" / "net" / "a" / "run.json").write_text("[" * 100_000 + "]" * 100_000)
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "[bad_json]")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_non_finite_accuracy_in_the_history_is_refused(tmp_path, value):
    runs = _runs(tmp_path / "runs")
    (runs / "TOTO" / "net" / "a" / "history.jsonl").write_text(f'{{"epoch": 1, "val_acc": {value}}}\n')
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "[bad_number]")
    assert "history.jsonl:1" in run("ctv", "report", runs, "--out", tmp_path / "o2").output


def test_a_non_finite_number_in_run_json_is_refused(tmp_path):
    runs = _runs(tmp_path / "runs")
    meta = runs / "TOTO" / "net" / "a" / "run.json"
    meta.write_text(meta.read_text().replace('"val_acc": 0', '"val_acc": NaN'))
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "[bad_number]")


@pytest.mark.parametrize("name", ["run.json", "predictions.csv", "history.jsonl"])
def test_a_run_file_that_is_a_device_is_refused_not_read(tmp_path, name):
    runs = _runs(tmp_path / "runs")
    target = runs / "TOTO" / "net" / "a" / name
    target.unlink(missing_ok=True)
    target.symlink_to("/dev/zero")
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "[link_outside]")


def test_a_device_is_never_read_even_when_reached():
    from agrieval.scoring.analysis_input._json_input import MAX_JSON_BYTES, read_regular
    from agrieval.scoring.analysis_input.input_error import InputError

    with pytest.raises(InputError) as info:
        read_regular(Path("/dev/zero"), MAX_JSON_BYTES, "run file")
    assert info.value.code == "unreadable_file"


def test_a_fifo_named_run_json_is_refused_not_waited_on(tmp_path):
    runs = _runs(tmp_path / "runs")
    target = runs / "TOTO" / "net" / "a" / "run.json"
    target.unlink()
    os.mkfifo(target)
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "[unreadable_file]")


BLANKS = ["\u00a0", "\u3000", "\x1c", "\x1d", "\x1e", "\x1f", "\x0b", "\x85", "\u2028"]


@pytest.mark.parametrize("blank", BLANKS, ids=[f"U+{ord(b):04X}" for b in BLANKS])
@pytest.mark.parametrize("where", ["after_comma", "before_bracket", "after_bracket"])
def test_a_list_with_a_unicode_blank_is_refused_on_both_paths(tmp_path, monkeypatch, blank, where):
    cell = {"after_comma": f"[1355868,{blank}1355869]", "before_bracket": f"{blank}[1355868]",
            "after_bracket": f"[1355868]{blank}"}[where]
    lines = (PC / "submissions" / "partial.csv").read_text().splitlines()
    key = lines[1].split(",")[0]
    lines[1] = f'{key},"{cell}"'
    sub = tmp_path / "sub.csv"
    sub.write_text("\n".join(lines) + "\n", encoding="utf-8")
    definition = load_competition("plantclef2025")
    fast = read_submission(sub, definition)
    with monkeypatch.context() as m:
        strict_reading(m)
        slow = read_submission(sub, definition)
    assert [p.as_dict() for p in fast.problems] == [p.as_dict() for p in slow.problems]
    assert not fast.ok
    codes = {p.code for p in fast.errors}
    assert codes == {"list_syntax"}, [p.as_dict() for p in fast.errors]
    assert f"U+{ord(blank):04X}" in " ".join(p.message for p in fast.errors)


def test_plain_spaces_tabs_and_form_feeds_are_still_read():
    from agrieval.scoring.runtime.problems import ProblemLog
    from agrieval.scoring.runtime.reading._label_cells import parse_cell

    log = ProblemLog()
    assert parse_cell(" [1,\t2 ,\x0c3] ", "python-list", log, 2, 2) == [1, 2, 3]
    assert parse_cell("1 2\t3", "space-separated", log, 2, 2) == [1, 2, 3]
    assert not log.finish()


@pytest.mark.parametrize("args, text", [
    (["--val-accuracy", "2"], "--val-accuracy"),
    (["--val-accuracy", "-0.1"], "--val-accuracy"),
    (["--val-accuracy", "nan"], "--val-accuracy"),
    (["--val-accuracy", "inf"], "--val-accuracy"),
    (["--own-team", "team_zz"], "--own-team"),
])
def test_bad_option_values_are_usage_errors(args, text):
    res = run("score", AG / "submissions" / "perfect.csv", "-s", AG / "solution.csv", "-c", "agrichallenge2024",
              *args)
    _assert_coded(res, 2, text)
    assert "[bad_option]" in res.output
    js = run("score", AG / "submissions" / "perfect.csv", "-s", AG / "solution.csv", "-c", "agrichallenge2024",
             "--json", *args)
    assert js.exit_code == 2


def test_own_team_on_a_multilabel_competition_is_a_usage_error():
    res = run("score", PC / "submissions" / "partial.csv", "-s", PC / "solution.csv", "-c", "plantclef2025",
              "--own-team", "x")
    _assert_coded(res, 2, "[bad_option]")


def test_good_option_values_still_score():
    res = run("score", AG / "submissions" / "perfect.csv", "-s", AG / "solution.csv", "-c", "agrichallenge2024",
              "--own-team", "team_a", "--val-accuracy", "0.9", "--json")
    assert res.exit_code == 0, res.output
    assert "vtg" in json.loads(res.stdout)["metrics"]["public"]


def test_a_run_file_linked_outside_its_folder_is_refused(tmp_path):
    runs = _runs(tmp_path / "runs")
    outside = tmp_path / "private.csv"
    pred = runs / "TOTO" / "net" / "a" / "predictions.csv"
    outside.write_bytes(pred.read_bytes())
    pred.unlink()
    pred.symlink_to(outside)
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "[link_outside]")
    pred.unlink()
    pred.symlink_to(Path("..") / "b" / "predictions.csv")  # a link inside the tree is read
    (runs / "TOTO" / "net" / "a" / "run.json").write_text(json.dumps({"protocol": "TOTO", "arch": "net", "fold": "b"}))
    res = run("ctv", "report", runs, "--out", tmp_path / "o")
    assert "[link_outside]" not in res.output


def test_a_link_loop_in_the_runs_folder_is_not_followed(tmp_path):
    runs = _runs(tmp_path / "runs")
    (runs / "TOTO" / "loop").symlink_to(runs, target_is_directory=True)
    assert run("ctv", "report", runs, "--out", tmp_path / "o").exit_code == 0


def test_a_lone_surrogate_in_run_json_is_bad_json(tmp_path):
    runs = _runs(tmp_path / "runs")
    meta = runs / "TOTO" / "net" / "a" / "run.json"
    meta.write_text(meta.read_text().replace('"arch": "net"', '"arch": "n\\udc80t"'))
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "[bad_json]")


def test_a_very_long_arch_gets_a_file_name_the_file_system_takes(tmp_path):
    runs = tmp_path / "runs"
    arch = "a" * 300
    write_run(runs, "TOTO", "net", "a", {("a", "val"): (9, 10), ("b", "test"): (6, 10)}, {"arch": arch})
    write_run(runs, "TOTO", "net", "b", {("b", "val"): (8, 10), ("a", "test"): (5, 10)}, {"arch": arch})
    res = run("ctv", "report", runs, "--out", tmp_path / "o")
    assert res.exit_code == 0, res.output
    (matrix,) = (tmp_path / "o").glob("cross_team_*.csv")
    assert len(matrix.name) < 120


def test_a_long_history_costs_linear_time():
    """The learning curves scanned every history once per epoch: 20,000 epochs were minutes of CPU."""
    import time

    from agrieval.scoring.ctv._paper_figures import learning_curves
    from agrieval.scoring.ctv._records import Records
    from agrieval.scoring.ctv.runs import Run

    history = [{"epoch": e, "train": 50.0, "val": 60.0} for e in range(20_000)]
    runs = [Run("p", "agrieval", "TOTO", "net", f, [f], {"val": 1, "test": 1}, {"val": 1, "test": 1},
                history=history) for f in ("a", "b")]
    start = time.monotonic()
    curves = learning_curves(Records.from_runs(runs), {"TOTO": 0})
    assert len(curves) == 20_000 and curves[0]["val"] == {"n_runs": 2, "mean": 60.0, "std": 0.0}
    assert time.monotonic() - start < 15


# --- caps that say what a file of that kind can be (issue 56) --------------------------------------------------

def test_a_run_json_of_empty_lists_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    """A 15 MB run.json of empty lists cost 28.8x its size before it was refused: now a run record is at most
    4 MiB and 10,000 lists and objects, counted on its bytes."""
    import agrieval.scoring.analysis_input._json_input as json_input

    runs = _runs(tmp_path / "runs")
    (runs / "TOTO" / "net" / "a" / "run.json").write_text("[" + ",".join(["[]"] * 20_000) + "]")
    monkeypatch.setattr(json_input, "parse", lambda *a, **k: pytest.fail("parsed before the cap was checked"))
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o"), 1, "20,001 lists and objects")
    (runs / "TOTO" / "net" / "a" / "run.json").write_bytes(b" " * (json_input.MAX_JSON_BYTES + 1))
    _assert_coded(run("ctv", "report", runs, "--out", tmp_path / "o2"), 1, "[unreadable_file]")


def test_a_predictions_table_is_rows_times_a_bound_per_row(tmp_path, monkeypatch):
    import agrieval.scoring.ctv.runs as ctv_runs

    runs = _runs(tmp_path / "runs")
    monkeypatch.setattr(ctv_runs, "_MAX_PREDICTION_ROWS", 15)  # the fixture's runs hold 20 rows
    monkeypatch.setattr(ctv_runs, "_PREDICTION_CHUNK_ROWS", 4)
    res = run("ctv", "report", runs, "--out", tmp_path / "o")  # a refused run: a warning, the others reported
    assert "more than 15 rows" in res.output and "Traceback" not in res.output, res.output
    monkeypatch.setattr(ctv_runs, "_MAX_PREDICTION_ROWS", 1_000)
    pred = runs / "TOTO" / "net" / "a" / "predictions.csv"
    lines = pred.read_text().splitlines()
    pred.write_text("\n".join(lines[:2] + [lines[2] + " " * 200_000] + lines[3:]) + "\n")  # one row of 200 kB
    res = run("ctv", "report", runs, "--out", tmp_path / "o2")
    assert "more than 512 bytes a row" in res.output and "Traceback" not in res.output, res.output
    pred.write_text("\n".join(lines) + "\n")
    res = run("ctv", "report", runs, "--out", tmp_path / "o3")
    assert res.exit_code == 0 and "bytes a row" not in res.output, res.output
