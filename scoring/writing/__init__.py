"""Where and how the kit writes files: the output policy every command goes through (``policy``), paths built
from table cells kept inside their folder (``table_paths``), figures (``figures``) and submissions in a
competition's exact format (``submission``). The file-level mechanism (temporary, fsync, check, rename) is
``agrieval.scoring.runtime.atomic``, which the grading runtime needs too.

Public (``__all__``, imported on first use): ``OutputPlan`` and ``OutputRefused`` (where a command may write),
``inside`` and ``UnsafePath`` (a path from a table cell, kept inside its folder), ``FigureFormat``, and
``write_submission``, ``format_submission``, ``format_labels``. Every module of this package holds public
names; what else they define is internal.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["OutputPlan", "OutputRefused", "inside", "UnsafePath", "FigureFormat", "write_submission",
           "format_submission", "format_labels"]

_HOME = {"OutputPlan": "policy", "OutputRefused": "policy", "inside": "table_paths", "UnsafePath": "table_paths",
         "FigureFormat": "figures", "write_submission": "submission", "format_submission": "submission",
         "format_labels": "submission"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
