"""``agrieval bundle``: write a ready scoring program for a grading platform."""

from __future__ import annotations

from pathlib import Path

import click

from scoring.cli.common import EXIT_OK, competition_option, load_definition, run_guarded


@click.group()
def bundle() -> None:
    """Write a ready scoring program for a grading platform."""


@bundle.command()
@competition_option
@click.option("--solution", "-s", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Ground truth CSV; copied to reference_data/solution.csv after it is validated.")
@click.option("--split", type=click.Choice(["public", "private"]), default="public", show_default=True,
              help="Split of the solution this phase's leaderboard shows.")
@click.option("--platform", type=click.Choice(["codabench", "codalab"]), default="codabench", show_default=True,
              help="codabench: metadata.yaml with /app paths; codalab: metadata with $program/$input/$output.")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
def codabench(competition: str, solution: Path, split: str, platform: str, out_dir: Path) -> None:
    """Write OUT_DIR/scoring_program and OUT_DIR/reference_data for a Codabench/CodaLab competition bundle.

    OUT_DIR must be new or empty. Exit 0 written, 2 usage error, 3 bad solution or definition.
    """

    if out_dir.exists() and any(out_dir.iterdir()):
        raise click.UsageError(f"{out_dir} is not empty; choose a new folder (nothing was written)")

    def body() -> int:
        from scoring.hooks.codabench_bundle import write_bundle
        from scoring.problems import HostError
        from scoring.solution import load_solution

        definition = load_definition(competition)
        sol = load_solution(solution, definition)
        if not (sol.split == split).any():
            raise HostError("solution_invalid", f"{solution}: no row of the {split} split "
                            f"(column {definition.split.column!r}); this phase would have nothing to score")
        made = write_bundle(out_dir, definition, solution, split=split, platform=platform)
        n_code = sum(1 for f in made.files if "scoring" in f.relative_to(made.root).parts[1:2])
        click.echo(f"wrote {made.root}/scoring_program ({len(made.files) - 2} files, {n_code} of them the scoring "
                   f"package) and {made.root}/reference_data/solution.csv ({len(sol.ids):,} rows)")
        click.echo(f"leaderboard keys: {', '.join(made.leaderboard_keys)}")
        click.echo(f"next: read {made.root}/README.md, zip both folders and reference them in competition.yaml")
        return EXIT_OK

    run_guarded(competition, False, body)
