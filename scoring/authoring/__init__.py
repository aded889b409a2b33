"""For organizers and competition authors: definitions validated from TOML, JSON Schemas, platform bundles.

Nothing here runs during a grading: it prepares what the runtime
(``scoring/runtime/``) executes.

Public (``__all__``, imported on first use): ``load_competition`` (a shipped name, a TOML or a frozen JSON
file -> a ``CompetitionDefinition``), ``available_competitions``, ``load_toml``, the JSON Schemas
``definition_schema`` and ``report_schema``, and ``order_warnings`` (what the solution's row order gives away).

Internal (may change without notice): ``bundles`` (``agrieval bundle PLATFORM`` is the contract),
``public_precision``, ``vendoring``.
"""

from agrieval.scoring.runtime.lazy_exports import lazy_exports

__all__ = ["load_competition", "available_competitions", "load_toml", "definition_schema", "report_schema",
           "order_warnings"]

_HOME = {"load_competition": "definitions", "available_competitions": "definitions", "load_toml": "definitions",
         "definition_schema": "schemas", "report_schema": "schemas", "order_warnings": "solution_order"}
__getattr__, __dir__ = lazy_exports(__name__, _HOME)
del lazy_exports  # (the package offers only its own names)
