"""Cross-Team Validation (CTV) analysis of the AgrI Challenge study.

``results_table`` reads the per-team RESULTS.csv, ``summarize`` computes the
paper's statistics from it,
``summary_markdown`` renders the paper's tables; ``runs`` reads agrieval run
folders and ``script_runs`` the public AgrI script's output trees, with
``arch_names`` putting both in one vocabulary; ``records`` flattens the runs once into the one record table
the analyses query; ``cross_check`` compares every
number a run stored with the one recomputed from its predictions
(``weighted_prf`` for the script's precision/recall/F1); ``cross_team_matrix``
builds the TOTO matrix, ``paper_figures`` the numbers of the paper's other
figures, ``selection_rules`` the named model-selection rules over a run's rows (``run_set`` also reads
the held-out runs of leave-one-team-out selection, ``ctv report --lodo``),
``over_seeds`` the aggregates with intervals over replicate seeds (worst team and class among them),
``spread`` the one mean ± spread over seeds (se, std, ci95) every table and figure shows,
``on_the_line`` the accuracy-on-the-line fit, ``seed_sections`` their report sections, ``plots``
draws them and ``report`` writes report.md / report.html (reporting rules: docs/ctv_reporting.md).
scipy and matplotlib are imported inside the functions that use them.

Public (``__all__``, imported on first use): ``read_results`` and ``ResultsTable`` (a RESULTS.csv), the
module ``summarize`` (``summarize.summarize``: the paper's statistics), ``build_report``, ``read_runs`` and
``RunSet`` (agrieval run folders), ``read_agrieval_run``, ``toto_matrices`` and ``CrossTeamMatrix``. Every reader here raises
``agrieval.scoring.analysis_input.InputError`` on a bad input file.

Internal (may change without notice): ``arch_colours``, ``arch_names``, ``cross_check``,
``markdown_html``, ``on_the_line``, ``over_seeds``, ``paper_figures``,
``plots``, ``records``, ``script_runs``, ``seed_sections``, ``selection_rules``, ``spread``, ``summary_markdown``,
``weighted_prf``.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["read_results", "ResultsTable", "summarize", "build_report", "read_runs", "RunSet", "read_agrieval_run",
           "toto_matrices", "CrossTeamMatrix"]

_HOME = {"read_results": "results_table", "ResultsTable": "results_table", "summarize": "summarize",
         "build_report": "report", "read_runs": "run_set", "RunSet": "run_set", "read_agrieval_run": "runs",
         "toto_matrices": "cross_team_matrix", "CrossTeamMatrix": "cross_team_matrix"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
