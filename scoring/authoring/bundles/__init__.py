"""``agrieval bundle PLATFORM``: one writer per grading platform, each producing exactly what that platform reads.

Every bundle carries the grading runtime (``scoring/runtime/``, as the
``agrieval_runtime`` package or embedded in one file), the competition frozen
to JSON, the solution where the platform wants it, and a README with the
organizer's remaining steps and the platform's config snippet.
"""

from __future__ import annotations

from scoring.authoring.bundles import codabench, codalab, evalai, hf, kaggle

PLATFORMS = {"codabench": codabench.build, "codalab": codalab.build, "evalai": evalai.build, "hf": hf.build,
             "kaggle": kaggle.build}
