"""A project's night from the store: the tasks, the backends, history, and the night's ending
handed to its recorder (the rows, the proposal staged under the project's lock, auto-adopt).

This is what ``run``, ``dry-run``, ``demo`` and the scheduled job all call; the night itself is built
in :mod:`.root`, as the library's ``run_night`` builds it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from ..backends.base import ROLES, check_logins, close_all
from ..clock import Clock
from ..lock import project_lock
from ..models import TaskRecord
from ..optimize.seams import Gate
from ..optimize.seeds import NightSeeds
from ..optimize.select import select_tasks
from ..optimize.waiting import load_waiting, still_staged_notes
from ..paths import Paths
from ..review import ledger
from ..review.adopt import locks_dir, recover
from ..review.confirmed_adopt import auto_adopt_confirmed
from ..review.ledger import AdoptedRule
from ..review.outcome import acts_on
from ..review.rule_views import ignored_notes, project_views
from ..rollouts.agent_dispatch import AgentReplays
from ..rules.workspace import load_workspace, project_sources
from ..settings import Settings
from ..store import Store
from .estimate import Estimate, estimate_night
from .pipeline import Backends, Night, NightPlan, Progress, Stages, Watch, new_night_id
from .recorder import NightResult
from .removals import propose_removals
from .retest import retest
from .root import batched_backends, build_backends, build_night


def _history(store: Store, project: str) -> tuple[datetime | None, int]:
    """When the project's last real night ran, and how many it had. A dry run or an outage
    (nothing answered) does not count: its tasks are still waiting, still new."""
    nights = [
        n
        for n in store.nights(project=project, limit=1000)
        if not n.summary.dry_run and n.summary.decision != "outage"
    ]
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
    gate: Gate | None = None,
    agents: AgentReplays | None = None,
    stages: Stages | None = None,
    watch: Watch | None = None,
) -> NightResult:
    """Run tonight for ``project``; stage a proposal if the gate accepts (unless ``dry_run``).

    ``gate`` decides which edits pass (None: the product's evidence gate; benchmarks pass the gates
    they compare with); ``stages`` replaces the night's stages (a benchmark's baseline); ``watch``
    is handed the night's budget as it starts (the heartbeat follows what it spends). An
    adoption cut short is repaired first, so the night reads whole files, never half of one.
    """
    recover(store, paths, clock, project=str(project))
    check_logins([backends.target, backends.optimizer, backends.judge])  # seconds, not a night
    tasks = project_tasks(store, project) if tasks is None else tasks
    last_night, index = _history(store, str(project))
    night_id = new_night_id(store, paths, project, clock)
    directory = paths.night_dir(night_id)
    tried = store.rejected_edits(str(project))
    refused = {e.key() for e in tried}
    plan = NightPlan(
        settings,
        project,
        backends,
        clock,
        store=store,
        night_id=night_id,
        artifacts=directory / "artifacts",
        progress=progress,
        night_index=index,
        tried=tried,
        ledger=store.edit_evidence(str(project)),
        waiting=tuple(w for w in load_waiting(store, str(project)) if w.edit.key() not in refused),
        gate=gate,
        stages=stages,
        watch=watch,
        agents=agents,
    )
    with _whole_or_nothing(store, night_id, directory, backends):
        return _run(plan, store, paths, dry_run, tasks, last_night)


@contextmanager
def _whole_or_nothing(
    store: Store, night_id: str, directory: Path, backends: Backends
) -> Iterator[None]:
    """A night cut short (a signal, an error) leaves no half night directory (no orphan
    ``reflection.json``); every exit releases what the backends keep on disk."""
    try:
        yield
    except BaseException:
        if store.night(night_id) is None:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    finally:
        close_all([backends.target, backends.optimizer, backends.judge])


def _run(
    plan: NightPlan,
    store: Store,
    paths: Paths,
    dry_run: bool,
    tasks: list[TaskRecord],
    last_night: datetime | None,
) -> NightResult:
    project, settings = plan.project, plan.settings
    views = project_views(
        store, str(project)
    )  # adopted rules: which are ignored, contradicted, to re-test
    plan = replace(plan, ignored=tuple(ignored_notes(views)))
    with project_lock(locks_dir(paths), project):  # never half of an adoption under way
        night = build_night(plan, tasks)
    pending = [v.rule for v in views if v.rule.retest_model and v.standing != "removed by hand"]
    result = asyncio.run(_retests_then_night(night, store, pending, tasks, last_night))
    record = night.record
    record.revise(
        propose_removals(result, [v for v in views if v.outcome.verdict == "contradicted"])
    )
    summary, night_id = record.summary, record.summary.night_id
    summary.notes += still_staged_notes(store, plan.waiting, summary)
    record.keep(store, dry_run=dry_run)
    if dry_run or not record.proposes:
        return record.result
    with project_lock(locks_dir(paths), project):  # ordered with adopt and rollback
        record.stage(store, paths.night_dir(night_id))
        if settings.night.auto_adopt:  # never an unconfirmed edit
            auto_adopt_confirmed(store, paths, night_id, plan.clock, settings.files)
    return record.result


RETEST_TASKS = 8  # tasks of its kind a re-test replays (with and without the rule, K each)


async def _retests_then_night(
    night: Night,
    store: Store,
    pending: list[AdoptedRule],
    tasks: list[TaskRecord],
    last_night: datetime | None,
) -> NightResult:
    """Re-test the adopted rules whose user moved to another model (their efficacy only), then run
    the night, in one event loop and under one budget."""
    for rule in pending:
        made_for = [t for t in tasks if t.id in rule.task_ids]
        made_for += [t for t in tasks if t not in made_for and t.checks and acts_on(rule, t)]
        made_for = made_for[:RETEST_TASKS]
        done = await retest(
            night.replayer,
            night.replayer.target,
            rule,
            made_for,
            dict(night.ws.texts),
            night.s.night.k,
        )
        ledger.save(store, done)
        night.summary.notes.append(f"rule {rule.id} re-tested: {done.retest_note}")
    return await night.run(tasks, last_night)


def estimate_project_night(
    *,
    project: Path,
    settings: Settings,
    store: Store,
    backends: Backends,
    tasks: list[TaskRecord] | None = None,
    agents: AgentReplays | None = None,
) -> Estimate:
    tasks = project_tasks(store, project) if tasks is None else tasks
    last_night, index = _history(store, str(project))
    sel = select_tasks(
        tasks, settings.night, NightSeeds.of(settings.night.seed, index).select, last_night
    )
    return estimate_night(
        sel,
        load_workspace(project, settings.files, project_sources(store, project)),
        settings,
        backends.target,
        store,
        night_index=index,
        agents=agents,
    )


__all__ = [
    "ROLES",
    "Backends",
    "batched_backends",
    "build_backends",
    "estimate_project_night",
    "run_project_night",
]
