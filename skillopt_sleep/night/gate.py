"""The replay gate: accept a candidate only with statistical evidence on held-out tasks.

A pure function. ``None`` in a score list is an errored rollout: excluded and counted, never 0.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

GateDecision = Literal["accept", "reject", "no_evidence"]


@dataclass(frozen=True)
class GatePolicy:
    min_gain: float = 0.05
    max_task_drop: float = 0.25
    alpha: float = 0.05
    test: Literal["sign_flip", "bootstrap"] = "sign_flip"
    max_error_rate: float = 0.3
    min_tasks: int = 4
    resamples: int = 2000


@dataclass(frozen=True)
class GateResult:
    decision: GateDecision
    reason: str
    before: float | None = None
    after: float | None = None
    gain: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    worst_drop: float | None = None
    n_tasks: int = 0
    errored: int = 0


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def decide(
    before: Mapping[str, Sequence[float | None]],
    after: Mapping[str, Sequence[float | None]],
    policy: GatePolicy,
    rng: random.Random,
) -> GateResult:
    """Paired per-task comparison of holdout scores before and after (placeholder test)."""
    total = sum(len(v) for v in before.values()) + sum(len(v) for v in after.values())
    errored = sum(1 for v in (*before.values(), *after.values()) for s in v if s is None)
    if total and errored / total > policy.max_error_rate:
        return GateResult("no_evidence", f"{errored} of {total} holdout rollouts errored", errored=errored)
    diffs: list[float] = []
    b_means: list[float] = []
    a_means: list[float] = []
    for task in sorted(set(before) & set(after)):
        b = [s for s in before[task] if s is not None]
        a = [s for s in after[task] if s is not None]
        if b and a:
            b_means.append(_mean(b))
            a_means.append(_mean(a))
            diffs.append(a_means[-1] - b_means[-1])
    if len(diffs) < policy.min_tasks:
        return GateResult("no_evidence", f"not enough evidence: {len(diffs)} holdout tasks scored",
                          n_tasks=len(diffs), errored=errored)
    gain = _mean(diffs)
    worst = -min(diffs)
    decision: GateDecision = "accept" if gain >= policy.min_gain and worst <= policy.max_task_drop else "reject"
    return GateResult(decision, "mean comparison", _mean(b_means), _mean(a_means), gain, gain, gain,
                      None, worst, len(diffs), errored)
