"""A stratified permutation test on scores in [0, 1]: the exact test's counterpart for partial credit.

Each task is a stratum: its scores before an edit and after it. Under "the edit changes nothing on
this task" the before and after rollouts of a task are exchangeable, so given the pooled scores,
every choice of which of them were the "after" ones is equally likely. The statistic is the sum of
the after-scores over the strata; its null law is the convolution of each stratum's law of subset
sums. Where that law is small (scores on a coarse grid, few rollouts) it is computed exactly;
otherwise it is sampled: ``DRAWS`` relabellings, and the p-value ``(1 + hits) / (DRAWS + 1)``,
which is a valid p-value at any number of draws (the observed labelling is one more exchangeable
draw), within about ``sqrt(p (1 - p) / DRAWS)`` (at most 0.005) of the exact one.

Unlike a pass drawn from each score with probability equal to it, nothing here adds a coin's
noise: a gain from 0.5 to 0.9 of partial credit is seen as it is. The null is stronger than "equal
mean" (equal law of the scores on each task), which is what a fresh replay under an edit that
changes nothing gives.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from math import comb
from typing import Literal

Alternative = Literal["greater", "less"]
DRAWS = 9999  # relabellings when the exact law is too large
MAX_SUPPORT = 20_000  # distinct sums the exact law may hold before it is sampled instead
MAX_WORK = 400_000  # pairs of sums one convolution may visit before it is sampled instead
GRID = 1e-9  # sums closer than this are one value (float noise, not a difference)
ScoreStratum = tuple[Sequence[float], Sequence[float]]  # (before scores, after scores)


def score_p(strata: Sequence[ScoreStratum], alternative: Alternative = "greater") -> float:
    """One-sided p-value of higher ("greater") or lower ("less") scores after the edit than before.

    Strata with no score on a side, or with every score equal, carry no information; with no
    informative stratum the p-value is 1 (no evidence either way)."""
    used = [(list(b), list(a)) for b, a in strata if b and a and len({*b, *a}) > 1]
    if not used:
        return 1.0
    sign = 1.0 if alternative == "greater" else -1.0
    law = _exact_law(used, sign)
    if law is None:
        return _sampled_p(used, sign, sign * sum(sum(a) for _, a in used))
    observed = sum(_key(sign * x) for _, a in used for x in a)
    tail = sum(count for value, count in law.items() if value >= observed)
    return min(1.0, tail / _arrangements(used))


def _key(value: float) -> int:
    return round(value / GRID)


def _subset_sums(values: Sequence[float], k: int, sign: float) -> dict[int, int] | None:
    """How many size-``k`` subsets of ``values`` have each sum (keys on the grid); None if large."""
    layers: list[dict[int, int]] = [{0: 1}] + [{} for _ in range(k)]
    for value in values:
        step = _key(sign * value)
        for size in range(min(k, len(values)) - 1, -1, -1):
            for total, count in layers[size].items():
                layer = layers[size + 1]
                layer[total + step] = layer.get(total + step, 0) + count
            if len(layers[size + 1]) > MAX_SUPPORT:
                return None
    return layers[k]


def _exact_law(
    used: Sequence[tuple[list[float], list[float]]], sign: float
) -> dict[int, int] | None:
    """Counts of arrangements by total after-sum (on the grid), or None when too large to hold."""
    law: dict[int, int] = {0: 1}
    for before, after in used:
        sums = _subset_sums(before + after, len(after), sign)
        if sums is None or len(law) * len(sums) > MAX_WORK:
            return None
        out: dict[int, int] = {}
        for x, cx in law.items():
            for y, cy in sums.items():
                out[x + y] = out.get(x + y, 0) + cx * cy
        if len(out) > MAX_SUPPORT:
            return None
        law = out
    return law


def _arrangements(used: Sequence[tuple[list[float], list[float]]]) -> int:
    total = 1
    for before, after in used:
        total *= comb(len(before) + len(after), len(after))
    return total


def _sampled_p(
    used: Sequence[tuple[list[float], list[float]]], sign: float, observed: float
) -> float:
    """The Monte-Carlo p-value, its relabellings seeded by the data (the same data, the same p)."""
    seed = hashlib.sha256(repr((used, sign)).encode()).digest()
    rng = random.Random(int.from_bytes(seed[:8], "big"))
    pools = [(before + after, len(after)) for before, after in used]
    hits = 0
    for _ in range(DRAWS):
        total = sum(sum(rng.sample(pool, k)) for pool, k in pools)
        hits += sign * total >= observed - GRID / 2
    return (1 + hits) / (DRAWS + 1)
