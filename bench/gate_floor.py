"""The fewest calls a night could have made with the edit gate's adoptions, under the gate's
guarantees, however its rollouts were allocated: what a cheaper allocation can hope for.

Read from a night's summary, two floors a night:

- ``perfect``: every adopted edit's efficacy test meets the most extreme outcome it could (every
  rollout before fails, every rollout after passes, all on one of its tasks), so it needs only the
  ``n`` rollouts a side whose exact p-value, ``1 / C(2n, n)``, reaches the level it was held to;
  its unseen test the same at ``unseen_alpha``; an edit adopted on evidence carried from earlier
  nights one rollout a side; harm one fresh rollout a side on each other task; an edit tested
  and not adopted nothing at all. Tests whose tasks overlap share their rollouts (the larger
  test's serve the smaller); a rollout on one task cannot serve a test on another. No allocation
  that makes the same adoptions at the same levels can spend less.
- ``powered``: the same, but each adopted edit's tests of the fixed size that adopts a good rule
  with chance ``POWER`` at the world's own pass rates (``BASE_RATE`` before, ``RULE_RATE``
  after). A sequential test can beat a fixed size on average, so this floor is a guide, not a
  bound.
- ``guarded`` (:func:`guarded_floor`): the ``powered`` floor with the harm check powered too.
  One rollout a side on each other task proves nothing about harm: the gate adopts an edit only
  once a cut of the odds of a pass elsewhere by ``harm_odds`` is ruled out at ``harm_beta`` (or,
  failing that, after its full course), the guarantee it keeps. Here the harm check is the
  smallest fixed test that rules that cut out with chance ``POWER`` when the edit changes nothing
  at the world's ``BASE_RATE`` (:func:`harm_powered_size`), or one rollout a side a task when
  that is more.

- ``kinds`` (:func:`kinds_floor`): the ``guarded`` floor with the per-kind tests of a sampled harm
  check too. A night with more other tasks than a harm check's first look needs checks a sample
  of them on which every kind present is tested alone, powered to catch a rule that breaks that
  whole kind (``harm_kind_power``: :mod:`skillopt_sleep.evidence.harm_sample`). Here each kind
  gets the cheapest design (tasks x rollouts a side) that reaches that power at its share of the
  level, on at most the tasks of its kind the gate sampled.

All count the night's calls outside the gate (the train replay and the optimizer) as they were.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache

from bench.worlds.preference_kinds import BASE_RATE, RULE_RATE
from skillopt_sleep.evidence.exact import Stratum, p_odds_at_most, stratified_p
from skillopt_sleep.evidence.harm_sample import (
    KIND_SHARE,
    MAX_KIND_ROLLOUTS,
    MAX_PER_KIND,
    by_kind,
    per_kind,
)
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.proposal_models import NightSummary
from skillopt_sleep.settings import NightSettings

POWER = 0.8  # the learning bench's power target


def perfect_size(alpha: float) -> int:
    """Rollouts a side of the smallest one-task test whose most extreme outcome reaches ``alpha``."""
    n = 1
    while 1 / math.comb(2 * n, n) > alpha:
        n += 1
    return n


@cache
def powered_size(alpha: float, before: float = BASE_RATE, after: float = RULE_RATE) -> int:
    """Rollouts a side of the smallest one-task exact test that reaches ``alpha`` with chance
    ``POWER`` when the pass rate goes from ``before`` to ``after`` (exact, by enumeration)."""
    for n in range(perfect_size(alpha), 200):
        power = sum(
            math.comb(n, b)
            * before**b
            * (1 - before) ** (n - b)
            * math.comb(n, a)
            * after**a
            * (1 - after) ** (n - a)
            for b in range(n + 1)
            for a in range(n + 1)
            if stratified_p([Stratum(b, n, a, n)]) <= alpha
        )
        if power >= POWER:
            return n
    raise ValueError(f"no test of under 200 rollouts a side reaches {alpha}")


@cache
def harm_powered_size(odds: float, beta: float, rate: float = BASE_RATE) -> int:
    """Rollouts a side of the smallest one-look exact test that rules out a cut of the odds of a
    pass by ``odds`` at ``beta`` with chance ``POWER`` when nothing changes (``rate`` both sides)."""
    for n in range(1, 400):
        pmf = [math.comb(n, k) * rate**k * (1 - rate) ** (n - k) for k in range(n + 1)]
        power = sum(
            pmf[b] * pmf[a]
            for b in range(n + 1)
            for a in range(n + 1)
            if p_odds_at_most([Stratum(b, n, a, n)], 1 / odds) <= beta
        )
        if power >= POWER:
            return n
    raise ValueError(f"no test of under 400 rollouts a side rules out a {odds}-fold cut")


def guarded_floor(summary: NightSummary, night: NightSettings) -> int:
    """The ``guarded`` calls of ``summary``'s night: the powered floor with its harm check powered
    (see the module docstring)."""
    _, powered = floors(summary, night)
    adopted = [e for e in summary.evidence if e.verdict == "accepted"]
    acting = {t for e in adopted for t in (*e.cited, *e.unseen)}
    harm = {t for e in adopted for t in e.harm_tasks} - acting
    if not harm:
        return powered
    return powered + 2 * max(0, harm_powered_size(night.harm_odds, night.harm_beta) - len(harm))


@cache
def cheapest_kind(level: float, tasks: int, power: float) -> int:
    """Fewest rollouts a side, over at most ``tasks`` tasks of one kind, with which the test of
    that kind alone at ``level`` catches it going from half its passes to none with ``power``
    (:func:`skillopt_sleep.evidence.harm_sample.per_kind`)."""
    best = tasks * MAX_KIND_ROLLOUTS
    for rollouts in range(1, MAX_KIND_ROLLOUTS + 1):
        if rollouts >= best:
            break
        most = min(tasks, MAX_PER_KIND, (best - 1) // rollouts)
        m = per_kind(level, rollouts, power, most) if most else None
        if m is not None:
            best = min(best, m * rollouts)
    return best


def kinds_floor(
    summary: NightSummary, night: NightSettings, tasks: Mapping[str, TaskRecord]
) -> int:
    """The ``kinds`` calls of ``summary``'s night (see the module docstring); ``tasks``: the
    night's tasks by id."""
    guarded = guarded_floor(summary, night)
    adopted = [e for e in summary.evidence if e.verdict == "accepted"]
    acting = {t for e in adopted for t in (*e.cited, *e.unseen)}
    harm = sorted({t for e in adopted for t in e.harm_tasks} - acting)
    if not summary.harm_sampled or not harm:
        return guarded
    groups = by_kind([tasks[i] for i in harm if i in tasks])
    level = night.harm_alpha * KIND_SHARE / len(groups)
    need = sum(cheapest_kind(level, len(g), night.harm_kind_power) for g in groups)
    fixed = max(harm_powered_size(night.harm_odds, night.harm_beta), len(harm))
    return guarded + 2 * max(0, need - fixed)


