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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..backends.base import Backend
from ..backends.batching import batching
from ..backends.registry import create_backend
from ..checks.judge import RubricJudge
from ..clock import Clock, SystemClock
from ..models import Edit, TaskRecord, WaitingEdit
from ..optimize.seams import Gate
from ..optimize.seeds import NightSeeds
from ..rollouts.agent_dispatch import AgentReplays
from ..rules.workspace import load_workspace, project_sources
from ..settings import RoleSettings, Settings
from ..store import Store
from .pipeline import Night, NightResult, Progress, Stages, Watch, night_id_for


@dataclass(frozen=True)
class Backends:
    """The backend of each role (one backend may serve several)."""

    target: Backend
    optimizer: Backend
    judge: Backend


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


@dataclass(frozen=True)
class NightPlan:
    """Everything a night is built from: one settings object, the backends, and its place in the
    project's history (``night_index`` nights before it, ``tried`` edits refused for good,
    ``ledger`` evidence carried by edit key). ``rubric`` replaces the judge backend for rubric
    checks; ``gate`` decides which edits pass (None: the product's evidence gate); ``stages`` replaces
    the night's stages (a benchmark's baseline); ``watch`` follows what the night spends."""

    settings: Settings
    project: Path
    backends: Backends
    clock: Clock
    store: Store | None = None
    night_id: str | None = None  # None: from the project and the clock
    artifacts: Path | None = None
    progress: Progress | None = None
    night_index: int = 0
    tried: Sequence[Edit] = ()
    ledger: Mapping[str, float] = field(default_factory=dict)
    rubric: RubricJudge | None = None
    gate: Gate | None = None
    stages: Stages | None = None  # None: the product's edit-by-edit stages
    watch: Watch | None = None  # handed the night's budget as it starts (the heartbeat)
    ignored: Sequence[str] = ()  # adopted rules the agent does not follow: cases for the optimizer
    agents: AgentReplays | None = None  # replays tasks with action checks through the real agent
    waiting: Sequence[WaitingEdit] = ()  # unconfirmed edits of earlier nights, retested first


def build_night(plan: NightPlan) -> Night:
    """The night ``plan`` describes, ready to :meth:`~.pipeline.Night.run`."""
    s, backends = plan.settings, plan.backends
    if s.night.batch:
        backends = batched_backends(backends, plan.store, s.night.batch_poll_s)
    return Night(
        s,
        load_workspace(plan.project, s.files, project_sources(plan.store, plan.project)),
        target=backends.target,
        optimizer=backends.optimizer,
        judge=plan.rubric or backends.judge,
        store=plan.store,
        clock=plan.clock,
        seeds=NightSeeds.of(s.night.seed, plan.night_index),
        night_id=plan.night_id or night_id_for(plan.project, plan.clock),
        artifacts=plan.artifacts,
        progress=plan.progress,
        night_index=plan.night_index,
        tried=plan.tried,
        ledger=plan.ledger,
        gate=plan.gate,
        ignored=plan.ignored,
        agents=plan.agents,
        waiting=plan.waiting,
        stages=plan.stages,
        watch=plan.watch,
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
    return asyncio.run(build_night(plan).run(tasks, last_night))
