"""``bundle --public-precision``: public scores rounded to the public split's noise level.

A stateless grading platform (Codabench, CodaLab, EvalAI, Hugging Face, Kaggle) scores each
submission alone and cannot run the Ladder, which needs each team's previous release. What such a
program can do is show fewer digits: a score that is a mean of n values in [0, 1] has a standard
error of at most 1 / (2 sqrt(n)), and digits below that are noise to an honest participant and a
signal to a prober. ``auto`` keeps d decimals, the fewest whose step 10^-d is still at most that
standard error:

    d = ceil(log10(2 sqrt(n)))        n = public units of the primary metric

(1,000 public rows: d = 2; 10 public transects: d = 1). Rounding alone does not stop the boosting
attack (Blum & Hardt 2015, section 6, and ``benchmarks/bench_ladder.py``): it costs the attacker
more submissions, so it is off by default and documented as a weaker defence than the Ladder.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from agrieval.scoring.runtime._unit_scores import row_units
from agrieval.scoring.runtime.definition import CompetitionDefinition
from agrieval.scoring.runtime.problems import HostError
from agrieval.scoring.runtime.reading.solution import Solution


def auto_decimals(n_units: int) -> int:
    """The decimals of ``auto`` for a public split of ``n_units`` units."""
    if n_units < 1:
        raise ValueError("the public split has no unit")
    return max(0, math.ceil(math.log10(2 * math.sqrt(n_units)) - 1e-12))


def public_units(solution: Solution, definition: CompetitionDefinition) -> int:
    """How many units the primary metric averages over on the public split (rows for a metric that is no
    mean over units, such as macro F1)."""
    public = np.flatnonzero(solution.split == "public")
    try:
        units, _ = row_units(solution, definition)
    except HostError:
        return len(public)
    return len(np.unique(units[public]))


def with_public_precision(definition: CompetitionDefinition, solution: Solution, precision: str
                          ) -> CompetitionDefinition:
    """The definition with ``public_decimals`` set: ``off`` (unchanged), ``auto`` or a number of decimals."""
    if precision == "off":
        return definition
    decimals = auto_decimals(public_units(solution, definition)) if precision == "auto" else int(precision)
    return dataclasses.replace(definition, public_decimals=decimals)


README_SECTION = """
## Public scores: precision

{body}
"""


def readme_section(definition: CompetitionDefinition, platform: str) -> str:
    """The paragraph every bundle's README carries about the public scores' precision."""
    if definition.public_decimals is None:
        body = ("Public scores are shown unrounded (`--public-precision off`, the default). A participant can "
                "then fit the public split by submitting many variants (the boosting attack of Blum & Hardt, "
                "2015). Rebuild with `--public-precision auto` to round them to the public split's noise level; "
                "a server that keeps state can run the Ladder instead (`agrieval grade --ladder`, "
                "docs/ladder.md), which this platform's stateless program cannot.")
    else:
        body = (f"Public scores are rounded to {definition.public_decimals} decimal(s) "
                f"(`--public-precision`), about the public split's noise level: digits below it tell an honest "
                f"participant nothing and help a prober fit the public split. Rounding slows the boosting attack "
                f"of Blum & Hardt (2015) but does not stop it; a server that keeps state can run the Ladder "
                f"(`agrieval grade --ladder`, docs/ladder.md). Private scores and the host's logs are unrounded.")
    if platform == "kaggle" and definition.public_decimals is not None:
        body += (" On Kaggle the metric is handed one split at a time and cannot tell which: the private "
                 "leaderboard's scores are rounded the same way.")
    return README_SECTION.format(body=body)
