"""Harm checked on a sample of the other tasks, stratified by kind, once a night has more of them
than the check needs: a night's cost should grow slower than its work.

A harm check's first look draws one rollout a side on each of ``need`` tasks (the allocation's
first harm look: half a classic look for ``lean``). A night with more other tasks than that
replays a sample of them, drawn before any outcome is seen:

- every kind present among the other tasks is checked (:func:`.kinds.kind_of`; tasks with no
  key are grouped by their request words), each on :func:`per_kind` of its tasks, or all of them
  when it has fewer: the fewest with which the check's exact test, at its last look's share of
  ``harm_alpha``, catches a rule that breaks that whole kind (a kind that passed half the time
  before never passes after) with probability ``harm_kind_power`` (0.99 by default);
- the sample is then filled at random up to ``need``, so a night with few kinds still gets a
  full first look.

A harmful rule that breaks a kind cannot hide in the tasks left out: its kind is in the sample.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from functools import cache

from ...models import TaskRecord
from .exact import Stratum, stratified_p
from .kinds import kind_of, same_kind

REFERENCE_RATE = 0.5  # the pass rate before of the kind a harmful rule breaks, in the sizing
MAX_PER_KIND = 12


@cache
def per_kind(level: float, rollouts: int, power: float) -> int:
    """Fewest tasks of one kind, at ``rollouts`` a side each, with which the exact one-sided test
    at ``level`` sees a kind go from :data:`REFERENCE_RATE` to no pass at all, with chance
    ``power`` (exact, by enumerating the before passes of each task)."""
    n = rollouts
    law = [
        math.comb(n, b) * REFERENCE_RATE**b * (1 - REFERENCE_RATE) ** (n - b) for b in range(n + 1)
    ]
    for m in range(1, MAX_PER_KIND + 1):
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
    return MAX_PER_KIND


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


def stratified_sample(
    others: Sequence[TaskRecord], need: int, each: int, rng: random.Random
) -> list[TaskRecord]:
    """``each`` tasks of every kind of ``others`` (all of a smaller kind), filled at random up to
    ``need`` tasks; sorted by id. ``others`` itself when it has ``need`` tasks or fewer."""
    if len(others) <= need:
        return list(others)
    chosen: list[TaskRecord] = []
    for group in by_kind(sorted(others, key=lambda t: t.id)):
        chosen += group if len(group) <= each else rng.sample(group, each)
    ids = {t.id for t in chosen}
    rest = sorted((t for t in others if t.id not in ids), key=lambda t: t.id)
    chosen += rng.sample(rest, max(0, min(len(rest), need - len(chosen))))
    return sorted(chosen, key=lambda t: t.id)