def floors(summary: NightSummary, night: NightSettings) -> tuple[int, int]:
    """(perfect, powered) calls of ``summary``'s night (see the module docstring)."""
    outside = summary.calls - sum(summary.gate_rollouts.values())
    adopted = [e for e in summary.evidence if e.verdict == "accepted"]
    # each test that adopted an edit: its level (None: adopted on carried evidence) and its tasks
    tests: list[tuple[float | None, set[str]]] = []
    for e in adopted:
        proven = e.alpha is not None and e.p_efficacy is not None and e.p_efficacy <= e.alpha
        tests.append((e.alpha if proven else None, set(e.cited)))
        if e.unseen:
            tests.append((night.unseen_alpha, set(e.unseen)))
    harm = {t for e in adopted for t in e.harm_tasks} - set().union(*(t for _, t in tests))
    perfect, powered = (
        outside
        + 2 * len(harm)
        + 2 * sum(n for n, _ in _shared([(1 if a is None else size(a), t) for a, t in tests]))
        for size in (perfect_size, powered_size)
    )
    return perfect, powered


def _shared(tests: list[tuple[int, set[str]]]) -> list[tuple[int, set[str]]]:
    """``tests`` merged where their tasks overlap, each group at its largest size."""
    groups: list[tuple[int, set[str]]] = []
    for n, tasks in tests:
        overlapping = [g for g in groups if g[1] & tasks]
        groups = [g for g in groups if not g[1] & tasks]
        groups.append(
            (max([n, *(m for m, _ in overlapping)]), tasks.union(*(t for _, t in overlapping)))
        )
    return groups
