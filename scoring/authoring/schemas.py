"""JSON Schemas of what people read and write: the score report and the competition definition.

pydantic reads the runtime's dataclass annotations; the files in ``docs/`` are
these schemas, kept current by a test (``python -m agrieval.scoring.authoring.schemas``
rewrites them).
"""

from __future__ import annotations

import json
from pathlib import Path

from agrieval.scoring.runtime.definition import NAME_MAX_CHARS, NAME_PATTERN, CompetitionDefinition
from agrieval.scoring.runtime.report import ScoreReport

# Imported inside functions, so that importing this module loads only what it needs: pydantic (heavy or optional).

_DOCS = Path(__file__).resolve().parents[2] / "docs"


def _schema(cls) -> dict:
    from pydantic import TypeAdapter

    return TypeAdapter(cls).json_schema()


def report_schema() -> dict:
    """Schema of ``agrieval score --json`` (``metrics.private`` only when revealed)."""
    return _schema(ScoreReport)


def definition_schema() -> dict:
    """Schema of a competition definition (the keys a TOML file may hold)."""
    schema = _schema(CompetitionDefinition)
    schema["properties"].pop("source_path", None)
    # The name rule is the runtime's (check_name, run by every loader); the schema states it for editors.
    schema["properties"]["name"].update(pattern=f"^{NAME_PATTERN}$", maxLength=NAME_MAX_CHARS, minLength=1)
    return schema


_SCHEMAS = {"report.schema.json": report_schema, "definition.schema.json": definition_schema}


def text(name: str) -> str:
    return json.dumps(_SCHEMAS[name](), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    for name in _SCHEMAS:
        (_DOCS / name).write_text(text(name), encoding="utf-8")
        print(f"wrote docs/{name}")
