"""Every error with a stable code is a ``CodedError``: one line, one dict, the contract's exit code."""

from __future__ import annotations

import pytest

from agrieval.baselines.ctv.errors import CTVError
from agrieval.data_tools.errors import DataError
from agrieval.scoring.analysis_input.input_error import InputError
from agrieval.scoring.cli._failures import CommandError, exit_code_of
from agrieval.scoring.runtime._whole_writes import OutputIncomplete
from agrieval.scoring.runtime.coded_error import CodedError
from agrieval.scoring.runtime.problems import HostError, OptionError
from agrieval.scoring.writing.policy import OutputRefused
from agrieval.scoring.writing.table_paths import UnsafePath

CASES = [  # (error, exit code, its line)
    (CommandError("unknown_competition", "no such competition"), 2, "error [unknown_competition] no such competition"),
    (CommandError("missing_dependency", "pip install x", 3), 3, "error [missing_dependency] pip install x"),
    (OutputRefused("output_exists", "exists", path="out/a.csv"), 2, "out/a.csv: error [output_exists] exists"),
    (InputError("bad_json", "not JSON", file="r.json", line=3, column=7), 1, "r.json:3:7: error [bad_json] not JSON"),
    (InputError("no_runs", "none"), 1, "<input>: error [no_runs] none"),
    (DataError("bad_option", "--size 0"), 2, "error [bad_option] --size 0"),
    (DataError("source_changed", "a.jpg changed"), 1, "error [source_changed] a.jpg changed"),
    (CTVError("unknown_preset", "no preset x"), 2, "error [unknown_preset] no preset x"),
    (CTVError("image_missing", "a.jpg"), 1, "error [image_missing] a.jpg"),
    (HostError("solution_invalid", "bad solution"), 3, "error [solution_invalid] bad solution"),
    (OptionError("--val-accuracy 98 is not a fraction"), 2, "error [bad_option] --val-accuracy 98 is not a fraction"),
    (UnsafePath("t.csv:2: ../x"), 1, "error [unsafe_path] t.csv:2: ../x"),
    (OutputIncomplete("stdout", "No space left on device", 0, 10), 3,
     "error [output_incomplete] stdout: 0 of 10 bytes written (No space left on device); the output is not whole"),
]


@pytest.mark.parametrize("error, exit_code, line", CASES, ids=[type(c[0]).__name__ + ":" + c[0].code for c in CASES])
def test_a_coded_error_renders_its_line_dict_and_exit_code(error, exit_code, line):
    assert isinstance(error, CodedError)
    assert (error.exit_code, error.render(), str(error)) == (exit_code, line, error.message)
    assert exit_code_of(error, "agrieval") == (exit_code, line)
    assert error.as_dict()["code"] == error.code and error.as_dict()["message"] == error.message


def test_where_a_position_is_known_the_dict_has_it():
    assert InputError("bad_json", "x", file="r.json", line=3).as_dict() == {
        "code": "bad_json", "message": "x", "file": "r.json", "line": 3}
    assert OutputRefused("output_exists", "x", path="o").as_dict() == {"code": "output_exists", "message": "x",
                                                                       "file": "o"}


@pytest.mark.parametrize("cls", [OutputRefused, InputError, DataError, CTVError])
def test_a_code_outside_the_catalogue_is_a_bug_of_the_caller(cls):
    with pytest.raises(ValueError, match="unknown"):
        cls("no_such_code", "x")


def test_the_exception_kinds_callers_catch_are_kept():
    assert isinstance(OptionError("x"), ValueError) and isinstance(OutputIncomplete("f", "x"), OSError)
