"""agrieval's scoring side, in five parts:

* ``runtime/``: what a grading run executes, in one bounded place (definitions as frozen dataclasses, readers,
  checks, metrics, the report, the guard, one adapter per grading platform). Python 3.8+, numpy only, relative
  imports only: ``agrieval bundle`` copies it as it is into every platform's scoring program.
* ``authoring/``: for organizers: TOML definitions validated, JSON Schemas (pydantic), the bundle writers.
* ``cli/``: the ``agrieval`` command (click), loaded lazily so that ``agrieval score`` starts fast.
* ``writing/``: where and how the kit writes files (the output policy, paths built from table cells, figures,
  submissions in a competition's format).
* analyses around it: ``leaderboard/`` (with the rank-agreement statistics), ``ctv/`` (scipy and matplotlib
  imported where used), ``audit/`` (which teams' public scores selection cannot explain), all three reading
  their input files through ``analysis_input/``; ``text/`` escapes text from inputs for the format it lands in.

Public (``__all__``): ``__version__`` and the packages ``runtime``, ``authoring``, ``writing``, ``leaderboard``,
``ctv``, ``audit``, ``analysis_input`` and ``text``, each with its own ``__all__`` (``docs/scoring_api.md`` lists them all).
Internal: ``cli`` (the ``agrieval`` command line is the contract, not its Python modules) and ``server`` (the
own server's log, limits and selection, used through ``agrieval grade --log``, ``select`` and ``leaderboard
--per-team``).

This package never imports ``data_tools`` or ``baselines``, nor torch or PIL.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__version__ = "0.1.0"

__all__ = ["__version__", "runtime", "authoring", "writing", "leaderboard", "ctv", "audit", "analysis_input", "text"]

_HOME = {name: name for name in __all__[1:]}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
