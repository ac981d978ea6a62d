"""Harm checked on a sample of the other tasks, stratified by kind, once a night has more of them
than the check needs: a night's cost should grow slower than its work, and a rule that breaks one
kind among many must not hide in a pooled test.

A harm check's first look draws one rollout a side on each of ``need`` tasks (the allocation's
first harm look). A night with more other tasks than that replays a sample of them, designed
before any outcome is seen (:class:`KindPlan`):

- every kind present among the other tasks (:func:`.kinds.kind_of`; tasks with no key are grouped
  by their request words) is sampled, on the fewest of its tasks, at :data:`KIND_ROLLOUTS` a side
  each (more a task for a kind with too few tasks, up to :data:`MAX_KIND_ROLLOUTS`), with which
  the exact one-sided test of that kind *alone*, at its share of the level, sees a kind that
  passed half the time before and never after, with probability ``harm_kind_power`` (0.99);
- at the check's first look each kind is tested on its own, at ``harm_alpha * KIND_SHARE / K``
  for ``K`` kinds (Bonferroni), and the pooled test over the sample keeps the rest of
  ``harm_alpha``, spread over its looks as before: the check's p-value is the smaller of the two,
  each divided by its share, so a harmless edit is still refused at most ``harm_alpha`` of the time;
- the sample is then filled at random, one rollout a task, up to ``need`` rollouts.

Where tonight's replay is the "before" side of some tasks (the reserve, :mod:`.reserve`), each
random choice takes those first: which tasks they are was fixed by their ids, before any outcome.

So a rule that breaks one whole kind is refused with probability at least ``harm_kind_power``
whatever the other kinds do: the first look is always taken, and that kind's test alone
catches it there.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from ..models import TaskRecord
from .exact import Stratum, stratified_p
from .kinds import kind_of, same_kind

REFERENCE_RATE = 0.5  # the pass rate before of the kind a harmful rule breaks, in the sizing
MAX_PER_KIND = 12
KIND_ROLLOUTS = 4  # rollouts a side on a sampled task at the first look: a night's replay's K
MAX_KIND_ROLLOUTS = 48  # ... raised, for a kind with too few tasks, up to this many
KIND_SHARE = 0.5  # the share of harm_alpha a sampled check spends on its kinds' own tests


@cache
def per_kind(level: float, rollouts: int, power: float, most: int = MAX_PER_KIND) -> int | None:
    """Fewest tasks of one kind (at most ``most``), at ``rollouts`` a side each, with which the
    exact one-sided test at ``level`` sees a kind go from :data:`REFERENCE_RATE` to no pass at
    all, with chance ``power`` (exact, by enumerating the before passes of each task); None when
    ``most`` are not enough."""
    n = rollouts
    law = [
        math.comb(n, b) * REFERENCE_RATE**b * (1 - REFERENCE_RATE) ** (n - b) for b in range(n + 1)
    ]
    for m in range(1, most + 1):
        caught = 0.0
        for passes in itertools.combinations_with_replacement(range(n + 1), m):
            strata = [Stratum(b, n, 0, n) for b in passes]
            if stratified_p(strata, "less") <= level:
                ways = math.factorial(m)
                for count in map(passes.count, set(passes)):
                    ways //= math.factorial(count)
                caught += ways * math.prod(law[b] for b in passes)
        if caught >= power:
            return m
    return None


def kind_size(level: float, tasks: int, power: float) -> tuple[int, int]:
    """(tasks, rollouts a side each) a kind of ``tasks`` tasks is checked on: the fewest tasks at
    :data:`KIND_ROLLOUTS`, or, for a kind with too few, all of them at the fewest rollouts that
    reach ``power`` (:data:`MAX_KIND_ROLLOUTS` at most)."""
    for rollouts in range(KIND_ROLLOUTS, MAX_KIND_ROLLOUTS + 1):
        m = per_kind(level, rollouts, power, min(tasks, MAX_PER_KIND))
        if m is not None:
            return m, rollouts
    return tasks, MAX_KIND_ROLLOUTS


@dataclass(frozen=True)
class KindPlan:
    """A sampled harm check's design, fixed before any outcome: the rollouts a side each task draws
    at the first look (later looks multiply them), and the kinds, each tested alone at that look."""

    first: Mapping[str, int]
    kinds: tuple[tuple[str, ...], ...]
    share: float = KIND_SHARE

    def p_kinds(self, strata: Mapping[str, Stratum]) -> float:
        """The kinds' tests as one p-value: the smallest, times the number of kinds (Bonferroni)."""
        lowest = min(stratified_p([strata[i] for i in ids], "less") for ids in self.kinds)
        return min(1.0, lowest * len(self.kinds))


def by_kind(tasks: Sequence[TaskRecord]) -> list[list[TaskRecord]]:
    """``tasks`` grouped by kind: by their kind key, else by close request words."""
    keyed: dict[str, list[TaskRecord]] = {}
    loose: list[list[TaskRecord]] = []
    for t in tasks:
        key = kind_of(t)
        if key is not None:
            keyed.setdefault(key, []).append(t)
            continue
        group = next((g for g in loose if same_kind(g[0], t)), None)
        if group is None:
            loose.append([t])
        else:
            group.append(t)
    return [*keyed.values(), *loose]


def prefer(
    tasks: Sequence[TaskRecord], m: int, free: Collection[str], rng: random.Random
) -> list[TaskRecord]:
    """``m`` of ``tasks`` at random, those in ``free`` (whose before side costs nothing) first;
    with no ``free`` task, the same draw as ``rng.sample(tasks, m)``."""
    own = [t for t in tasks if t.id in free]
    if len(own) >= m:
        return rng.sample(own, m)
    return own + rng.sample([t for t in tasks if t.id not in free], m - len(own))


def stratified_sample(
    others: Sequence[TaskRecord],
    need: int,
    alpha: float,
    power: float,
    rng: random.Random,
    free: Collection[str] = frozenset(),
) -> tuple[list[TaskRecord], KindPlan]:
    """The sample of ``others`` a harm check replays, sorted by id, and its :class:`KindPlan`:
    every kind on :func:`kind_size` of its tasks at its level (``alpha``'s kinds' share over the
    kinds), filled at random, one rollout a task, up to ``need`` rollouts; the tasks in ``free``
    taken first in each choice."""
    groups = by_kind(sorted(others, key=lambda t: t.id))
    level = alpha * KIND_SHARE / len(groups)
    first: dict[str, int] = {}
    kinds: list[list[str]] = []
    for group in groups:
        m, rollouts = kind_size(level, len(group), power)
        chosen = group if len(group) <= m else prefer(group, m, free, rng)
        first |= dict.fromkeys((t.id for t in chosen), rollouts)
        kinds.append([t.id for t in group])
    rest = [t for t in sorted(others, key=lambda t: t.id) if t.id not in first]
    fill = max(0, min(len(rest), need - sum(first.values())))
    first |= dict.fromkeys((t.id for t in prefer(rest, fill, free, rng)), 1)
    plan = KindPlan(first, tuple(tuple(i for i in ids if i in first) for ids in kinds))
    return sorted((t for t in others if t.id in first), key=lambda t: t.id), plan
