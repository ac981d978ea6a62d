"""Fresh rollouts under one set of files, drawn on demand and shared, and the pass counts they make."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence

from ..counting import Counts
from ..models import TaskRecord
from ..rollouts.replay import Rollout
from .exact import Stratum

Want = tuple[TaskRecord, int, int]  # (task, first sample, count)
Draw = Callable[[list[Want], dict[str, str], str], Awaitable[dict[str, list[Rollout]]]]
"""How the gate asks for fresh rollouts, the one definition every loop and drawer imports: samples
``first`` to ``first + count - 1`` of each ``Want``'s task, under the files, in the stream ``nonce``."""


class Pool:
    """Fresh rollouts under one set of files, drawn on demand by sample index and shared."""

    def __init__(self, draw: Draw, files: dict[str, str], nonce: str) -> None:
        self.draw, self.files, self.nonce = draw, files, nonce
        self.rollouts: dict[str, list[Rollout]] = {}
        self._drawn: dict[str, int] = {}
        self.reused: dict[str, int] = {}  # task id -> first samples taken from tonight's replay
        self.used: dict[str, int] = {}  # ... how many of them a test has read

    def reuse(self, replay: Mapping[str, Sequence[Rollout]]) -> None:
        """Take each task's ``replay`` rollouts (tonight's, under these files) as its first samples,
        so the tests draw only the samples past them (:mod:`.reserve` says on which tasks this is
        valid). A task whose replay was served from the cache in part, or skipped a sample, or
        already has samples here, keeps drawing its own."""
        for task_id, rollouts in replay.items():
            ordered = sorted(rollouts, key=lambda r: r.sample)
            whole = [r.sample for r in ordered] == list(range(len(ordered)))
            if not ordered or not whole or any(r.cached for r in ordered) or task_id in self._drawn:
                continue
            self.rollouts[task_id], self._drawn[task_id] = ordered, len(ordered)
            self.reused[task_id] = len(ordered)

    async def ensure(self, wants: Mapping[str, tuple[TaskRecord, int]]) -> None:
        """Make sure each task has at least ``n`` samples drawn (``wants``: id -> (task, n))."""
        missing = [
            (t, self._drawn.get(t.id, 0), n - self._drawn.get(t.id, 0))
            for t, n in wants.values()
            if n > self._drawn.get(t.id, 0)
        ]
        if not missing:
            return
        got = await self.draw(missing, self.files, self.nonce)
        for task, first, count in missing:
            self.rollouts.setdefault(task.id, []).extend(got.get(task.id, []))
            self._drawn[task.id] = first + count

    def take(self, task_id: str, start: int, stop: int) -> list[Rollout]:
        read = min(stop, self.reused.get(task_id, 0))
        if start < read:  # the test reads samples of tonight's replay
            self.used[task_id] = max(self.used.get(task_id, 0), read)
        return [r for r in self.rollouts.get(task_id, []) if start <= r.sample < stop]


def counts(before: Sequence[Rollout], after: Sequence[Rollout]) -> tuple[Stratum, int]:
    """A task's stratum from its rollouts, and how many of them errored (left out)."""
    b = [r for r in before if r.score is not None]
    a = [r for r in after if r.score is not None]
    errored = len(before) + len(after) - len(b) - len(a)
    return Stratum(sum(r.passed for r in b), len(b), sum(r.passed for r in a), len(a)), errored


def total(strata: Sequence[Stratum]) -> Counts:
    return Counts(
        before_pass=sum(s.before_pass for s in strata),
        before_n=sum(s.before_n for s in strata),
        after_pass=sum(s.after_pass for s in strata),
        after_n=sum(s.after_n for s in strata),
    )


def gained(c: Counts) -> bool:
    """Whether the pass rate after is above the rate before (cross-multiplied, exact)."""
    return c.after_pass * c.before_n > c.before_pass * c.after_n


def fell(c: Counts) -> bool:
    return c.after_pass * c.before_n < c.before_pass * c.after_n


def exp(log_value: float) -> float:
    return math.exp(min(log_value, 700.0))


def rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
