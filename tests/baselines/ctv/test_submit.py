"""``agrieval baselines ctv submit``: a trained run becomes the AgrI Challenge's submission, checked by the reader
that grades it; the demo ends with one scored against its own solution."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("agrieval.data_tools.splits")

from agrieval.baselines.ctv._cli import ctv  # noqa: E402


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from agrieval.baselines.ctv.demo import run_demo

    out = tmp_path_factory.mktemp("ctv-demo")
    lines: list[str] = []
    assert run_demo(out, teams=3, per_class=3, epochs=1, threads=1, log=lines.append) == 0, "\n".join(lines)
    return out, lines


def _rows(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_demo_ends_with_a_scored_submission(demo):
    from agrieval.scoring.runtime.definition import load_definition
    from agrieval.scoring.runtime.scorer import score_file

    out, lines = demo
    folder = out / "submission"
    sub, sol = _rows(folder / "submission.csv"), _rows(folder / "solution.csv")
    assert [r["image_id"] for r in sub] == [r["image_id"] for r in sol]
    assert set(sol[0]) == {"image_id", "label", "team", "Usage"}
    assert {r["team"] for r in sol} == {"team01"}  # the held-out team of LOTO fold team01
    # the printed accuracy is the one an independent count over the two files gives
    definition = load_definition("agrichallenge2024")
    report = score_file(folder / "submission.csv", folder / "solution.csv", definition, reveal_private=True)
    public = [r for r in sol if r["Usage"] == "Public"]
    by_id = {r["image_id"]: r["label"] for r in sub}
    expected = sum(by_id[r["image_id"]] == r["label"] for r in public) / len(public)
    assert report.metrics.public["accuracy"] == pytest.approx(expected)
    said = [line for line in lines if line.startswith("submission: ")]
    assert said and f"public {expected:.4f}" in said[0]
    assert lines[-1].startswith("next: your own run's submission: agrieval baselines ctv submit ")
    # the demo says which flags beyond the preset it sets
    assert any(line.startswith("runs: preset demo with --deterministic --eval-test-every-epoch") for line in lines)


def test_submission_equals_the_runs_own_test_predictions(demo, tmp_path):
    """The same model, the same eval transform: the run's predictions.csv test rows are the submission's rows."""
    out, _ = demo
    run = out / "runs" / "toto" / "tiny_cnn" / "team02"
    target = tmp_path / "submission.csv"
    result = CliRunner().invoke(ctv, ["submit", str(run), "--images", str(out / "clean"), "--ids",
                                      str(out / "splits" / "toto" / "team02.csv"), "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert "validated as agrichallenge2024" in result.output
    predicted = {r["image_id"]: r["predicted_label"] for r in _rows(run / "predictions.csv")}
    written = {r["image_id"]: r["label"] for r in _rows(target)}
    assert written == predicted  # train, val and test rows of the manifest: each predicted as the run did


def test_a_folder_of_images_gives_ids_from_paths(demo, tmp_path):
    out, _ = demo
    images = tmp_path / "test"
    shutil.copytree(out / "clean" / "team03", images)
    (images / ".hidden.jpg").write_bytes(b"not read")
    (images / "notes.txt").write_text("not an image")
    target = tmp_path / "sub.csv"
    run = out / "runs" / "loto" / "tiny_cnn" / "team03"
    result = CliRunner().invoke(ctv, ["submit", str(run), "--images", str(images), "-o", str(target)])
    assert result.exit_code == 0, result.output
    expected = sorted(p.relative_to(images).with_suffix("").as_posix() for p in images.rglob("*.jpg")
                      if not p.name.startswith("."))
    assert [r["image_id"] for r in _rows(target)] == expected
    # an existing output is never replaced without --overwrite (usage error, the file untouched)
    before = target.read_bytes()
    again = CliRunner().invoke(ctv, ["submit", str(run), "--images", str(images), "-o", str(target)])
    assert again.exit_code == 2 and "output_exists" in again.output and target.read_bytes() == before


def test_refusals_name_the_file(demo, tmp_path):
    out, _ = demo
    run = out / "runs" / "loto" / "tiny_cnn" / "team01"
    runner = CliRunner()
    missing = runner.invoke(ctv, ["submit", str(tmp_path), "--images", str(out / "clean"), "-o",
                                  str(tmp_path / "a.csv")])
    assert missing.exit_code == 2 and "error [run_missing]" in missing.output
    ids = tmp_path / "ids.csv"
    ids.write_text("image_id\nteam01/nope/none\n")
    absent = runner.invoke(ctv, ["submit", str(run), "--images", str(out / "clean"), "--ids", str(ids), "-o",
                                 str(tmp_path / "b.csv")])
    assert absent.exit_code == 1 and "error [image_missing]" in absent.output and f"{ids}:2" in absent.output
    ids.write_text("image_id,path\nx,../../etc/passwd\n")
    escape = runner.invoke(ctv, ["submit", str(run), "--images", str(out / "clean"), "--ids", str(ids), "-o",
                                 str(tmp_path / "c.csv")])
    assert escape.exit_code == 1 and "error [unsafe_path]" in escape.output
    images = tmp_path / "bad"
    images.mkdir()
    (images / "broken.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    broken = runner.invoke(ctv, ["submit", str(run), "--images", str(images), "-o", str(tmp_path / "d.csv")])
    assert broken.exit_code == 1 and "error [image_unreadable]" in broken.output
    assert str(images / "broken.jpg") in broken.output
    assert not any(tmp_path.glob("[abcd].csv"))  # nothing written for a refused run


def test_a_run_class_outside_the_vocabulary_is_refused(demo, tmp_path):
    out, _ = demo
    toml = tmp_path / "other.toml"
    shipped = Path(__file__).resolve().parents[3] / "scoring" / "competitions" / "agrichallenge2024.toml"
    toml.write_text(shipped.read_text().replace('name = "agrichallenge2024"', 'name = "orchard"')
                    .replace('"tipu"', '"olivier"'))
    run = out / "runs" / "loto" / "tiny_cnn" / "team01"
    result = CliRunner().invoke(ctv, ["submit", str(run), "--images", str(out / "clean" / "team01"), "-c",
                                      str(toml), "-o", str(tmp_path / "s.csv")])
    assert result.exit_code == 1 and "error [classes_mismatch]" in result.output and "'tipu'" in result.output


def test_a_device_that_is_not_here_is_a_usage_error(demo, tmp_path, monkeypatch):
    import torch

    out, _ = demo
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    target = tmp_path / "sub.csv"
    run = out / "runs" / "loto" / "tiny_cnn" / "team03"
    result = CliRunner().invoke(ctv, ["submit", str(run), "--images", str(out / "clean" / "team03"), "-o",
                                      str(target), "--device", "cuda"])
    assert result.exit_code == 2, result.output
    assert "device_unavailable" in result.output and not target.exists()
