"""Reader properties of their own: the writer's files read back as written (the values drawn are the oracle),
odd but valid spacing read as the values written, the same bytes the same verdict, and the line-end warning as a
look at every byte gives it (``bytes_checks.report_line_endings``)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.reading.submission import read_submission
from agrieval.scoring.writing.submission import format_submission

ids = st.lists(st.from_regex(r"[A-Z]{2,4}-[0-9]{1,3}-20[0-9]{6}", fullmatch=True), min_size=1, max_size=20, unique=True)
labels = st.lists(st.integers(1, 10**17), max_size=8)


def definition(syntax: str, delimiter: str = ",") -> CompetitionDefinition:
    return CompetitionDefinition(name="t", task="multilabel", id_column="qid", prediction_column="species",
                                 delimiter=delimiter, list_syntax=syntax, primary_metric="sample_f1",
                                 id_pattern="[A-Za-z0-9][A-Za-z0-9_.-]*")


@settings(max_examples=150, deadline=None)
@given(ids.flatmap(lambda i: st.tuples(st.just(i), st.lists(labels, min_size=len(i), max_size=len(i)))),
       st.sampled_from(["python-list", "space-separated"]), st.sampled_from([",", ";"]))
def test_writer_reader_round_trip(data, syntax, delimiter):
    qids, lists = data
    d = definition(syntax, delimiter)
    sub = read_submission(format_submission(qids, lists, d).encode(), d)
    assert sub.ok, [p.render() for p in sub.problems]
    assert sub.ids == qids
    assert sub.labels.to_lists() == [sorted(set(x)) for x in lists]


@settings(max_examples=100, deadline=None)
@given(st.lists(labels, min_size=1, max_size=10), st.sampled_from(["[{}]", "[ {} ]", "[{} ]"]),
       st.sampled_from([", ", ",", " , "]))
def test_unusual_but_valid_spacing_reads_the_same(lists, wrap, sep):
    """Odd spacing takes the slow path; it must give exactly what the fast path gives."""
    d = definition("python-list")
    body = "qid,species\n" + "".join(
        f'Q-{i}-20240101,"{wrap.format(sep.join(map(str, x))) if x else "[]"}"\n' for i, x in enumerate(lists))
    sub = read_submission(body.encode(), d)
    assert sub.ok, [p.render() for p in sub.problems]
    assert sub.labels.to_lists() == [sorted(set(x)) for x in lists]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash_and_are_deterministic(data):
    d = definition("python-list")
    a = read_submission(b"qid,species\n" + data, d)
    b = read_submission(b"qid,species\n" + data, d)
    assert [p.as_dict() for p in a.problems] == [p.as_dict() for p in b.problems]
    assert all(p.code and p.message for p in a.problems)


def test_overflowing_and_leading_zero_labels_are_caught():
    d = definition("python-list")
    sub = read_submission(b'qid,species\nQ-1-20240101,"[99999999999999999999]"\nQ-2-20240101,"[007]"\n', d)
    assert [p.code for p in sub.errors] == ["label_too_large", "leading_zero_label"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=8), st.booleans())
def test_line_endings_reported_from_the_tokenizer_as_from_the_bytes(ends, final):
    """CRLF and mixed line ends: the tokenizer's count gives the warning a look at every byte gives."""
    from agrieval.scoring.runtime.problems import ProblemLog
    from agrieval.scoring.runtime.reading import _tokenize as tokenize
    from agrieval.scoring.runtime.reading._bytes_checks import report_line_endings

    lines = ["quadrat_id,species_ids"] + [f"q{i},[{i + 1}]" for i in range(len(ends))]
    data = "".join(line + end for line, end in zip(lines, ["\n"] + ends)).encode()
    if not final:
        data = data.rstrip(b"\r\n")
    log = ProblemLog()
    tab = tokenize.parse(data, delimiter=",", required=["quadrat_id", "species_ids"], max_rows=100,
                         max_cell_chars=100, log=log)
    assert tab.cells.raw is data  # every kind of line end: a numpy tokenizer, spans into the file itself
    by_bytes = ProblemLog()
    report_line_endings(data, by_bytes)
    line_warnings = [(p.code, p.message) for p in log.finish() if p.code.endswith("line_endings")]
    assert line_warnings == [(p.code, p.message) for p in by_bytes.finish()]
