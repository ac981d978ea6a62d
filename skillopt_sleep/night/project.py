"""A project's night from the store: the tasks, the backends, history, staging and records.

This is what ``run``, ``dry-run``, ``demo`` and the scheduled job all call.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..backends.base import ROLES, Backend
from ..backends.batching import batching
from ..backends.registry import create_backend
from ..clock import Clock
from ..models import NightSummary, TaskRecord
from ..paths import Paths
from ..review.adopt import auto_adopt, recover
from ..settings import RoleSettings, Settings
from ..store import Store
from .estimate import Estimate, estimate_night
from .pipeline import Night, NightResult, Progress, night_id_for
from .rounds import Oracle
from .select import select_tasks
from .stage import stage
from .workspace import load_workspace


@dataclass(frozen=True)
class Backends:
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


def _history(store: Store, project: str) -> tuple[datetime | None, int]:
    """When the project's last real night ran, and how many it had. A dry run or an outage
    (nothing answered) does not count: its tasks are still waiting, still new."""
    nights = [n for n in store.nights(project=project, limit=1000)
              if not n.summary.dry_run and n.summary.decision != "outage"]
    last = datetime.fromisoformat(nights[0].started_at) if nights else None
    return last, len(nights)


def project_tasks(store: Store, project: Path) -> list[TaskRecord]:
    return store.list_tasks(project=str(project))


def run_project_night(
    *,
    project: Path,
    settings: Settings,
    store: Store,
    paths: Paths,
    backends: Backends,
    clock: Clock,
    dry_run: bool = False,
    progress: Progress | None = None,
    tasks: list[TaskRecord] | None = None,
    oracle: Oracle | None = None,
    make_night: Callable[..., Night] = Night,
) -> NightResult:
    """Run tonight for ``project``; stage a proposal if the gate accepts (unless ``dry_run``).

    ``oracle`` and ``make_night`` (benchmarks only) replace the statistical decision on each edit,
    or the night's whole gate (the benchmarks' baseline). An adoption cut short is repaired first,
    so the night reads whole files, never half of one.
    """
    recover(store, paths, clock)
    tasks = project_tasks(store, project) if tasks is None else tasks
    last_night, index = _history(store, str(project))
    night_id = night_id_for(project, clock)
    if settings.night.batch:
        backends = batched_backends(backends, store, settings.night.batch_poll_s)
    directory = paths.night_dir(night_id)
    night = make_night(
        settings, load_workspace(project, settings.files), target=backends.target,
        optimizer=backends.optimizer, judge=backends.judge, store=store, clock=clock,
        rng=random.Random(f"{settings.night.seed}:{night_id}"), night_id=night_id,
        artifacts=directory / "artifacts", progress=progress, night_index=index,
        tried=store.rejected_edits(str(project)), ledger=store.edit_evidence(str(project)), oracle=oracle,
    )
    result = asyncio.run(night.run(tasks, last_night))
    summary = result.summary
    summary.dry_run = dry_run
    if dry_run:
        store.save_night(summary, "dry-run")
        return result
    if summary.rejected_edits:
        store.add_rejected_edits(str(project), night_id, summary.rejected_edits)
    store.update_edit_evidence(str(project), night_id, result.ledger)
    if summary.decision == "accept" and result.candidate is not None:
        stage(directory, summary, result.workspace, result.candidate, store)
        if settings.night.auto_adopt:
            auto_adopt(store, paths, night_id, clock)
        return result
    store.save_night(summary, "none")
    return result


def estimate_project_night(*, project: Path, settings: Settings, store: Store, backends: Backends,
                           tasks: list[TaskRecord] | None = None) -> Estimate:
    tasks = project_tasks(store, project) if tasks is None else tasks
    last_night, _ = _history(store, str(project))
    sel = select_tasks(tasks, settings.night, random.Random(settings.night.seed), last_night)
    return estimate_night(sel, load_workspace(project, settings.files), settings, backends.target, store)


def summary_line(s: NightSummary) -> str:
    """One line for logs and notices."""
    edits = f" (edits {s.tally.line()})" if s.evidence else ""
    return f"night {s.night_id}: {s.decision}{edits} ({s.calls} calls, ${s.cost_usd:.4f}) {s.reason}".strip()


__all__ = ["ROLES", "Backends", "build_backends", "estimate_project_night", "run_project_night", "summary_line"]
