"""The readers on real files written by other people's pipelines (tests/fixtures/real/)."""

import pytest

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.reading.submission import read_submission
from agrieval.scoring.runtime.scorer import score_file
from agrieval.scoring.writing.submission import format_submission

PC25 = ["plantclef2025_submission_tiling_quadrat.csv", "plantclef2025_submission_topk5.csv",
        "plantclef2025_submission_vote_k5.csv"]


@pytest.mark.parametrize("name", PC25)
def test_real_2025_submissions_validate(real_files, name):
    sub = read_submission(real_files / name, load_competition("plantclef2025"))
    assert sub.ok, [p.render() for p in sub.errors]
    assert len(sub.ids) == 2105 and len(set(sub.ids)) == 2105
    # these files were written with Windows line ends (csv.writer's default): accepted without a word
    assert [p.code for p in sub.warnings] == []


def test_real_2025_species_counts(real_files):
    d = load_competition("plantclef2025")
    for name, k in zip(PC25, (25, 5, 15)):
        sub = read_submission(real_files / name, d)
        assert set(sub.labels.sizes.tolist()) == {k}


def test_real_2024_submission_validates_as_2024(real_files):
    sub = read_submission(real_files / "plantclef2024_submission_dsgt_run_v1.csv", load_competition("plantclef2024"))
    assert sub.ok and sub.problems == [] and len(sub.ids) == 1695


def test_real_2024_submission_rejected_under_2025_with_delimiter_message(real_files):
    sub = read_submission(real_files / "plantclef2024_submission_dsgt_run_v1.csv", load_competition("plantclef2025"))
    # read on with its own delimiter (issue 33): its renamed id column is named in the same round
    assert [p.code for p in sub.errors] == ["wrong_delimiter", "missing_column"]
    assert "';' (semicolon)" in sub.errors[0].message and "',' (comma)" in sub.errors[0].message
    assert "found 'plot_id' instead" in sub.errors[1].message


def test_shipped_vocabulary_is_the_real_class_mapping(real_files):
    real = [int(x) for x in (real_files / "plantclef_class_mapping.txt").read_text().split()]
    assert len(real) == 7806
    assert load_competition("plantclef2025").labels == frozenset(real)


def test_one_real_submission_scored_against_another_as_pseudo_solution(real_files, tmp_path):
    """A real file plays the solution (Usage added), another the submission; checked against plain sets."""
    import csv

    d = load_competition("plantclef2025")
    truth_rows = list(csv.reader(open(real_files / PC25[0], newline="")))[1:]
    sol = tmp_path / "solution.csv"
    with open(sol, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["quadrat_id", "species_ids", "Usage"])
        for i, (qid, labels) in enumerate(truth_rows):
            w.writerow([qid, labels, "Public" if i % 3 else "Private"])
    report = score_file(real_files / PC25[1], sol, d, reveal_private=True)
    assert report.status == "scored"
    import ast

    pred = {r[0]: set(ast.literal_eval(r[1])) for r in list(csv.reader(open(real_files / PC25[1], newline="")))[1:]}
    f1s = [2 * len(set(ast.literal_eval(l)) & pred[q]) / (len(set(ast.literal_eval(l))) + len(pred[q]))
           for i, (q, l) in enumerate(truth_rows) if i % 3]
    assert report.metrics.public["sample_f1"] == pytest.approx(sum(f1s) / len(f1s), abs=1e-12)


def test_writer_round_trips_real_file_byte_for_byte_except_line_ends(real_files):
    d = load_competition("plantclef2025")
    path = real_files / PC25[1]
    sub = read_submission(path, d)
    # the real file's lists keep the pipeline's order; ours are sorted, so compare parsed content
    again = read_submission(format_submission(sub.ids, sub.labels.to_lists(), d).encode(), d)
    assert again.ok and again.problems == [] and again.ids == sub.ids
    assert again.labels.to_lists() == sub.labels.to_lists()
    d24 = load_competition("plantclef2024")
    p24 = real_files / "plantclef2024_submission_dsgt_run_v1.csv"
    s24 = read_submission(p24, d24)
    assert format_submission(s24.ids, s24.labels.to_lists(), d24).encode() == p24.read_bytes()


def test_solution_reader_accepts_transect_column(tmp_path):
    d = load_competition("plantclef2025")
    f = tmp_path / "sol.csv"
    f.write_text("quadrat_id,species_ids,Usage,transect_id\nA-1-20230101,[1355868],Public,T1\n"
                 "A-1-20240101,[1355869],Public,T1\nB-2-20230101,[],Private,T2\n")
    sol = load_solution(f, d)
    assert sol.groups == ["T1", "T1", "T2"] and sol.group_source == "column 'transect_id'"
