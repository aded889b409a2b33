"""The grading runtime on its own: run by `make test` under every interpreter of .ci/interpreters too.

Only the standard library, numpy, pytest and hypothesis may be imported here
(those venvs hold nothing else), so these tests prove what a grading platform
runs: the shipped frozen definitions, the reference submissions scored to
their expected values, every corpus file rejected with its expected codes, the
Codabench program's files, and the split-safe answers.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime._platforms import codabench
from agrieval.scoring.runtime._split_safe import HEADER_CODES, split_independent
from agrieval.scoring.runtime.definition import _FROZEN_DIR as FROZEN_DIR
from agrieval.scoring.runtime.definition import load_definition, shipped_competitions, thaw
from agrieval.scoring.runtime.guard import grade
from agrieval.scoring.runtime.problems import CODES, HostError

REPO = Path(__file__).resolve().parents[3]
RUNTIME = REPO / "scoring" / "runtime"
REFERENCE = REPO / "reference_submissions"
EXPECTED = json.loads((REFERENCE / "expected_scores.json").read_text())
CORPUS = REPO / "tests" / "platforms" / "corpus"
CASES = json.loads((CORPUS / "cases.json").read_text())
SOLUTION = REFERENCE / "plantclef2025" / "solution.csv"


def test_shipped_frozen_definitions_load_and_check_their_fingerprint(tmp_path):
    assert shipped_competitions() == ["agrichallenge2024", "plantclef2024", "plantclef2025", "plantclef2026"]
    assert len(load_definition("plantclef2025").labels) == 7806
    tampered = json.loads((FROZEN_DIR / "plantclef2025.json").read_text())
    tampered["definition"]["limits"]["max_rows"] = 10**9
    (tmp_path / "edited.json").write_text(json.dumps(tampered))
    with pytest.raises(HostError, match="fingerprint"):
        load_definition(tmp_path / "edited.json")
    with pytest.raises(HostError, match="freeze"):
        load_definition(REPO / "scoring" / "competitions" / "plantclef2025.toml")
    with pytest.raises(HostError, match="did you mean 'plantclef2025'"):
        load_definition("PlantCLEF2025")
    assert thaw((FROZEN_DIR / "plantclef2024.json").read_text(), "x").delimiter == ";"


@pytest.mark.parametrize("competition", sorted(EXPECTED))
def test_reference_submissions_score_as_expected(competition):
    for name, expected in sorted(EXPECTED[competition].items()):
        path = next((REFERENCE / competition / "submissions").rglob(f"{name}.csv"))
        result = grade(path, REFERENCE / competition / "solution.csv", competition, reveal_private=True)
        assert result.status == expected["status"], (name, result.errors)
        if expected["status"] == "scored":
            assert result.metrics.public == pytest.approx(expected["public"], abs=1e-12)
            assert result.metrics.private == pytest.approx(expected["private"], abs=1e-12)
        else:
            assert set(expected["codes"]) <= {e.code for e in result.errors}


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_files_get_their_expected_codes_from_the_codabench_program(name, tmp_path):
    meta = CASES[name]
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "in" / "ref" / "solution.csv").write_bytes(SOLUTION.read_bytes())
    (tmp_path / "in" / "res" / name).write_bytes((CORPUS / name).read_bytes())
    (tmp_path / "in" / "res" / "metadata").write_text("worker\n")  # the worker's own file sits next to the upload
    result = codabench.run(tmp_path / "in", tmp_path / "out", competition="plantclef2025")
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    if meta.get("expect"):
        assert result.status == "rejected", (name, result.status)
        assert set(meta["expect"]) <= {e.code for e in result.errors}
        assert written == []
    else:
        assert result.status == "scored" and result.primary == pytest.approx(1.0)
        assert written == ["scores.json", "scores.txt"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(CODES)), st.text(max_size=30), st.integers(1, 10**6)),
                min_size=1, max_size=8))
def test_split_safe_answers_depend_on_the_header_only(problems):
    from agrieval.scoring.runtime.report import ReportProblem, ScoreReport
    from agrieval.scoring.runtime.result import GradeResult

    result = GradeResult(ScoreReport(
        competition="c", status="rejected",
        errors=[ReportProblem(code=c, message=m, line=n, column=1) for c, m, n in problems],
        warnings=[ReportProblem(code="duplicate_label", message="x", line=3)]))
    safe = split_independent(result)
    header = sorted({(c, m) for c, m, _ in problems if c in HEADER_CODES})
    rows = any(c not in HEADER_CODES for c, _, _ in problems)
    assert [(e.code, e.message) for e in safe.errors][:len(header)] == header
    assert [e.code for e in safe.errors[len(header):]] == (["rows_invalid"] if rows else [])
    assert all(e.line is None and e.column is None for e in safe.errors) and safe.warnings == []


def _imports(path: Path) -> set:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.skipif(sys.version_info < (3, 10), reason="sys.stdlib_module_names is Python 3.10+")
def test_the_runtime_imports_only_the_standard_library_numpy_and_itself():
    allowed = set(sys.stdlib_module_names) | {"numpy", "__future__"}
    for path in sorted(RUNTIME.rglob("*.py")):
        extra = _imports(path) - allowed
        # The platform's own packages, where that platform's adapter runs: Kaggle hands the metric DataFrames;
        # the Hugging Face Space image has huggingface_hub (imported lazily, only for a Hub repo id).
        extra -= {"kaggle.py": {"pandas"}, "hf.py": {"huggingface_hub"}}.get(path.name, set())
        assert not extra, f"{path.relative_to(REPO)} imports {sorted(extra)}"


@pytest.mark.parametrize("convention", [("Usage", "Public", "Private"), ("split", "public", "private")])
def test_hf_metric_reads_either_split_convention_under_every_runtime_python(tmp_path, convention):
    """Hugging Face's own metrics read a lowercase `split` column (public/private); Kaggle's solutions have
    `Usage`: the metric takes either, on the oldest interpreter too (dataclasses.replace of the definition)."""
    from agrieval.scoring.runtime._platforms.hf import compute_scores

    column, public, private = convention
    lines = SOLUTION.read_text().splitlines()
    text = "\n".join([lines[0].replace("Usage", column)] + [
        line.replace('"Public"', f'"{public}"').replace('"Private"', f'"{private}"') for line in lines[1:]]) + "\n"
    (tmp_path / "submissions").mkdir()
    (tmp_path / "solution.csv").write_text(text)
    (tmp_path / "submissions" / "t-1.csv").write_bytes(
        (REFERENCE / "plantclef2025" / "submissions" / "partial.csv").read_bytes())
    out = compute_scores("plantclef2025", {"competition_id": str(tmp_path), "team_id": "t", "submission_id": "1"})
    expected = EXPECTED["plantclef2025"]["partial"]
    assert out["public_score"] == pytest.approx(expected["public"], abs=1e-12)
    assert out["private_score"] == pytest.approx(expected["private"], abs=1e-12)
