"""The Ladder: a public leaderboard that adaptive probing cannot climb (Blum & Hardt 2015).

Source: A. Blum and M. Hardt, "The Ladder: A Reliable Leaderboard for Machine Learning
Competitions", ICML 2015 (arXiv:1502.04585), Algorithm 2, the parameter-free Ladder; the authors'
reference code is https://github.com/mrtzh/Ladder.jl (``src/Ladder.jl``, ``FreeLadder``).

The rule, for a score (higher is better) that is a mean over n public units (``unit_scores``):
a team's submission t, with unit values v_t, is *released* when

    no submission of the team was released yet, or
    mean(v_t) > R + s / sqrt(n),   s = sample standard deviation (n - 1) of v_t - v_best

where R is the value shown for the released submission ``best`` and s / sqrt(n) is the standard
error of the paired per-unit difference (a one-sided paired t-test at one standard error). A
released submission is shown rounded to the nearest multiple of 1/n, ``[mean(v_t)]_{1/n}`` in
the paper; otherwise the board keeps showing the released one. Every public metric shown belongs
to that one released submission, each rounded the same way: showing another metric of the new
submission raw would leak what the rule holds back. The raw values stay with the host.

The paper states the rule for a loss and a row-level holdout; here units are what the
competition's metric averages over (images, quadrats or transects), so that a transect-averaged
score is tested on transects. Its guarantee (Theorem 3.1 of the paper, for the fixed-step
variant): with k submissions the board's error is O(log(k n)^{1/3} / n^{1/3}), where the exact
scores of an unprotected board allow an error of order sqrt(k / n) to an adaptive participant.

One state file per team (``submit``) keeps the released submission's unit values and the count
of submissions; it is read, decided on and replaced under an exclusive lock on a sidecar file
``STATE.lock`` (kept: removing a lock file races with its next user), the new state written to a
temporary name and renamed (``atomic.py``). A state file that cannot be read as ours, or was made
for another competition or solution, is refused (``HostError``), never reset.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np

from .atomic import write_text
from .problems import HostError
from .report import Metrics, ReportProblem
from .untrusted import UntrustedFileError, read_json, resolve

# Imported inside functions, so that importing this module loads only what it needs: fcntl (POSIX only).

STATE_FORMAT = "agrieval-ladder-state"
STATE_VERSION = 1
# a state grows by ~200 bytes per submission: a million submissions of one team stay under this
MAX_STATE_BYTES = 256 << 20


def released_value(value: float, n_units: int) -> float:
    """``[value]_{1/n}``: the nearest multiple of 1/n (the paper's rounding of a released score)."""
    return float(round(value * n_units)) / n_units


def standard_error(new: Sequence[float], best: Sequence[float]) -> float:
    """s / sqrt(n): the standard error of the mean paired difference of two submissions' unit values."""
    diff = np.asarray(new, dtype=float) - np.asarray(best, dtype=float)
    if len(diff) < 2:
        raise HostError("ladder_too_few_units", f"the Ladder needs at least 2 public units, got {len(diff)}")
    return float(np.std(diff, ddof=1) / math.sqrt(len(diff)))


def beats(new: Sequence[float], best: Optional[Sequence[float]], shown: Optional[float]) -> tuple:
    """(released?, the value the new submission had to exceed): Algorithm 2's test, for a score.

    ``best``/``shown``: the released submission's unit values and its shown value (None: nothing
    released yet, and the first submission is released, as R_0 = infinity in the paper).
    """
    if best is None or shown is None:
        return True, -math.inf
    if len(new) != len(best):
        raise HostError("ladder_state_corrupt",
                        f"the Ladder state holds {len(best)} public unit values but the solution has {len(new)}")
    bar = shown + standard_error(new, best)
    return bool(float(np.mean(np.asarray(new, dtype=float))) > bar), bar


@dataclass
class Decision:
    """What the Ladder did with one submission of a team."""
    released: bool
    submission: int  # this submission's number among the team's scored ones (1-based)
    shown_submission: int  # the number of the released submission whose values are shown
    shown: Dict[str, float]  # the public metrics shown: the released submission's, rounded to 1/n
    raw: Dict[str, float]  # this submission's public metrics, unrounded (host only)
    bar: float  # the primary value this submission had to exceed (-inf for a team's first)
    n_units: int
    unit: str

    def host_view(self) -> Dict[str, Any]:
        return {"released": self.released, "submission": self.submission,
                "shown_submission": self.shown_submission, "raw_public": dict(self.raw),
                "bar": None if math.isinf(self.bar) else self.bar, "n_units": self.n_units, "unit": self.unit}


@dataclass
class State:
    """A team's Ladder: the released submission and how many were scored."""
    competition: str
    metric: str
    unit: str
    n_units: int
    solution_sha256: str
    n_submissions: int = 0
    released: Optional[Dict[str, Any]] = None  # {"submission", "shown", "raw", "unit_values"}
    history: List[Dict[str, Any]] = field(default_factory=list)  # per submission: released?, raw primary

    def to_dict(self) -> Dict[str, Any]:
        return {"format": STATE_FORMAT, "version": STATE_VERSION, "competition": self.competition,
                "metric": self.metric, "unit": self.unit, "n_units": self.n_units,
                "solution_sha256": self.solution_sha256, "n_submissions": self.n_submissions,
                "released": self.released, "history": self.history}


def solution_fingerprint(sol, definition) -> str:
    """sha256 of what a state file is bound to: the competition, its metric and the solution's truth."""
    h = hashlib.sha256()
    for part in (definition.name, definition.primary_metric, "\n".join(sol.ids)):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    h.update(np.asarray(sol.split).astype("U7").tobytes())
    codes, names = sol.group_codes
    h.update(np.asarray(codes, dtype=np.int64).tobytes() + "\n".join(map(str, names)).encode("utf-8") + b"\0")
    if sol.labels is not None:
        h.update(np.asarray(sol.labels.indptr, dtype=np.int64).tobytes())
        h.update(np.asarray(sol.labels.labels, dtype=np.int64).tobytes())
    else:
        h.update("\n".join(sol.classes).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def state_from_dict(data: Any) -> State:
    """A ``State`` from its ``to_dict`` form (``ValueError`` and friends when it is not one)."""
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise ValueError("not an agrieval Ladder state")
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"state version {data.get('version')!r}, this agrieval reads {STATE_VERSION}")
    return State(competition=str(data["competition"]), metric=str(data["metric"]), unit=str(data["unit"]),
                 n_units=int(data["n_units"]), solution_sha256=str(data["solution_sha256"]),
                 n_submissions=int(data["n_submissions"]), released=data["released"],
                 history=list(data["history"]))


def read_state(path: Union[str, Path], *, competition: str, metric: str, n_units: int,
               solution_sha256: str) -> Optional[State]:
    """The team's state, None if the file does not exist; a ``HostError`` if it is not ours or not this
    competition's."""
    path = Path(path)
    try:  # the opening rule of untrusted.py: a regular file (a FIFO would hang us), capped, nested shallowly
        data = read_json(path, max_bytes=MAX_STATE_BYTES, what="Ladder state")
    except FileNotFoundError:
        return None
    except UntrustedFileError as exc:
        raise HostError("ladder_state_corrupt", f"cannot read the Ladder state {str(path)!r}: {exc.message}; it "
                        "was left as it is") from None
    try:
        state = state_from_dict(data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _corrupt(path, exc) from None
    if (state.competition, state.metric, state.n_units, state.solution_sha256) != \
            (competition, metric, n_units, solution_sha256):
        raise HostError("ladder_state_foreign",
                        f"the Ladder state {str(path)!r} belongs to another competition or solution "
                        f"({state.competition}, {state.metric} over {state.n_units} units); it was left as it is")
    try:
        if state.released is not None:
            values = [float(v) for v in state.released["unit_values"]]
            shown = {str(k): float(v) for k, v in state.released["shown"].items()}
            if len(values) != state.n_units or not all(map(math.isfinite, values + list(shown.values()))) \
                    or metric not in shown or not 1 <= int(state.released["submission"]) <= state.n_submissions:
                raise ValueError("its released submission is incomplete")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _corrupt(path, exc) from None
    return state


def _corrupt(path: Path, exc: Exception) -> HostError:
    return HostError("ladder_state_corrupt",
                     f"the Ladder state {str(path)!r} is corrupt ({exc}); it was left as it is: restore it from a "
                     f"backup, or move it away to start this team's Ladder afresh")


@contextlib.contextmanager
def locked(path: Union[str, Path]) -> Iterator[None]:
    """An exclusive lock held on ``path + '.lock'`` (created if absent, never removed): one grading at a time
    per team."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no grading platform runs the Ladder there
        raise HostError("ladder_lock_unavailable", "the Ladder's state lock needs fcntl (Linux, macOS)") from None
    lock_path = str(path) + ".lock"
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise HostError("ladder_state_unwritable", f"cannot open the Ladder lock {lock_path!r}: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def submit(path: Union[str, Path], unit_values: Sequence[float], public: Dict[str, float], *, competition: str,
           metric: str, unit: str, solution_sha256: str, file: Optional[str] = None) -> Decision:
    """Run one scored submission of a team through its Ladder state at ``path`` (read, decide, write, under
    the lock)."""
    values = [float(v) for v in unit_values]
    # a state that is a link: the file it leads to is locked, read and replaced (resolved once), so that graders
    # given either name exclude each other and the link stays a link
    path = resolve(path)
    with locked(path):
        state = read_state(path, competition=competition, metric=metric, n_units=len(values),
                           solution_sha256=solution_sha256)
        if state is None:
            state = State(competition, metric, unit, len(values), solution_sha256)
        decision = decide(state, values, public, file=file)
        try:
            write_text(path, json.dumps(state.to_dict(), allow_nan=False) + "\n")
        except OSError as exc:
            raise HostError("ladder_state_unwritable", f"cannot write the Ladder state {str(path)!r}: {exc}") \
                from None
    return decision


def decide(state: State, unit_values: Sequence[float], public: Dict[str, float], *,
           file: Optional[str] = None) -> Decision:
    """Run one scored submission through ``state`` (updated in place): the Ladder's whole rule, for whoever
    keeps the state (a file here, a row of the own server's store in ``scoring/_server``)."""
    values = [float(v) for v in unit_values]
    n, metric = len(values), state.metric
    best = state.released
    released, bar = beats(values, best["unit_values"] if best else None, best["shown"][metric] if best else None)
    state.n_submissions += 1
    if released:
        shown = {k: released_value(v, n) for k, v in public.items()}
        state.released = {"submission": state.n_submissions, "shown": shown, "raw": dict(public),
                          "unit_values": values}
    state.history.append({"submission": state.n_submissions, "released": released, "raw": public[metric],
                          "shown": state.released["shown"][metric], "file": file})
    return Decision(released=released, submission=state.n_submissions,
                    shown_submission=int(state.released["submission"]), shown=dict(state.released["shown"]),
                    raw=dict(public), bar=bar, n_units=n, unit=state.unit)


def show(result, decision: Decision):
    """``result`` (a scored ``GradeResult``) as the Ladder shows it: the released submission's public
    metrics for the participant, this submission's raw ones under ``host.details['ladder']``."""
    result.report.metrics = Metrics(public=dict(decision.shown), private=result.metrics.private)
    result.report.details["ladder"] = decision.host_view()
    if not decision.released:
        result.warnings.append(ReportProblem(
            code="ladder_not_released",
            # (no count of public units: a participant message says nothing about the split's make-up)
            message=(f"this submission did not beat your best one by at least one standard error on the public "
                     f"split; the public scores shown are those of your submission {decision.shown_submission}")))
    return result
