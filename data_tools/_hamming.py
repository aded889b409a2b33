"""Near-duplicate search on 64-bit hashes without a Python loop over pairs.

Multi-index hashing (Norouzi et al., 2012): cut the 64 bits into ``m``
contiguous blocks. If ``popcount(a ^ b) <= r`` then, by pigeonhole, at least
one block differs in at most ``d = r // m`` bits (since ``m * (d + 1) > r``).
So for every block we bucket the block values once (a counting table, or a
sorted array for wide blocks) and, for every XOR mask of at most ``d`` bits,
look up ``key ^ mask``; the candidate
pairs found are then verified with a vectorised popcount. ``m`` is chosen to
minimise (lookups + expected random candidates):
``c * m * V(b, d) * n  +  n^2 / 2 * m * V(b, d) / 2^b`` with ``V(b, d) = sum_{k<=d} C(b, k)``.

``components`` turns the pairs into connected components (single linkage:
a chain of near copies is one group) by min-label propagation with pointer
jumping.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

TABLE_BITS = 24  # blocks up to this wide get a bucket table (2^24 int64 counts = 128 MiB at most)
# Relative cost of one lookup, against 1 per candidate pair verified (measured, order of
# magnitude): a table that fits in cache is nearly free, a larger one costs a cache miss.
LOOKUP_COST_CACHED = 0.1   # blocks up to 16 bits
LOOKUP_COST_TABLE = 2.0    # 17..TABLE_BITS bits
LOOKUP_COST_SORTED = 5.0   # wider blocks: two binary searches


def hex_to_uint64(values) -> np.ndarray:
    """16-hex-digit strings -> uint64 array (``ValueError`` on a malformed hash)."""
    return np.array([int(v, 16) for v in values], dtype=np.uint64)


def popcount64(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x.astype(np.uint64)).astype(np.int64)
    as_bytes = x.astype(np.uint64).view(np.uint8).reshape(-1, 8)  # pragma: no cover - numpy < 2
    return np.unpackbits(as_bytes, axis=1).sum(axis=1).astype(np.int64)  # pragma: no cover


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return popcount64(np.bitwise_xor(a.astype(np.uint64), b.astype(np.uint64)))


def _blocks(m: int) -> list[tuple[int, int]]:
    """(shift, width) of ``m`` contiguous blocks covering 64 bits."""
    widths = [64 // m + (1 if k < 64 % m else 0) for k in range(m)]
    out, shift = [], 0
    for w in widths:
        out.append((shift, w))
        shift += w
    return out


def _plan(n: int, radius: int) -> int:
    best_m, best_cost = 1, float("inf")
    for m in range(1, min(radius + 1, 16) + 1):
        d = radius // m
        cost = 0.0
        for _, w in _blocks(m):
            if w > 32:  # masks over a block this wide are too many to enumerate for d >= 2
                cost = float("inf") if d >= 2 else cost
            v = sum(comb(w, k) for k in range(d + 1))
            lookup = (LOOKUP_COST_CACHED if w <= 16 else LOOKUP_COST_TABLE if w <= TABLE_BITS
                      else LOOKUP_COST_SORTED)
            cost += lookup * v * n + n * n / 2 * v / 2.0 ** w
        if cost < best_cost:
            best_m, best_cost = m, cost
    return best_m


def _masks(width: int, d: int) -> np.ndarray:
    masks = [0]
    for k in range(1, d + 1):
        masks += [sum(1 << b for b in bits) for bits in combinations(range(width), k)]
    return np.array(masks, dtype=np.uint64)


def pairs_within(hashes: np.ndarray, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """All index pairs ``i < j`` with ``popcount(h[i] ^ h[j]) <= radius``, sorted."""
    h = np.asarray(hashes, dtype=np.uint64)
    n = len(h)
    if radius < 0 or radius > 64:
        raise ValueError("radius must be between 0 and 64")
    empty = np.zeros(0, dtype=np.int64)
    if n < 2:
        return empty, empty
    m = _plan(n, radius)
    d = radius // m
    found = []
    idx = np.arange(n, dtype=np.int64)
    for shift, width in _blocks(m):
        keys = (h >> np.uint64(shift)) & np.uint64((1 << width) - 1)
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        if width <= TABLE_BITS:  # direct bucket table: a lookup is one gather
            counts = np.bincount(keys.astype(np.int64), minlength=1 << width).astype(np.int32)
            starts = (np.cumsum(counts, dtype=np.int64) - counts).astype(np.int32)
        for mask in _masks(width, d):
            q = keys ^ mask
            if width <= TABLE_BITS:
                qi = q.astype(np.int64)
                lo, cnt = starts[qi], counts[qi]
            else:
                lo = np.searchsorted(sorted_keys, q, side="left")
                cnt = np.searchsorted(sorted_keys, q, side="right") - lo
            hit = cnt > 0
            if not hit.any():
                continue
            c = cnt[hit].astype(np.int64)
            i = np.repeat(idx[hit], c)
            first = np.repeat(lo[hit].astype(np.int64) - (np.cumsum(c) - c), c)
            j = order[first + np.arange(c.sum())]
            keep = i < j
            i, j = i[keep], j[keep]
            # Verify before collecting: candidates outnumber true pairs by orders of magnitude.
            close = hamming(h[i], h[j]) <= radius
            found.append(i[close] * n + j[close])
    if not found:
        return empty, empty
    code = np.unique(np.concatenate(found))  # a pair is found once per block it agrees on
    return code // n, code % n


def components(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Component label (smallest member index) of each of ``n`` nodes joined by edges ``i``-``j``."""
    labels = np.arange(n, dtype=np.int64)
    if len(i) == 0:
        return labels
    while True:
        li, lj = labels[i], labels[j]
        low = np.minimum(li, lj)
        new = labels.copy()
        for target in (i, j, li, lj):  # lower the nodes and hook their current roots
            np.minimum.at(new, target, low)
        while True:  # pointer jumping: every node points straight to its root
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, labels):
            return labels
        labels = new


def hash_groups(hashes: np.ndarray, radius: int = 0) -> np.ndarray:
    """Group label per hash: equal hashes share one; with ``radius`` > 0, near ones are joined too."""
    h = np.asarray(hashes, dtype=np.uint64)
    uniq, inverse = np.unique(h, return_inverse=True)
    if radius == 0:
        return inverse.astype(np.int64)
    i, j = pairs_within(uniq, radius)
    return components(len(uniq), i, j)[inverse]
