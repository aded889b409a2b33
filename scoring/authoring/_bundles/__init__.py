"""``agrieval bundle PLATFORM``: one writer per grading platform, each producing the one thing its organizer uploads.

Every bundle carries the grading runtime (``scoring/runtime/``, as the
``agrieval_runtime`` package or embedded in one file), the competition frozen
to JSON, the solution where the platform wants it, a ``sample_submission.csv``
built from the solution's ids (``files.sample_submission``), and a README of the
organizer's remaining clicks. The Codabench, CodaLab and EvalAI writers zip a
whole competition (config, pages, logo, programs, data) as the platform's loader
reads it (``docs/platform_checks.md``).
"""

from __future__ import annotations

from agrieval.scoring.authoring._bundles import codabench, codalab, evalai, hf, kaggle

PLATFORMS = {"codabench": codabench.build, "codalab": codalab.build, "evalai": evalai.build, "hf": hf.build,
             "kaggle": kaggle.build}
