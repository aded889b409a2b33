"""Cross-Team Validation (CTV) analysis of the AgrI Challenge study: runs -> records -> reports.

``run_set.read_runs`` is the one reader of run folders (``runs``: the agrieval baselines' layout, ``script_runs``:
the public AgrI script's, ``arch_names``: one vocabulary for both); ``records`` flattens them once into the record
table that every analysis queries: ``cross_check`` (the numbers the runs stored), ``cross_team_matrix``,
``paper_figures``, ``selection_rules`` and ``over_seeds`` (with ``spread``), ``on_the_line``. ``report`` writes
the tables, ``plots`` the figures, ``seed_sections`` and ``summary_markdown`` the Markdown
(``agrieval.scoring.text.markdown_html`` turns it into the page). ``results_table`` reads a per-team RESULTS.csv, ``summarize`` computes the paper's statistics from it.
The map: docs/development.md; the reporting rules: docs/ctv_reporting.md. scipy and matplotlib are imported inside
the functions that use them; every reader raises ``agrieval.scoring.analysis_input.InputError`` on a bad file.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["read_results", "ResultsTable", "summarize", "build_report", "read_runs", "RunSet", "read_agrieval_run",
           "toto_matrices", "CrossTeamMatrix"]

_HOME = {"read_results": "results_table", "ResultsTable": "results_table", "summarize": "summarize",
         "build_report": "report", "read_runs": "run_set", "RunSet": "run_set", "read_agrieval_run": "runs",
         "toto_matrices": "cross_team_matrix", "CrossTeamMatrix": "cross_team_matrix"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
