"""Codabench and CodaLab scoring program: ``python score.py INPUT_DIR OUTPUT_DIR``.

What the workers do (``docs/facts/platforms.md``, read from codalab/codabench
``compute_worker.py`` and codalab/competitions-v1-compute-worker ``worker.py``):
the reference data is in ``INPUT_DIR/ref/``, the participant's unzipped upload
in ``INPUT_DIR/res/`` next to the worker's own ``metadata`` file; the command
of ``metadata.yaml`` (Codabench) or ``metadata`` (CodaLab) runs with stdout and
stderr captured and shown to the participant unless the phase hides output.
Codabench reads ``OUTPUT_DIR/scores.json``, else ``scores.txt``; CodaLab reads
only ``scores.txt`` (``key: value`` lines). Writing ``OUTPUT_DIR/metadata``
makes a Codabench submission fail, so this program never does.

So this program writes both score files when the submission is scored (and
removes any left from an earlier run when it is not), exits 0 scored,
1 rejected (the participant-safe problems on stderr), 3 host-side failure (a
message saying it is not the participant's fault, and the problem's code
only). Scores are printed only with ``--show-scores``: the logs of a phase
whose leaderboard is hidden must not carry them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..atomic import write_text
from ..definition import CompetitionDefinition, load_definition
from ..guard import grade, host_failure
from ..problems import HostError
from ..result import HOST_FAILURE_LINE, GradeResult

SCORES_JSON = "scores.json"
SCORES_TXT = "scores.txt"
# Files a platform puts next to the reference data; never the solution.
_NOT_SOLUTION = {"metadata", "metadata.yaml", "competition.json", "competition.toml"}


def main(argv: list | None = None, *, competition: str | CompetitionDefinition | None = None) -> int:
    parser = argparse.ArgumentParser(prog="score.py", description="Codabench/CodaLab scoring program (agrieval).")
    parser.add_argument("input_dir", type=Path, help="the worker's input folder, holding ref/ and res/")
    parser.add_argument("output_dir", type=Path, help="where scores.json and scores.txt are written")
    parser.add_argument("--competition", default=None, metavar="NAME_OR_JSON",
                        help="shipped competition or frozen definition (default: INPUT_DIR/ref/competition.json)")
    parser.add_argument("--split", choices=("public", "private"), default="public",
                        help="which split of the solution this phase's leaderboard shows (default: public)")
    parser.add_argument("--show-scores", action="store_true",
                        help="also print the scores to stdout (leave off for phases with hidden results)")
    args = parser.parse_args(argv)
    chosen = competition or args.competition or str(args.input_dir / "ref" / "competition.json")
    result = run(args.input_dir, args.output_dir, competition=chosen, split=args.split)
    if result.status == "scored" and args.show_scores:
        print(json.dumps(scores_of(result, args.split), indent=2, sort_keys=True))
    return result.exit_code


def run(input_dir: Path, output_dir: Path, *, competition: str | Path | CompetitionDefinition,
        split: str = "public") -> GradeResult:
    """Grade ``input_dir/res`` against the solution in ``input_dir/ref``; write the score files if scored."""
    ref, res = Path(input_dir) / "ref", Path(input_dir) / "res"
    output_dir = Path(output_dir)
    _remove_stale_scores(output_dir)
    try:
        definition = load_definition(competition)
        solution = find_solution(ref)
    except HostError as exc:
        result = host_failure(str(competition), exc.code, str(exc))
    except FileNotFoundError as exc:
        result = host_failure(str(competition), "solution_invalid", str(exc))
    else:
        result = grade(res, solution, definition, reveal_private=(split == "private"))
        if result.status == "scored" and not scores_of(result, split):
            # The solution has no row of this split: the organizer's setup, not the participant's file.
            result = host_failure(definition.name, "solution_invalid", f"the solution has no {split} row")
    if result.status == "scored":
        values = scores_of(result, split)
        write_text(output_dir / SCORES_JSON, json.dumps(values, indent=2, sort_keys=True) + "\n")
        write_text(output_dir / SCORES_TXT, scores_txt(values))
        print(f"scored: {len(values)} leaderboard values written to {SCORES_JSON} and {SCORES_TXT}")
    else:
        report_failure(result)
    return result


def scores_of(result: GradeResult, split: str) -> dict:
    return dict(result.metrics.public if split == "public" else (result.metrics.private or {}))


def scores_txt(values: dict) -> str:
    """CodaLab's ``scores.txt``: one ``key: value`` line per leaderboard column (read as YAML)."""
    return "".join(f"{key}: {float(values[key])!r}\n" for key in sorted(values))


def find_solution(ref: Path) -> Path:
    """The one CSV of the reference data (``solution.csv`` if there are several)."""
    if not ref.is_dir():
        raise FileNotFoundError(f"no reference data folder {str(ref)!r}")
    if (ref / "solution.csv").is_file():
        return ref / "solution.csv"
    candidates = sorted(p for p in ref.iterdir() if p.is_file() and not p.is_symlink()
                        and p.name not in _NOT_SOLUTION and not p.name.startswith("."))
    if len(candidates) == 1:
        return candidates[0]
    raise FileNotFoundError(f"the reference data {str(ref)!r} must hold solution.csv (found: "
                            f"{', '.join(p.name for p in candidates) or 'nothing'})")


def report_failure(result: GradeResult) -> None:
    """stderr of a submission that was not scored: the participant-safe message first, nothing private."""
    if result.status == "error":
        codes = ", ".join(d.code for d in result.host.diagnostics) or "internal_error"
        print(f"{HOST_FAILURE_LINE}: [{codes}]; organizers: run `agrieval grade` on the same files to see the cause",
              file=sys.stderr)
    else:
        print(result.participant_message(), file=sys.stderr)


def _remove_stale_scores(output_dir: Path) -> None:
    """A score file of an earlier run in the same folder must not pass for this run's."""
    for name in (SCORES_JSON, SCORES_TXT):
        stale = output_dir / name
        if stale.is_file() and not stale.is_symlink():
            stale.unlink()
