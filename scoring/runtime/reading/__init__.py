"""Reading what graders are handed: uploads (zip, folder), CSV tables, ids, label cells, solution, submission.

Public (``__all__``, imported on first use): ``read_submission`` and its ``Submission``, ``load_solution``
and its ``Solution``, and ``read_id_list`` and ``IdListError`` (a sample submission or a list of ids). The label sets the
reader gives are ``agrieval.scoring.runtime.LabelSets``.

Internal (may change without notice), the reader's layers in the order they run: ``uploads``,
``bytes_checks``, ``tokenize`` (with ``csv_spans``, ``quote_blanks`` and ``quote_trouble``), ``id_lengths``, ``digit_lists``,
``id_cells``, ``label_cells``, ``cell_keys``.
"""

from ..lazy_exports import lazy_exports

__all__ = ["read_submission", "Submission", "load_solution", "Solution", "read_id_list", "IdListError"]

_HOME = {"read_submission": "submission", "Submission": "submission", "load_solution": "solution",
         "Solution": "solution", "read_id_list": "id_list", "IdListError": "id_list"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
