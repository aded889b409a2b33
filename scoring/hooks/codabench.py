"""Codabench / CodaLab scoring program: ``python -m scoring.hooks.codabench INPUT_DIR OUTPUT_DIR``.

Layout followed (CodaLab wiki "Building a Scoring Program for a Competition",
and Codabench's scoring programs, which keep it): the worker unzips the
reference data into ``INPUT_DIR/ref/`` and the participant's upload into
``INPUT_DIR/res/``, runs ``<program> <input directory> <output directory>``
with stdout and stderr captured, and reads ``OUTPUT_DIR/scores.json`` whose
keys are the leaderboard columns (``key:`` in ``competition.yaml``). The
worker owns ``OUTPUT_DIR/metadata``; this program never writes it.

Declared output: ``OUTPUT_DIR/scores.json``, written (atomically) only when the
submission is scored. A rejected submission exits 1 with the participant-safe
problems on stderr (the submission's log); a host-side problem exits 3 with a
generic message and the problem's code only, because the logs may be shown to
participants: rerun ``agrieval grade`` with the same files to see the cause.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from scoring.hooks.guard import grade
from scoring.hooks.result import GradeResult

SCORES_FILE = "scores.json"
# Files a platform puts next to the reference data; never the solution.
_NOT_SOLUTION = {"metadata", "metadata.yaml", "competition.toml"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring.hooks.codabench",
                                     description="Codabench/CodaLab scoring program (agrieval).")
    parser.add_argument("input_dir", type=Path, help="the worker's input folder, holding ref/ and res/")
    parser.add_argument("output_dir", type=Path, help="where scores.json is written")
    parser.add_argument("--competition", default=None, metavar="NAME_OR_TOML",
                        help="shipped competition or TOML path (default: $AGRIEVAL_COMPETITION, "
                             "else INPUT_DIR/ref/competition.toml)")
    parser.add_argument("--split", choices=("public", "private"), default="public",
                        help="which split of the solution this phase's leaderboard shows (default: public)")
    args = parser.parse_args(argv)
    result = run(args.input_dir, args.output_dir, competition=args.competition, split=args.split)
    return result.exit_code


def run(input_dir: Path, output_dir: Path, *, competition: str | None = None,
        split: str = "public") -> GradeResult:
    """Grade ``input_dir/res`` against the solution in ``input_dir/ref``; write ``scores.json`` if scored."""
    ref, res = Path(input_dir) / "ref", Path(input_dir) / "res"
    competition = competition or os.environ.get("AGRIEVAL_COMPETITION") or str(ref / "competition.toml")
    try:
        solution = find_solution(ref)
    except FileNotFoundError as exc:
        from scoring.hooks.result import HOST_FAILURE_MESSAGE, HostInfo
        from scoring.report import ReportProblem

        result = GradeResult(competition=str(competition), status="error",
                             errors=[ReportProblem(code="internal_error", message=HOST_FAILURE_MESSAGE)],
                             host=HostInfo(diagnostics=[ReportProblem(code="solution_invalid", message=str(exc))]))
        _report(result)
        return result
    result = grade(res, solution, competition, reveal_private=(split == "private"))
    if result.status == "scored":
        values = result.metrics.public if split == "public" else (result.metrics.private or {})
        if not values:
            # The solution has no row of this split: an organizer's setup problem, not the participant's.
            from scoring.hooks.result import HOST_FAILURE_MESSAGE
            from scoring.report import ReportProblem

            result.status = "error"
            result.errors = [ReportProblem(code="internal_error", message=HOST_FAILURE_MESSAGE)]
            result.host.diagnostics.append(ReportProblem(code="solution_invalid",
                                                         message=f"the solution has no {split} row"))
        else:
            from scoring.atomic import write_text

            target = Path(output_dir) / SCORES_FILE
            write_text(target, json.dumps(values, indent=2, sort_keys=True) + "\n")
            target.chmod(0o644)  # the worker may read it as another user than the one running us
            print(json.dumps({"status": "scored", "split": split, "scores": values}, indent=2, sort_keys=True))
            return result
    _report(result)
    return result


def find_solution(ref: Path) -> Path:
    """The one CSV of the reference data (``solution.csv`` if there are several)."""
    if not ref.is_dir():
        raise FileNotFoundError(f"no reference data folder {str(ref)!r}")
    candidates = sorted(p for p in ref.iterdir() if p.is_file() and not p.is_symlink()
                        and p.name not in _NOT_SOLUTION and not p.name.startswith("."))
    if (ref / "solution.csv").is_file():
        return ref / "solution.csv"
    if len(candidates) == 1:
        return candidates[0]
    raise FileNotFoundError(f"the reference data {str(ref)!r} must hold solution.csv (found: "
                            f"{', '.join(p.name for p in candidates) or 'nothing'})")


def _report(result: GradeResult) -> None:
    """Log lines for the submission's page when it is not scored: participant-safe messages only."""
    print(result.participant_message(), file=sys.stderr)
    if result.status == "error":
        codes = ", ".join(d.code for d in result.host.diagnostics) or "internal_error"
        print(f"(host-side problem [{codes}]: run `agrieval grade` on the same files to see its cause)",
              file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
