"""``agrieval bundle PLATFORM``: write exactly what one grading platform consumes, ready to upload."""

from __future__ import annotations

from pathlib import Path

import click

from scoring.cli.contract import CommandError
from scoring.cli.common import EXIT_OK, check_solution_pair, competition_option, load_definition, run_guarded

PLATFORM_NAMES = ("codabench", "codalab", "evalai", "hf", "kaggle")


@click.command()
@click.argument("platform", type=click.Choice(PLATFORM_NAMES))
@competition_option
@click.option("--solution", "-s", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Ground truth CSV; checked (it must score perfectly against itself) and copied into the bundle.")
@click.option("--split", type=click.Choice(["public", "private"]), default="public", show_default=True,
              help="codabench/codalab: the split this phase's leaderboard shows (one bundle per phase).")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
def bundle(platform: str, competition: str, solution: Path, split: str, out_dir: Path) -> None:
    """Write OUT_DIR: the scoring program PLATFORM runs, the frozen definition, the solution and a README.

    \b
    codabench  scoring_program/ + reference_data/ + competition.yaml (docker_image, leaderboard columns)
    codalab    the same program (writes scores.txt too) + the legacy leaderboard YAML
    evalai     evaluation_script/ package + annotations/ + challenge_config.yaml
    hf         metric.py (runtime embedded) + solution.csv + conf.json
    kaggle     agrieval_metric.py (runtime embedded; split-independent messages) + solution.csv

    \b
    Example:
      agrieval bundle codabench -c plantclef2025 -s reference_submissions/plantclef2025/solution.csv cb/

    OUT_DIR must be new or empty. Exit codes: 0 written, 2 usage error (OUT_DIR not empty), 3 bad solution or
    definition (nothing written).
    """
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        # No --overwrite here: a file left from an older bundle would ship with the new one.
        raise CommandError("output_exists", f"{out_dir} exists and is not an empty folder; choose a new folder "
                                            "(nothing was written)", file=str(out_dir))

    def body() -> int:
        from scoring.authoring.bundles import PLATFORMS
        from scoring.authoring.bundles.files import check_inputs, write

        definition = load_definition(competition)
        check_solution_pair(solution, definition)
        needs = (split,) if platform in ("codabench", "codalab") else ("public", "private")
        inputs = check_inputs(definition, solution, splits=needs)
        made = PLATFORMS[platform](inputs, split=split)
        written = write(made, out_dir)
        size = sum(p.stat().st_size for p in written)
        click.echo(f"wrote {len(written)} files ({size / 1e6:.1f} MB) to {out_dir} for {platform}: "
                   f"{definition.name}, {len(inputs.solution.ids):,} solution rows, leaderboard keys "
                   f"{', '.join(inputs.keys)}")
        for i, step in enumerate(made.next_steps, start=1):
            click.echo(f"next {i}: {step}")
        click.echo(f"details: {out_dir / 'README.md'}")
        return EXIT_OK

    run_guarded(competition, False, body)
