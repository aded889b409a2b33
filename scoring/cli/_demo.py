"""``agrieval demo``: score every bundled reference submission and print a leaderboard per competition."""

from __future__ import annotations

from pathlib import Path

import click

from agrieval.scoring.authoring.definitions import load_competition
from agrieval.scoring.cli._output import fmt
from agrieval.scoring.cli.group import epilog
from agrieval.scoring.text.terminal import cell, one_line

# Imported inside functions, so that importing this module loads only what it needs:
# scoring.runtime.reading.solution, scoring.runtime.scorer (they load numpy).


def _find_reference_dir() -> Path | None:
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parents[2]):
        cand = base / "reference_submissions"
        if cand.is_dir():
            return cand
    return None


@click.command(epilog=epilog("agrieval demo --reveal-private", "Exit codes: 0 done; 2 usage error (no reference_submissions/ folder); 3 host-side problem."))
@click.option("--dir", "ref_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder holding <competition>/solution.csv and <competition>/submissions/ "
                   "(default: the repository's reference_submissions/).")
@click.option("--reveal-private", is_flag=True, help="Also show private scores.")
def demo(ref_dir: Path | None, reveal_private: bool) -> None:
    """Score the bundled reference submissions of every competition."""
    from agrieval.scoring.runtime.reading.solution import load_solution
    from agrieval.scoring.runtime.scorer import score_file

    ref_dir = ref_dir or _find_reference_dir()
    if ref_dir is None:
        raise click.UsageError("no reference_submissions/ folder found; run from the repository or pass --dir")
    for comp_dir in sorted(p for p in ref_dir.iterdir() if (p / "solution.csv").is_file()):
        definition = load_competition(comp_dir.name)
        solution = load_solution(comp_dir / "solution.csv", definition)
        files = sorted((comp_dir / "submissions").rglob("*.csv"))
        rows = []
        for f in files:
            r = score_file(f, solution, definition, reveal_private=reveal_private)
            name = str(f.relative_to(comp_dir / "submissions"))
            pub = r.metrics.public.get(definition.primary_metric) if r.status == "scored" else None
            priv = (r.metrics.private or {}).get(definition.primary_metric) if r.status == "scored" else None
            note = "" if r.status == "scored" else f"{r.errors[0].code}: {r.errors[0].message}"
            rows.append((pub, priv, name, r.status, note))
        scored = sorted((r for r in rows if r[0] is not None), key=lambda r: (-r[0], r[2]))
        rejected = [r for r in rows if r[0] is None]
        click.echo(f"\n== {definition.name}: {definition.title}")
        click.echo(f"   solution {_rel(comp_dir / 'solution.csv')} ({len(solution.ids)} ids); primary metric "
                   f"{definition.primary_metric}, public split" + (" and private" if reveal_private else ""))
        head = f"{'rank':>4}  {'submission':<44}{'public':>8}" + (f"{'private':>9}" if reveal_private else "")
        click.echo(head)
        click.echo("-" * (len(head) + 2))
        for i, (pub, priv, name, _, _) in enumerate(scored, 1):
            click.echo(f"{i:>4d}  {cell(name, 44)}{fmt(pub):>8}" + (f"{fmt(priv):>9}" if reveal_private else ""))
        for _, _, name, status, note in rejected:
            click.echo(f"{'-':>4}  {cell(name, 44)}{cell(status, 8, '>')}  {one_line(_clip(note, 90))}")


def _clip(text: str, width: int) -> str:
    """At most ``width`` characters, cut at a word boundary (never mid-word) and marked with '...'."""
    if len(text) <= width:
        return text
    return text[:width - 4].rsplit(" ", 1)[0].rstrip(" ;,:") + " ..."


def _rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)
