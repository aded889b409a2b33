"""What a grading run executes, and nothing else: definitions, readers, checks, metrics, report, guard, adapters.

This package runs on CPython 3.8 to 3.13 with numpy (>= 1.21) as its only
third-party import, and imports nothing outside itself (relative imports
only), so that ``agrieval bundle`` can copy it as it is into a scoring program
for any grading platform (``agrieval_runtime/`` there). The one exception is
``platforms/kaggle.py``, which takes the pandas DataFrames Kaggle hands it.

Layout: ``definition.py`` (frozen dataclasses), ``reading/`` (uploads, CSV,
ids, labels, solution and submission), ``matching.py`` and ``metrics/``
(checks and scores), ``scorer.py`` and ``report.py``, ``guard.py`` (limits,
time limit, participant-safe answers), ``platforms/`` (one adapter per grading
platform).
"""
