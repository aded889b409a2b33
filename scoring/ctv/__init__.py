"""Cross-Team Validation (CTV) analysis of the AgrI Challenge study: the per-team RESULTS.csv, agrieval run
folders and the public AgrI script's output trees read once into one record table, the paper's statistics,
cross-team matrices, selection rules and reports (reporting rules: docs/ctv_reporting.md). Every reader here
raises ``agrieval.scoring.analysis_input.InputError`` on a bad input file; scipy and matplotlib are imported
inside the functions that use them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.scoring.ctv import summarize
    from agrieval.scoring.ctv.cross_team_matrix import CrossTeamMatrix, toto_matrices
    from agrieval.scoring.ctv.report import build_report
    from agrieval.scoring.ctv.results_table import ResultsTable, read_results
    from agrieval.scoring.ctv.run_set import RunSet, read_runs
    from agrieval.scoring.ctv.runs import read_agrieval_run

__all__ = ["read_results", "ResultsTable", "summarize", "build_report", "read_runs", "RunSet", "read_agrieval_run",
           "toto_matrices", "CrossTeamMatrix"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
