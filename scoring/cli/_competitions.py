"""``agrieval competitions [show NAME]``."""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.scoring.authoring.definitions import (
    TOML_DIR,
    _toml_module,
    available_competitions,
    load_competition,
    load_toml,
)
from agrieval.scoring.cli._options import load_definition as competition
from agrieval.scoring.cli.group import ContractGroup, document
from agrieval.scoring.runtime.atomic import write_text
from agrieval.scoring.runtime.definition import freeze as freeze_text
from agrieval.scoring.text.terminal import cell, one_line
from agrieval.scoring.writing.policy import OutputPlan


@click.group(cls=ContractGroup, invoke_without_command=True)
@click.pass_context
def competitions(ctx: click.Context) -> None:
    """List the shipped competition definitions."""
    if ctx.invoked_subcommand is None:
        for name in available_competitions():
            d = load_competition(name)
            click.echo(f"{cell(name, 20)}{cell(d.task, 12)}primary={cell(d.primary_metric, 18)}{one_line(d.title)}")


@competitions.command()
@click.argument("name")
def show(name: str) -> None:
    """Print one definition (the TOML as shipped, or your file)."""
    d = competition(name)  # an unknown name: exit 2 with a suggestion; a bad definition: exit 3
    # A shipped competition is shown as its TOML source, not as the frozen JSON the runtime reads.
    source = TOML_DIR / f"{name}.toml" if name in available_competitions() else Path(d.source_path)
    click.echo(f"# {source}")
    text = source.read_text(encoding="utf-8")
    vocabulary = _vocabulary_path(source, text)
    if vocabulary is not None and d.labels is not None:
        # where a participant finds the integer ids (a validate message about species names points here)
        click.echo(f"# vocabulary: {vocabulary} ({len(d.labels):,} labels, one per line; check one with "
                   f"grep -x LABEL {vocabulary})")
    click.echo(text)


def _vocabulary_path(source: Path, text: str) -> Path | None:
    """The vocabulary file a TOML definition names, resolved next to it (None without one)."""
    toml = _toml_module()
    try:
        name = toml.loads(text).get("vocabulary_file")
    except toml.TOMLDecodeError:
        return None
    return (source.parent / name) if isinstance(name, str) else None


@competitions.command()
@click.argument("toml_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The frozen definition to write (.json); refused if it exists, unless --overwrite.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --output (never TOML_FILE itself).")
def freeze(toml_file, output, overwrite) -> None:
    """Validate a TOML definition and write it frozen (JSON, vocabulary inlined) for the grading runtime.

    \b
    Example:
      agrieval competitions freeze my_competition.toml -o my_competition.json

    The runtime (Python 3.8+, numpy only) reads frozen definitions; bundles carry one. Exit codes: 0 written,
    2 usage error (output exists without --overwrite, or is TOML_FILE), 3 invalid definition.
    """
    OutputPlan(overwrite=overwrite, inputs=[toml_file]).claim(output, what="frozen definition")
    definition = load_toml(toml_file)  # validated; a HostError (invalid) is exit 3
    write_text(output, freeze_text(definition), overwrite=overwrite)
    n = len(definition.vocabulary) if definition.vocabulary is not None else 0
    click.echo(f"wrote {output}: {definition.name} ({definition.task}, {n:,} vocabulary labels inlined)")


document(competitions, {
    "": "agrieval competitions",
    "show": "agrieval competitions show plantclef2025",
})
