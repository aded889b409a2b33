"""Every shortcut of the reader switched off: what is left is its specification.

With ``strict_reading(monkeypatch)`` the ``csv`` module tokenises every file (``csv_spans.field_spans``,
``csv_spans.line_fields``, ``csv_records.records`` and
``quote_blanks.take_out`` decline), ``label_cells.parse_cell`` reads every label cell
(``digit_lists.int_lists`` declines), ``id_cells.check_ids`` checks every id (``CheckedIds.plainly_valid`` is
never sure) and group codes come from the decoded names (``cell_keys.cell_codes`` declines). The differential
tests read each file with and without it and require the same result (``test_same_as_strict_rules.py``).
"""

from agrieval.scoring.runtime.reading import _cell_keys as cell_keys
from agrieval.scoring.runtime.reading import _csv_records as csv_records
from agrieval.scoring.runtime.reading import _csv_spans as csv_spans
from agrieval.scoring.runtime.reading import _digit_lists as digit_lists
from agrieval.scoring.runtime.reading import _id_cells as id_cells
from agrieval.scoring.runtime.reading import _quote_blanks as quote_blanks


def strict_reading(monkeypatch) -> None:
    monkeypatch.setattr(csv_spans, "field_spans", lambda *args, **kwargs: None)
    monkeypatch.setattr(csv_spans, "line_fields", lambda *args, **kwargs: None)
    monkeypatch.setattr(csv_records, "records", lambda *args, **kwargs: None)
    monkeypatch.setattr(quote_blanks, "take_out", lambda *args, **kwargs: None)
    monkeypatch.setattr(digit_lists, "int_lists", lambda *args, **kwargs: None)
    monkeypatch.setattr(id_cells.CheckedIds, "plainly_valid", lambda self: False)
    monkeypatch.setattr(cell_keys, "cell_codes", lambda *args, **kwargs: None)
