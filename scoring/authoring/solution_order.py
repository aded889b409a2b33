"""Does a solution's row order tell its labels or its split? Two exact permutation tests, per group.

Anything listed in the solution's order (a sample submission, an id list, an image folder copied row by row)
gives the truth away when that order follows the labels: the AgrI example was written team by team and class
by class, so cutting each team's rows into equal runs, one per class, named every label. The tests compare the
order with a random shuffle of the rows *within each group* (team, transect): the groups are known to
participants (the ids name them), so an order that only follows the groups tells nothing new.

For one group of ``n`` rows holding ``n_k`` rows of value ``k`` (a class, or the split), under a uniformly
random order:

* **Runs** (neighbours): ``A``, the number of neighbouring rows with the same value, has
  ``E[A] = (n-1) p2`` and ``E[A^2] = (n-1) p2 + 2 (n-2) p3 + (n-2)(n-3) p4``, with
  ``p2 = S2 / n^(2)``, ``p3 = S3 / n^(3)``, ``p4 = (S2^2 - sum_k (n_k^(2))^2 + S4) / n^(4)``, where
  ``x^(r)`` is the falling factorial and ``Sr = sum_k n_k^(r)``. Rows written value by value give too many
  equal neighbours, alternating rows (public, private, public...) too few: the test is two-sided.
* **Trend** (position): for each value ``k``, ``R_k``, the sum of the positions (1..n) of its rows, has
  ``E = n_k (n + 1) / 2`` and ``Var = n_k (n - n_k)(n + 1) / 12`` (the Wilcoxon rank-sum moments). It finds
  "public rows first" or classes in sorted order even in groups too small for the runs test.

Groups are independent, so means and variances add; ``z = (observed - mean) / sqrt(var)``. A finding is
reported when ``|z| >= Z_LIMIT`` (4.5: a two-sided normal tail of 7e-6, so that an honest, shuffled solution
warns about once in ten thousand bundles even with a dozen tests per solution; the leaks that matter are far
beyond it: the class-ordered AgrI example gives z = 21 with 120 rows). Everything is O(rows) numpy.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from agrieval.scoring.runtime.problems import Problem

_Z_LIMIT = 4.5


@dataclass(frozen=True)
class _Finding:
    """One test over one value sequence: what it counted, what a random order gives, and ``z``."""

    test: str  # "runs" or "trend"
    observed: float
    expected: float
    sd: float
    value: str | None = None  # the value whose positions trend (``trend`` only)

    @property
    def z(self) -> float:
        return (self.observed - self.expected) / self.sd if self.sd > 0 else 0.0

    def describe(self, what: str, within: str) -> str:
        if self.test == "runs":
            more = "more" if self.observed > self.expected else "fewer"
            return (f"{int(self.observed):,} neighbouring rows with the same {what} {within}, {more} than the "
                    f"{self.expected:,.1f} +/- {self.sd:,.1f} of a random order (runs test, z = {self.z:+.1f})")
        where = "earlier" if self.observed < self.expected else "later"
        return (f"the rows of one {what} ({self.value!r}) come {where} {within} than in a random order (positions "
                f"summed {self.observed:,.0f}, random {self.expected:,.0f} +/- {self.sd:,.0f}; rank-sum test, "
                f"z = {self.z:+.1f})")


def _falling(x: np.ndarray, r: int) -> np.ndarray:
    out = np.ones_like(x, dtype=np.float64)
    for i in range(r):
        out *= np.maximum(x - i, 0)
    return out


def _order_tests(values: np.ndarray, groups: np.ndarray, names: list | None = None) -> list:
    """The runs test and one trend test per value, of ``values`` (int codes, the rows in the order tested)
    within ``groups`` (int codes, same length). ``names[k]`` names value ``k`` in a finding. Groups of one row
    and groups holding one value only add nothing (their variance is 0)."""
    values = np.asarray(values, dtype=np.int64)
    groups = np.asarray(groups, dtype=np.int64)
    if values.shape != groups.shape or values.size < 2:
        return []
    n_values = int(values.max()) + 1
    n_groups = int(groups.max()) + 1
    order = np.argsort(groups, kind="stable")  # each group's rows together, in the tested order
    v, g = values[order], groups[order]
    sizes = np.bincount(g, minlength=n_groups).astype(np.float64)
    counts = np.bincount(g * n_values + v, minlength=n_groups * n_values).reshape(n_groups, n_values)
    counts = counts.astype(np.float64)

    same = (v[1:] == v[:-1]) & (g[1:] == g[:-1])
    s2, s3, s4 = (_falling(counts, r).sum(axis=1) for r in (2, 3, 4))
    pairs2 = (_falling(counts, 2) ** 2).sum(axis=1)
    n = sizes
    with np.errstate(divide="ignore", invalid="ignore"):
        p2 = np.where(n >= 2, s2 / _falling(n, 2), 0.0)
        p3 = np.where(n >= 3, s3 / _falling(n, 3), 0.0)
        p4 = np.where(n >= 4, (s2 ** 2 - pairs2 + s4) / _falling(n, 4), 0.0)
    mean = np.maximum(n - 1, 0) * p2
    second = mean + 2 * np.maximum(n - 2, 0) * p3 + np.maximum(n - 2, 0) * np.maximum(n - 3, 0) * p4
    var = np.maximum(second - mean ** 2, 0.0)
    found = [_Finding("runs", float(same.sum()), float(mean.sum()), float(np.sqrt(var.sum())))]

    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    position = np.arange(v.size, dtype=np.float64) - starts[g] + 1  # 1..n within the group
    rank_sums = np.bincount(g * n_values + v, weights=position,
                            minlength=n_groups * n_values).reshape(n_groups, n_values)
    for k in range(n_values):
        m = counts[:, k]
        expected = float((m * (n + 1) / 2).sum())
        variance = float((m * (n - m) * (n + 1) / 12).sum())
        name = names[k] if names is not None else str(k)
        found.append(_Finding("trend", float(rank_sums[:, k].sum()), expected, float(np.sqrt(variance)), name))
    return found


def _codes_of(items) -> tuple:
    """``(int codes, names)``, names in sorted order (deterministic messages)."""
    names = sorted(set(items), key=str)
    index = {name: i for i, name in enumerate(names)}
    return np.fromiter(map(index.__getitem__, items), dtype=np.int64, count=len(items)), names


def worst(found: list) -> _Finding | None:
    """The finding with the largest ``|z|`` at or above ``Z_LIMIT``, or None."""
    over = [f for f in found if abs(f.z) >= _Z_LIMIT]
    return max(over, key=lambda f: abs(f.z)) if over else None


# What each order is, for the messages: the solution's own rows, or its ids sorted (what anyone holding the
# ids can rebuild: an id numbered class by class lines the labels up however the file is ordered).
ORDERS = {"rows": "in the solution's row order", "sorted_ids": "once the ids are sorted"}


def order_warnings(solution, definition, *, orders=("rows",)) -> list:
    """Host-side ``Problem`` warnings (``order_reveals_labels``, ``order_reveals_split``) for a loaded
    ``Solution`` whose order, among ``orders`` (keys of ``ORDERS``), follows its classes (multiclass) or its
    split, within its groups. Never for a participant: the messages name classes of the truth."""
    n = len(solution.split)
    if n < 2:
        return []
    grouped = definition.grouping is not None
    groups = np.asarray(solution.group_codes[0], dtype=np.int64) if grouped else np.zeros(n, dtype=np.int64)
    within = f"within each {definition.grouping.name}" if grouped else "in the file"
    targets = []
    if solution.classes is not None:
        targets.append(("order_reveals_labels", "class", *_codes_of(solution.classes)))
    # the split's values compared as arrays (np.unique would sort 200,000 strings: 0.2 s)
    split_names = [v for v in ("ignored", "private", "public") if (solution.split == v).any()]
    split_codes = np.zeros(n, dtype=np.int64)
    for k, v in enumerate(split_names):
        split_codes[solution.split == v] = k
    targets.append(("order_reveals_split", "split", split_codes, split_names))
    name = solution.path.rsplit("/", 1)[-1] if solution.path else "solution.csv"
    out = []
    for order in orders:
        perm = np.argsort(np.array(solution.ids), kind="stable") if order == "sorted_ids" else None
        for code, what, values, names in targets:
            if len(names) < 2:
                continue
            v, g = (values, groups) if perm is None else (values[perm], groups[perm])
            finding = worst(_order_tests(v, g, names))
            if finding is None:
                continue
            out.append(Problem(code, f"the {what} of each row can be guessed from its position "
                               f"{ORDERS[order]}: {finding.describe(what, within)}. {_ADVICE[(code, order)]}",
                               "warning", file=name))
    return out


_ADVICE = {
    ("order_reveals_labels", "rows"): "Any list made in this order (an image folder copied row by row, an id "
    "list) tells the labels by position; `agrieval bundle` publishes ids in a keyed-hash order, whatever this "
    "order, but shuffle the solution's rows before sharing anything else made from it",
    ("order_reveals_split", "rows"): "Any list made in this order tells which ids are private by position; "
    "`agrieval bundle` publishes ids in a keyed-hash order, whatever this order, but shuffle the solution's rows "
    "before sharing anything else made from it",
    ("order_reveals_labels", "sorted_ids"): "The ids themselves give the labels away (numbered class by class?), "
    "whatever order they are published in: give the images ids that do not follow the classes (`agrieval data "
    "splits` writes img-<keyed hash of the path>)",
    ("order_reveals_split", "sorted_ids"): "The ids themselves give the split away (public and private ids "
    "numbered apart, or the split alternating along the ids?), whatever order they are published in: draw the "
    "split at random, independently of the ids' order",
}


def publication_order(ids: list, key: str) -> list:
    """``ids`` in the order every published id list has: by ``sha256(key + "\\n" + id)`` (hex digest, then
    the id, to break a tie that never happens).

    Not the solution's order, which may follow its classes or its split (the AgrI example was written class
    by class, its split alternating); not sorted either, which keeps what the ids' spelling says (ids numbered
    class by class, or ``pub_``/``priv_`` prefixes, line up by position). A hash of the id depends on the id
    alone: the position of a row tells nothing the id does not, and the same inputs give the same bytes. The
    key is written in the bundle's README, so that the organizer can rebuild the order."""
    prefix = key.encode("utf-8") + b"\n"
    return sorted(ids, key=lambda i: (hashlib.sha256(prefix + i.encode("utf-8")).hexdigest(), i))
