"""What a grading run executes, and nothing else: definitions, readers, checks, metrics, report, guard, adapters.

This package runs on CPython 3.8 to 3.13 with numpy (>= 1.21) as its only
third-party import, and imports nothing outside itself (relative imports
only), so that ``agrieval bundle`` can copy it as it is into a scoring program
for any grading platform (``agrieval_runtime/`` there). The one exception is
``platforms/kaggle.py``, which takes the pandas DataFrames Kaggle hands it.

Public (``__all__``, imported on first use): ``grade`` and its ``GradeResult`` (the guarded, never-raising
entry point), ``score_file`` and ``score`` with their ``ScoreReport``, ``validate_file``, ``Grader`` (the
solution loaded once), the definition (``CompetitionDefinition``, ``Limits``, ``SplitSpec``,
``GroupingSpec``, ``load_definition``, ``freeze``, ``thaw``, ``shipped_competitions``), ``Problem``,
``HostError`` and ``CodedError``, the one opening rule for files others wrote (``read_bytes``,
``read_json``, ``UntrustedFileError``), ``LabelSets`` (one label set per row, sparse: what the reader gives and
the metrics take), ``group_ids`` (the transect rules), the atomic writes (``atomic_write``,
``write_text``, ``write_bytes``), and the packages ``metrics`` and ``reading``.

Internal (may change without notice): ``ladder``, ``matching``, ``split_safe``, ``time_limit``,
``unit_scores``, ``whole_writes``, ``lazy_exports``, and ``platforms`` (the adapters that the programs
``agrieval bundle`` writes call: their contract is the bundle, not this module).
"""

from . import lazy_exports as _lazy  # (the module: the function's name would hide it)

__all__ = ["grade", "GradeResult", "score_file", "score", "ScoreReport", "validate_file", "Grader",
           "CompetitionDefinition", "Limits", "SplitSpec", "GroupingSpec", "load_definition", "freeze", "thaw",
           "shipped_competitions", "Problem", "HostError", "CodedError", "read_bytes", "read_json", "UntrustedFileError", "LabelSets", "group_ids",
           "atomic_write", "write_text", "write_bytes", "metrics", "reading"]

_HOME = {"grade": "guard", "GradeResult": "result", "score_file": "scorer", "score": "scorer",
         "ScoreReport": "report", "validate_file": "validate", "Grader": "warm",
         "CompetitionDefinition": "definition", "Limits": "definition", "SplitSpec": "definition",
         "GroupingSpec": "definition", "load_definition": "definition", "freeze": "definition",
         "thaw": "definition", "shipped_competitions": "definition", "Problem": "problems",
         "HostError": "problems", "CodedError": "coded_error", "read_bytes": "untrusted",
         "read_json": "untrusted", "UntrustedFileError": "untrusted", "LabelSets": "labelsets",
         "group_ids": "grouping",
         "atomic_write": "atomic", "write_text": "atomic", "write_bytes": "atomic",
         "metrics": "metrics", "reading": "reading"}
__getattr__, __dir__ = _lazy.lazy_exports(__name__, _HOME)
