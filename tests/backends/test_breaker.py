"""The circuit breaker in the call path: a backend that dies mid-night stops it; one that only
stumbles never does."""

from __future__ import annotations

from skillopt_sleep import run_night
from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.errors import TransientError
from skillopt_sleep.settings import Settings


class Failing:
    """The simulated backend, failing where ``fails(n)`` says for the n-th call (from 1)."""

    name = "failing"
    model = "simulated"

    def __init__(self, fails) -> None:
        self.inner, self.fails, self.calls, self.failed = SimulatedBackend(), fails, 0, 0

    async def complete(self, request: Request) -> Completion:
        self.calls += 1
        if self.fails(self.calls):
            self.failed += 1
            raise TransientError("502 bad gateway")
        return await self.inner.complete(request)

    async def check(self) -> Health:
        return Health(True, "failing")


def settings() -> Settings:
    s = Settings()
    s.roles.target.max_retries = 1
    return s


def test_a_backend_dying_mid_night_stops_it_as_an_outage(sample_project):
    project, tasks = sample_project
    backend = Failing(lambda n: n > 40)
    s = run_night(tasks, project, target=backend, settings=settings()).summary
    assert s.decision == "outage", s.reason
    assert "24 attempts in a row failed, after 40 answers" in s.reason
    assert (
        backend.failed <= 24 + settings().night.concurrency
    )  # the threshold, plus calls in flight


def test_a_backend_that_only_stumbles_never_trips(sample_project, fast_backoff):
    project, tasks = sample_project
    backend = Failing(lambda n: n % 3 == 0)
    s = run_night(tasks, project, target=backend, settings=settings()).summary
    assert s.decision in ("accept", "reject", "no_evidence") and backend.failed > 50
