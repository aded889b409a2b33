"""Cross-Team Validation (CTV) analysis of the AgrI Challenge study.

``results_table`` reads the per-team RESULTS.csv, ``summarize`` computes the
paper's statistics from it, ``per_team_markdown`` renders the paper's tables,
``runs`` reads run folders (agrieval baselines and the public AgrI script),
``cross_team_matrix`` builds the TOTO matrix, ``plots`` draws the figures and
``report`` writes report.md / report.html. scipy and matplotlib are imported
inside the functions that use them.
"""
