"""A submission holding the solution's ids, row for row, reuses what is known of them (``CheckedIds``): it is
read exactly as without the solution's ids, whether or not one of them is the id column's name (asked of the
solution once, ``CheckedIds.holds``: a repeated header line would then have a problem to name)."""

from __future__ import annotations

import pytest

from agrieval.scoring.runtime.definition import load_definition
from agrieval.scoring.runtime.reading.solution import load_solution
from agrieval.scoring.runtime.reading.submission import read_submission


def _view(sub) -> tuple:
    return (sub.ids, sub.lines.tolist(), sub.labels.to_lists() if sub.labels is not None else None,
            [(p.code, p.line, p.column, p.message) for p in sub.problems])


@pytest.mark.parametrize("name_as_id", [False, True])
@pytest.mark.parametrize("second_header", [False, True])
def test_the_solutions_ids_read_as_without_them(name_as_id, second_header):
    definition = load_definition("plantclef2025")
    ids = [f"CBN-PdlC-A{k}-20130807" for k in range(1, 9)] + (["quadrat_id"] if name_as_id else [])
    species = sorted(int(v) for v in definition.labels)[:len(ids)]
    solution = load_solution(("quadrat_id,species_ids,Usage\n" + "".join(
        f'{i},"[{s}]",{"Public" if k % 2 else "Private"}\n' for k, (i, s) in enumerate(zip(ids, species)))).encode(),
        definition)
    cells = [f'{i},"[{s}]"' for i, s in zip(ids, species)]
    if second_header and name_as_id:
        cells[-1] = "quadrat_id,species_ids"  # the header line again where that id's row is
    upload = ("quadrat_id,species_ids\n" + "\n".join(cells) + "\n").encode()
    for _ in range(2):  # (the second time, the solution's answer is the one kept)
        reused = read_submission(upload, definition, checked_ids=solution.checked_ids)
        assert _view(reused) == _view(read_submission(upload, definition))
    assert reused.ok == (not (second_header and name_as_id))
    assert (reused.id_order is not None and reused.id_order[0] is solution.checked_ids) == (not name_as_id)
