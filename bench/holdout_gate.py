"""The whole-holdout gate, the baseline the benchmarks compare the edit-by-edit gate with.

It accepts a candidate (every edit of a night together) only with statistical evidence over the
whole holdout. It is no longer part of the product: a rule acts on a few of a night's tasks, and a
test over the whole holdout drowns it in noise (``bench/gate_noise.py`` measures how much).

A pure function of the holdout scores and an injected ``rng``. ``None`` in a score list is an
errored rollout (an outage, a timeout, a parse failure): it is excluded and counted, never a 0.

The unit of evidence is the *task*: each holdout task gives one paired difference
``d = mean(after) - mean(before)`` over its scored rollouts. Under "the edit changes nothing",
before and after rollouts of a task are exchangeable, so each ``d`` is symmetric about 0 and the
sign-flip permutation test over the ``d``s is exact (enumerated when ``2**n <= resamples``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from skillopt_sleep.train.paired import (  # the product's paired test
    bootstrap_ci,
    sign_flip_p,
)

GateDecision = Literal["accept", "reject", "no_evidence"]
GateTest = Literal["sign_flip", "bootstrap"]

_EPS = 1e-12  # float noise when comparing resampled statistics with the observed one


@dataclass(frozen=True)
class GatePolicy:
    """What a candidate must show on the holdout to be accepted."""

    min_gain: float = 0.05
    max_task_drop: float = 0.25
    alpha: float = 0.05
    test: GateTest = "sign_flip"
    max_error_rate: float = 0.3
    min_tasks: int = 4
    resamples: int = 4096  # 4096 = 2**12: twelve holdout tasks are still enumerated exactly


@dataclass(frozen=True)
class GateResult:
    """The decision, its reason, and the numbers behind it (means are over tasks)."""

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
    worst_task: str | None = None
    rollouts: int = 0
    exact: bool = False


def decide(
    before: Mapping[str, Sequence[float | None]],
    after: Mapping[str, Sequence[float | None]],
    policy: GatePolicy,
    rng: random.Random,
    interval: bool = True,
) -> GateResult:
    """Paired per-task comparison of holdout scores before and after a candidate edit.

    ``interval=False`` skips the bootstrap interval, which the decision does not read (only the
    result's ``reason`` shows it): ``rng`` is advanced past the draws it would have made, so the
    decisions that follow are the same as with it, at a fraction of the time.
    """
    rollouts = sum(len(v) for v in before.values()) + sum(len(v) for v in after.values())
    errored = sum(1 for v in (*before.values(), *after.values()) for s in v if s is None)
    if rollouts and errored / rollouts > policy.max_error_rate:
        return GateResult(
            "no_evidence",
            f"not enough evidence: {errored} of {rollouts} holdout rollouts errored "
            f"({errored / rollouts:.0%}, at most {policy.max_error_rate:.0%} allowed)",
            errored=errored,
            rollouts=rollouts,
        )
    paired = _paired_means(before, after)
    n = len(paired)
    if n < policy.min_tasks:
        return GateResult(
            "no_evidence",
            f"not enough evidence: {n} holdout tasks scored, need {policy.min_tasks}",
            n_tasks=n,
            errored=errored,
            rollouts=rollouts,
        )
    diffs = [a - b for _, b, a in paired]
    gain = _mean(diffs)
    worst_task, worst_b, worst_a = min(paired, key=lambda t: (t[2] - t[1], t[0]))
    worst_drop = max(0.0, worst_b - worst_a)
    if policy.test == "sign_flip":
        p_value, exact = sign_flip_p(diffs, policy.resamples, rng)
    else:
        p_value, exact = bootstrap_p(diffs, policy.resamples, rng), False
    ci_low: float | None
    ci_high: float | None
    if interval:
        ci_low, ci_high = bootstrap_ci(diffs, policy.resamples, rng)
    else:  # one ``rng.random()`` is two 32-bit words of the generator; skip as many as it draws
        rng.getrandbits(64 * policy.resamples * n)
        ci_low = ci_high = None
    problems = _problems(gain, p_value, worst_drop, worst_task, policy)
    ci = f" (95% CI {ci_low:+.3f} to {ci_high:+.3f})" if ci_low is not None else ""
    summary = f"gain {gain:+.3f}{ci}, p = {p_value:.3g} on {n} holdout tasks"
    return GateResult(
        "reject" if problems else "accept",
        "; ".join(problems) if problems else summary,
        before=_mean([b for _, b, _ in paired]),
        after=_mean([a for _, _, a in paired]),
        gain=gain,
        ci_low=ci_low,
        ci_high=ci_high,
        p_value=p_value,
        worst_drop=worst_drop,
        n_tasks=n,
        errored=errored,
        worst_task=worst_task,
        rollouts=rollouts,
        exact=exact,
    )


def _paired_means(
    before: Mapping[str, Sequence[float | None]], after: Mapping[str, Sequence[float | None]]
) -> list[tuple[str, float, float]]:
    """(task, mean before, mean after) for tasks with at least one scored rollout on each side."""
    out = []
    for task in sorted(set(before) & set(after)):
        b = [s for s in before[task] if s is not None]
        a = [s for s in after[task] if s is not None]
        if b and a:
            out.append((task, _mean(b), _mean(a)))
    return out


def _problems(
    gain: float, p_value: float, worst_drop: float, worst_task: str, policy: GatePolicy
) -> list[str]:
    problems = []
    if gain < policy.min_gain:
        problems.append(f"gain {gain:+.3f} is below the minimum {policy.min_gain:.3f}")
    if p_value >= policy.alpha:
        problems.append(f"not significant: p = {p_value:.3g} >= alpha {policy.alpha:g}")
    if worst_drop > policy.max_task_drop + _EPS:
        problems.append(
            f"task {worst_task} dropped by {worst_drop:.2f} (at most {policy.max_task_drop:.2f} allowed)"
        )
    return problems


def bootstrap_p(diffs: Sequence[float], resamples: int, rng: random.Random) -> float:
    """One-sided p-value of ``mean(diffs) > 0`` by a studentized (bootstrap-t) test.

    The t statistic of the diffs is compared with the t statistics of resamples of the diffs
    shifted to mean 0. Studentizing keeps the test honest on a dozen tasks, where a bootstrap
    of the plain mean is too eager (it underestimates the spread).
    """
    n = len(diffs)
    mean = _mean(diffs)
    observed = _t(diffs)
    centred = [d - mean for d in diffs]
    hits = sum(1 for _ in range(resamples) if _t(rng.choices(centred, k=n)) >= observed - _EPS)
    return (1 + hits) / (1 + resamples)


def _t(xs: Sequence[float]) -> float:
    """Student's t of ``mean(xs) > 0``; with no spread, +-inf by the sign of the mean (or 0)."""
    n = len(xs)
    mean = _mean(xs)
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    if var <= _EPS:
        return 0.0 if abs(mean) <= _EPS else math.copysign(math.inf, mean)
    return mean / math.sqrt(var / n)


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)
