"""Whether a text function stays linear on hostile input, measured against itself in one run.

A loaded machine slows both sizes alike, so the ratio holds where a fixed limit in seconds does
not: ten times the text takes about ten times as long when the work is linear, and about a
hundred times when a rule rescans the rest of the text from every position."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable


def seconds(work: Callable[[str], object], texts: Iterable[str]) -> float:
    """The fastest of three passes of ``work`` over ``texts``: a pause of the machine is not theirs."""
    texts = list(texts)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for text in texts:
            work(text)
        best = min(best, time.perf_counter() - started)
    return best


def grows_linearly(work: Callable[[str], object], units: Iterable[str], size: int) -> bool:
    """True when ``work`` over each unit repeated to ``size`` characters takes under 35 times
    (linear: about 10; quadratic: about 100) its time at a tenth of that size."""
    units = list(units)
    small = seconds(work, (u * (size // 10 // len(u)) for u in units))
    large = seconds(work, (u * (size // len(u)) for u in units))
    return large < 35 * small + 0.05
