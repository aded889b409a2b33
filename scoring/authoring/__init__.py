"""For organizers and competition authors: definitions validated from TOML, JSON Schemas, platform bundles.

Nothing here runs during a grading: it prepares what the runtime (``scoring/runtime/``) executes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrieval.scoring.runtime._lazy_exports import lazy_exports

if TYPE_CHECKING:  # the names are imported on first use (lazy_exports); these lines say from where
    from agrieval.scoring.authoring.definitions import available_competitions, load_competition, load_toml
    from agrieval.scoring.authoring.schemas import definition_schema, report_schema
    from agrieval.scoring.authoring.solution_order import order_warnings, publication_order

__all__ = ["load_competition", "available_competitions", "load_toml", "definition_schema", "report_schema",
           "order_warnings", "publication_order"]

__getattr__, __dir__ = lazy_exports(__name__)
del lazy_exports  # (the package offers only its own names)
