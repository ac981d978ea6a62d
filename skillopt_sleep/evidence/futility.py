"""Whether an efficacy test still running can pass tonight at all: if not, it stops spending.

An edit's test has a full course fixed before its first rollout (its schedule: rollouts a side on
each task by each look). Part way through, the most the rest of that course can show is every
rollout still to come passing under the edit and failing without it. When even that would leave
the look-adjusted p-value above the most lenient level the edit can be held to tonight (the
round's ``alpha``: Holm holds no edit to more), its unseen tasks short of ``unseen_alpha``, and its
evidence over nights short of ``1/evidence_alpha``, no outcome of the remaining rollouts can adopt
it tonight, and drawing them only costs calls. Stopping changes no verdict that could have been
"accepted"; the e-value of the looks drawn stays a valid factor of the test martingale (optional
stopping), so the evidence carried to a later night is still exact, only smaller.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Protocol

from ..models import TaskRecord
from .allocation import Allocation
from .exact import Stratum, log_e_value, stratified_p
from .policy import EvidencePolicy


class Tested(Protocol):
    """What :func:`hopeless` reads of an edit under test (:class:`.trials.Candidate`)."""

    @property
    def schedule(self) -> Mapping[str, Sequence[int]]: ...
    @property
    def looks(self) -> int: ...
    @property
    def p_looks(self) -> Sequence[float]: ...
    @property
    def efficacy_tasks(self) -> list[TaskRecord]: ...
    @property
    def unseen(self) -> Sequence[TaskRecord]: ...
    @property
    def by_evidence(self) -> bool: ...
    @property
    def carried(self) -> str: ...
    @property
    def log_e(self) -> float: ...
    @property
    def key(self) -> str: ...


class Testing(Protocol):
    """What :func:`hopeless` reads of the night's tests (:class:`.trials.Trials`)."""

    @property
    def policy(self) -> EvidencePolicy: ...
    @property
    def allocation(self) -> Allocation: ...
    @property
    def ledger(self) -> Mapping[str, float]: ...


def best_case(now: Stratum, drawn: int, upto: int) -> Stratum:
    """``now`` after its test draws up to ``upto`` rollouts a side (from ``drawn``), every new one
    passing under the edit and failing without it: the most a task can still show."""
    more = max(0, upto - drawn)
    return Stratum(now.before_pass, now.before_n + more, now.after_pass + more, now.after_n + more)


def cannot_pass(
    now: Mapping[str, Stratum],
    schedule: Mapping[str, Sequence[int]],
    look: int,
    unseen: Sequence[str],
    *,
    adjusted: float,
    weights: Sequence[float],
    level: float,
    unseen_alpha: float,
    log_e: float,
    evidence_odds: float,
    evidence_alpha: float,
    efficacy_given: bool = False,
) -> bool:
    """Whether no outcome of the looks after ``look`` can pass the edit tonight (module docstring).

    ``now``: each task's counts so far; ``schedule``: its rollouts a side by each look;
    ``adjusted``: the p-value adjusted over the looks so far; ``log_e``: the log e-value over every
    night, tonight's looks so far included; ``efficacy_given``: an earlier night showed its
    efficacy (a retested edit), so only its unseen tasks remain to show."""
    looks = len(next(iter(schedule.values()), ()))
    if look >= looks:
        return False
    drawn = {t: schedule[t][look - 1] for t in now}
    ahead = range(look + 1, looks + 1)
    if unseen:
        best = [best_case(now[t], drawn[t], schedule[t][-1]) for t in unseen]
        if stratified_p(best) > unseen_alpha:
            return True  # its unseen tasks cannot show the gain the verdict requires
    if efficacy_given:
        return False
    for k in ahead:
        best = [best_case(now[t], drawn[t], schedule[t][k - 1]) for t in now]
        if stratified_p(best) / weights[k - 1] <= level or adjusted <= level:
            return False
    gain = log_e
    for k in ahead:
        new = [schedule[t][k - 1] - schedule[t][k - 2] for t in now]
        gain += log_e_value([Stratum(0, n, n, n) for n in new if n], evidence_odds)
    return gain < -math.log(evidence_alpha)


def hopeless(trials: Testing, c: Tested, strata: Sequence[Stratum], alpha: float) -> bool:
    """:func:`cannot_pass` for ``c``, a candidate of ``trials`` after its last look, whose efficacy
    tasks show ``strata``, in a round at ``alpha`` (its looks' p-values adjusted as
    :meth:`.trials.Trials.efficacy` adjusts them); never under an allocation that does not stop
    such tests (the classic one, the benchmarks' baseline of calls, runs every test out)."""
    if not trials.allocation.stops_hopeless:
        return False
    p, weights = trials.policy, trials.allocation.efficacy_weights
    adjusted = min([1.0, *(q / w for q, w in zip(c.p_looks, weights, strict=False))])
    return cannot_pass(
        {t.id: s for t, s in zip(c.efficacy_tasks, strata, strict=True)},
        c.schedule,
        c.looks,
        [t.id for t in c.unseen],
        adjusted=adjusted,
        weights=weights,
        level=0.0 if c.by_evidence else alpha,
        unseen_alpha=p.unseen_alpha,
        log_e=trials.ledger.get(c.key, 0.0) + c.log_e,  # over every night, as log_evidence
        evidence_odds=p.evidence_odds,
        evidence_alpha=p.evidence_alpha,
        efficacy_given=bool(c.carried),
    )
