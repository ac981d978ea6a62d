"""A night cut short after its reflection leaves no half night behind (no orphan reflection.json)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.night.project import Backends, run_project_night
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.settings import Settings
from skillopt_sleep.store import Store


class InterruptAfterReflection:
    """The simulated target, until the optimizer has answered: then the night is interrupted."""

    name = "simulated"

    def __init__(self, optimizer: SimulatedBackend) -> None:
        self.inner, self.optimizer_calls = SimulatedBackend(), 0
        self.model = self.inner.model
        self.optimizer = optimizer

    async def complete(self, request: Request) -> Completion:
        if self.optimizer_calls:
            raise KeyboardInterrupt
        return await self.inner.complete(request)

    async def check(self) -> Health:
        return await self.inner.check()


class CountingOptimizer(SimulatedBackend):
    def __init__(self) -> None:
        super().__init__()
        self.watchers: list[InterruptAfterReflection] = []

    async def complete(self, request: Request) -> Completion:
        done = await super().complete(request)
        for w in self.watchers:
            w.optimizer_calls += 1
        return done


def test_a_night_interrupted_after_reflection_leaves_no_night_directory(sample_project, tmp_path):
    project, tasks = sample_project
    paths = resolve_paths(str(tmp_path / "home")).ensure()
    store = Store.open(paths.db)
    optimizer = CountingOptimizer()
    target = InterruptAfterReflection(optimizer)
    optimizer.watchers.append(target)
    clock = FixedClock(datetime(2026, 11, 20, 3, 0, tzinfo=timezone.utc))
    with pytest.raises(KeyboardInterrupt):
        run_project_night(
            project=project,
            settings=Settings(),
            store=store,
            paths=paths,
            backends=Backends(target, optimizer, SimulatedBackend()),
            clock=clock,
            tasks=tasks,
        )
    assert target.optimizer_calls >= 1  # it was cut short after the reflection was written
    assert list(paths.nights_dir.rglob("reflection.json")) == []
    assert list(paths.nights_dir.glob("*")) == [] and store.nights() == []
