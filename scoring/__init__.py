"""agrieval's scoring side: the grading runtime, the organizers' authoring tools, the analyses around a
competition (leaderboards, the leaderboard audit, CTV reports) and the ``agrieval`` command line.

``runtime`` is what a grading run executes (Python 3.8+, numpy only, relative imports only: ``agrieval bundle``
copies it into every platform's scoring program); everything else here prepares it or reads what it produced.
This package never imports ``data_tools`` or ``baselines``, nor torch or PIL. ``docs/scoring_api.md`` shows
every public name of its packages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.scoring import analysis_input, audit, authoring, cli, ctv, leaderboard, runtime, text, writing

__version__ = "0.1.0"

__all__ = ["__version__", "runtime", "authoring", "writing", "leaderboard", "ctv", "audit", "analysis_input",
           "text", "cli"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
