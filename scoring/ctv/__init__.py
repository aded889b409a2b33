"""Cross-Team Validation (CTV) analysis of the AgrI Challenge study.

``results_table`` reads the per-team RESULTS.csv, ``summarize`` computes the
paper's statistics from it (``permutation_pvalues`` for few teams),
``summary_markdown`` renders the paper's tables; ``runs`` reads agrieval run
folders and ``script_runs`` the public AgrI script's output trees, with
``arch_names`` putting both in one vocabulary; ``cross_check`` compares every
number a run stored with the one recomputed from its predictions
(``weighted_prf`` for the script's precision/recall/F1); ``cross_team_matrix``
builds the TOTO matrix, ``paper_figures`` the numbers of the paper's other
figures, ``plots`` draws them and ``report`` writes report.md / report.html.
scipy and matplotlib are imported inside the functions that use them.
"""
