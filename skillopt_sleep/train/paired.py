"""The paired test of the training report: a sign-flip p-value and a bootstrap interval of a mean
paired difference (one difference per test item)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import repeat

CI_LEVEL = 0.95
_EPS = 1e-12


def sign_flip_p(diffs: Sequence[float], resamples: int, rng: random.Random) -> tuple[float, bool]:
    """One-sided p-value of ``mean(diffs) > 0`` by flipping signs; (p, exact?).

    Exact over all ``2**n`` sign patterns when that is at most ``resamples``; otherwise a Monte
    Carlo estimate ``(1 + hits) / (1 + resamples)``, which never reports an impossible p of 0.
    """
    observed = sum(diffs)
    if 2 ** len(diffs) <= resamples:
        sums = [0.0]  # every signed sum, built one item at a time: 2**n values
        for d in diffs:
            sums = [s + d for s in sums] + [s - d for s in sums]
        hits = sum(1 for s in sums if s >= observed - _EPS)
        return hits / len(sums), True
    hits = 0
    for _ in range(resamples):
        flipped = sum(d if rng.random() < 0.5 else -d for d in diffs)
        hits += flipped >= observed - _EPS
    return (1 + hits) / (1 + resamples), False


def bootstrap_ci(diffs: Sequence[float], resamples: int, rng: random.Random) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(diffs)`` at :data:`CI_LEVEL`."""
    n = len(diffs)
    # ``rng.choices(diffs, k=n)`` per resample, drawn in one flat list: the same draws in the same
    # order (the same interval, the same state of ``rng`` after), four times faster (the gate
    # benchmark computes thousands of these)
    size, draw = float(n), rng.random
    picked = [diffs[int(draw() * size)] for _ in repeat(None, resamples * n)]
    samples = zip(*[iter(picked)] * n, strict=True)
    means = sorted([sum(sample) / n for sample in samples])
    tail = (1 - CI_LEVEL) / 2
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return low, high
