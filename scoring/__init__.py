"""agrieval's scoring side, in five parts:

* ``runtime/``: what a grading run executes, in one bounded place (definitions as frozen dataclasses, readers,
  checks, metrics, the report, the guard, one adapter per grading platform). Python 3.8+, numpy only, relative
  imports only: ``agrieval bundle`` copies it as it is into every platform's scoring program.
* ``authoring/``: for organizers: TOML definitions validated, JSON Schemas (pydantic), the bundle writers.
* ``cli/``: the ``agrieval`` command (click), loaded lazily so that ``agrieval score`` starts fast.
* ``writing/``: where and how the kit writes files (the output policy, paths built from table cells, figures,
  submissions in a competition's format).
* analyses around it: ``leaderboard/`` (with the rank-agreement statistics), ``ctv/`` (scipy and matplotlib
  imported where used).

This package never imports ``data_tools`` or ``baselines``, nor torch or PIL.
"""

__version__ = "0.1.0"
