"""Where a night is built: every way a night starts (``run``, ``dry-run``, ``demo``, the schedule, the
library's :func:`run_night`) comes through :func:`build_night`, so each gets the same backends,
budget, seeding and collaborators from one :class:`NightPlan`.

The library entry point::

    from skillopt_sleep import run_night
    result = run_night(tasks, "/path/to/project", target=my_backend, judge=my_rubric_judge)
    print(result.summary.decision, result.summary.tally.line())
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..backends.base import Backend
from ..backends.batching import batching
from ..backends.budget import unpriced_cap
from ..backends.registry import create_backend
from ..checks.judge import RubricJudge
from ..clock import Clock, SystemClock
from ..models import Edit, TaskRecord
from ..optimize.seams import Gate
from ..rollouts.agent_dispatch import AgentReplays
from ..rules.workspace import load_workspace, project_sources
from ..settings import RoleSettings, Settings
from ..store import Store
from .pipeline import Backends, Night, NightPlan, Progress
from .recorder import NightResult


def build_backends(settings: Settings, env: Mapping[str, str]) -> Backends:
    """One backend per distinct role setting (one backend may serve all three roles)."""
    made: dict[str, Backend] = {}

    def get(role: RoleSettings) -> Backend:
        key = role.model_dump_json()
        if key not in made:
            made[key] = create_backend(role, env)
        return made[key]

    r = settings.roles
    return Backends(get(r.target), get(r.optimizer), get(r.judge))


def batched_backends(backends: Backends, store: Store | None, poll_s: float) -> Backends:
    """The same backends sending through their provider's batch API where it has one (one
    wrapper per distinct backend, so roles served by one backend share its batches)."""
    made: dict[int, Backend] = {}

    def wrap(backend: Backend) -> Backend:
        if id(backend) not in made:
            made[id(backend)] = batching(backend, store, poll_s=poll_s)
        return made[id(backend)]

    return Backends(wrap(backends.target), wrap(backends.optimizer), wrap(backends.judge))


def build_night(plan: NightPlan, tasks: Sequence[TaskRecord] = ()) -> Night:
    """The night ``plan`` describes, ready to :meth:`~.pipeline.Night.run`: its backends batched
    where the settings ask, and the project's files read. A ``max_cost_usd`` the user set while a
    role's model, or the model an agent would replay some of ``tasks`` on, has no price is refused
    here (``ConfigError``), before anything is spent."""
    s = plan.settings
    b = plan.backends
    models = [b.target.model, b.optimizer.model, b.judge.model]
    if plan.agents is not None:
        models += plan.agents.models(tasks).values()
    refused = unpriced_cap(s.budget, models)
    if refused is not None:  # before any call: a money cap the night could not hold
        raise refused
    if s.night.batch:
        plan = replace(
            plan, backends=batched_backends(plan.backends, plan.store, s.night.batch_poll_s)
        )
    return Night(
        plan, load_workspace(plan.project, s.files, project_sources(plan.store, plan.project))
    )


def run_night(
    tasks: Sequence[TaskRecord],
    project: str | Path,
    *,
    target: Backend,
    optimizer: Backend | None = None,
    judge: Backend | RubricJudge | None = None,
    settings: Settings | None = None,
    store: Store | None = None,
    artifacts_dir: str | Path | None = None,
    clock: Clock | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    night_index: int = 0,
    tried: Sequence[Edit] = (),
    last_night: Any = None,
    ledger: Mapping[str, float] | None = None,
    gate: Gate | None = None,
    agents: AgentReplays | None = None,
) -> NightResult:
    """Run one night over ``tasks`` for the project at ``project``; stages nothing.

    ``judge`` scores rubric checks: a Backend, or your own ``async (rubric, task, answer) ->
    (score, reason)``. Artifacts (rollouts, reflection, candidate, evidence) go to ``artifacts_dir``.
    Pass a ``store`` to cache rollouts: rerunning an interrupted night resumes from it.
    ``seed`` overrides ``settings.night.seed``. ``tried`` (edits refused conclusively before) and
    ``ledger`` (evidence carried from earlier nights, by edit key) come from earlier nights'
    results. ``gate`` decides which edits pass (None: the product's evidence gate; a benchmark
    passes the gate it compares with). ``agents`` replays tasks with action checks through the real agent.
    """
    settings = settings or Settings()
    if seed is not None:
        settings = settings.model_copy(
            update={"night": settings.night.model_copy(update={"seed": seed})}
        )
    judge_backend = judge if isinstance(judge, Backend) else target
    plan = NightPlan(
        settings,
        Path(project).resolve(),
        Backends(target, optimizer or target, judge_backend),
        clock or SystemClock(),
        store=store,
        artifacts=Path(artifacts_dir) if artifacts_dir is not None else None,
        progress=progress,
        night_index=night_index,
        tried=tried,
        ledger=ledger or {},
        rubric=None if judge is None or isinstance(judge, Backend) else judge,
        gate=gate,
        agents=agents,
    )
    return asyncio.run(build_night(plan, tasks).run(tasks, last_night))


__all__ = [
    "Backends",
    "NightPlan",
    "batched_backends",
    "build_backends",
    "build_night",
    "run_night",
]
