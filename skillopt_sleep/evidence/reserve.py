"""The night's own replay as the "before" side of its tests, on a reserve of tasks set aside blind.

A night replays its train tasks under its files before the optimizer is asked anything; a harm
check then needs rollouts under the same files on the other tasks. Taking the replay's rollouts as
that "before" side halves what the check draws, but only where nothing was chosen from them: the
optimizer's cases are picked from the replay's outcomes (the tasks whose attempts disagree or
fail), so the tasks left over are not a fair draw, and their replay would bias the test.

So a night with more train tasks than the optimizer could use sets a *reserve* aside first, by a
hash of each task's id (the same tasks whatever the replay shows): the optimizer picks its cases
among the others (:data:`CASE_POOL` times the cases a night shows it), never from the reserve, and
the reserve's replay rollouts, drawn fresh tonight, are the "before" side wherever a test of
tonight's edits uses those tasks (the harm check's sample prefers them). A rollout served from the
cache (an earlier night's) is never reused: evidence carried across nights stays independent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ..models import TaskRecord

if TYPE_CHECKING:
    from ..rollouts.replay import Rollout
    from .trials import Trials

CASE_POOL = 2  # the optimizer picks its cases among this many times the cases a night shows it


def rank(task_id: str) -> int:
    """A task's place in the order the reserve is taken from: a hash of its id alone."""
    return int(hashlib.sha256(f"reserve:{task_id}".encode()).hexdigest()[:12], 16)


def reserve(tasks: Sequence[TaskRecord], shown: int) -> frozenset[str]:
    """Ids of the ``tasks`` set aside from the optimizer, when a night shows it at most ``shown``
    cases: all but the first :data:`CASE_POOL` ``* shown`` by :func:`rank` (none on a small night)."""
    ordered = sorted(tasks, key=lambda t: (rank(t.id), t.id))
    return frozenset(t.id for t in ordered[CASE_POOL * shown :])


class Reused(Protocol):
    """What a night's rounds say of their harm checks (:class:`~..optimize.rounds.RoundsResult`)."""

    harm_sampled: int
    before_reused: int
    reused_rollouts: int


def reuse_notes(done: Reused) -> list[str]:
    """The night's line on how its harm checks were cut down: sampled, and "before" sides reused
    (none when neither happened)."""
    if not done.harm_sampled and not done.before_reused:
        return []
    line = f"harm checks sampled: {done.harm_sampled}; before sides reused: {done.before_reused}"
    if done.before_reused:
        line += (
            f" (tasks the optimizer never saw: {done.reused_rollouts} rollouts of tonight's replay "
            "served as the before side instead of being drawn again)"
        )
    return [line]


def set_aside(
    trials: Trials,
    train: Sequence[TaskRecord],
    replay: Mapping[str, Sequence[Rollout]],
    shown: int,
) -> list[TaskRecord]:
    """The ``train`` tasks the optimizer may be shown; the others, the :func:`reserve`, lend their
    ``replay`` to ``trials`` as the before side (unless its allocation says not to)."""
    if not trials.allocation.same_night_before:
        return list(train)
    kept = reserve(train, shown)
    trials.baseline.reuse({i: replay[i] for i in sorted(kept) if i in replay})
    return [t for t in train if t.id not in kept]
