"""Cross-Team Validation (CTV) analysis of the AgrI Challenge study.

``results_table`` reads the per-team RESULTS.csv, ``summarize`` computes the
paper's statistics from it (``permutation_pvalues`` for few teams),
``summary_markdown`` renders the paper's tables; ``runs`` reads agrieval run
folders and ``script_runs`` the public AgrI script's output trees, with
``arch_names`` putting both in one vocabulary; ``cross_check`` compares every
number a run stored with the one recomputed from its predictions
(``weighted_prf`` for the script's precision/recall/F1); ``cross_team_matrix``
builds the TOTO matrix, ``paper_figures`` the numbers of the paper's other
figures, ``selection_rules`` the named model-selection rules over a run's history,
``over_seeds`` the aggregates with intervals over replicate seeds (worst team and class among them),
``on_the_line`` the accuracy-on-the-line fit, ``seed_sections`` their report sections, ``plots``
draws them and ``report`` writes report.md / report.html (reporting rules: docs/ctv_reporting.md).
scipy and matplotlib are imported inside the functions that use them.
"""
