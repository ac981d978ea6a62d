"""The two ways a night goes, and the single number ``run --estimate`` gives for it.

A night is bimodal: one whose edit passes its efficacy test pays for a harm check and a joint
check (on a small project, hundreds of rollouts), one whose edits all fail pays for none, and
which it will be depends on what the optimizer proposes that night. The rehearsals
(:mod:`.rehearsal`) go both ways; this module turns their calls into the number nearest a night
and the two ways' own, and says them in one line.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

APART = 0.25  # two ways whose calls are nearer than this (as a share) are shown as one


@dataclass(frozen=True)
class Ways:
    """What the rehearsals say of one night's calls: the single number nearest a night, the mean,
    the chance an edit is proven, the number nearest a night of either way, and how far the
    single number is expected to miss."""

    calls: int
    mean: int
    p_proven: float
    if_proven: int | None  # None: no rehearsal proved an edit
    if_not: int | None  # None: every rehearsal did
    miss: float


def nearest(calls: Sequence[int]) -> int:
    """The single number that misses a night drawn from ``calls`` by the least on average, as
    |estimate - actual| / actual: the median of ``calls`` weighted by 1 / calls. To a night of 14
    calls an estimate of 140 is nine times too many, while to one of 260 an estimate of 14 is
    only once too few: the mean of the two ways misses both, and the cheap way is the nearer
    unless the costly one is near certain."""
    ranked = sorted(calls)
    weights = [1 / max(1, c) for c in ranked]
    half, seen = sum(weights) / 2, 0.0
    for c, w in zip(ranked, weights, strict=True):
        seen += w
        if seen >= half:
            return c
    return ranked[-1]


def ways(runs: Sequence[tuple[int, bool]], mean: int) -> Ways:
    """The ways of rehearsals that called (calls, proved an edit) ``runs``; ``mean`` is the mean
    rehearsal's calls (the expectation, counted as the rehearsals' mean rollouts are)."""
    if not runs:
        return Ways(mean, mean, 0.0, None, mean, 0.0)
    point = nearest([c for c, _ in runs])
    way = {
        proven: nearest([c for c, p in runs if p == proven])
        if any(p == proven for _, p in runs)
        else None
        for proven in (True, False)
    }
    share = sum(p for _, p in runs) / len(runs)
    miss = statistics.fmean(abs(point - c) / max(1, c) for c, _ in runs)
    return Ways(point, mean, round(share, 3), way[True], way[False], round(miss, 2))


def ways_text(calls: int, if_proven: int | None, if_not: int | None, p_proven: float) -> str:
    """``about 14 calls; about 260 if an edit is proven (a 40% chance)``: the way ``calls`` does
    not stand for is named when its calls differ by more than :data:`APART`."""
    text = f"about {calls} calls"
    proven_way = if_proven is not None and (
        if_not is None or abs(calls - if_proven) < abs(calls - if_not)
    )
    other = if_not if proven_way else if_proven
    if other is None or abs(other - calls) <= APART * max(calls, other):
        return text
    if proven_way:
        return f"{text} (an edit proven); about {other} if none is ({1 - p_proven:.0%} likely)"
    return f"{text}; about {other} if an edit is proven ({p_proven:.0%} likely)"
