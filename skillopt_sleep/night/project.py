"""A project's night from the store: the tasks, the backends, history, staging and records.

This is what ``run``, ``dry-run``, ``demo`` and the scheduled job all call; the night itself is built
in :mod:`.root`, as the library's ``run_night`` builds it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ..backends.base import ROLES
from ..clock import Clock
from ..models import NightSummary, TaskRecord
from ..paths import Paths
from ..review.adopt import auto_adopt, recover
from ..settings import Settings
from ..store import Store
from .estimate import Estimate, estimate_night
from .pipeline import Night, NightResult, Progress, night_id_for
from .root import Backends, NightPlan, batched_backends, build_backends, build_night
from .rounds import Oracle
from .seeds import NightSeeds
from .select import select_tasks
from .stage import stage
from .workspace import load_workspace


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
    directory = paths.night_dir(night_id)
    plan = NightPlan(settings, project, backends, clock, store=store, night_id=night_id,
                     artifacts=directory / "artifacts", progress=progress, night_index=index,
                     tried=store.rejected_edits(str(project)), ledger=store.edit_evidence(str(project)),
                     oracle=oracle, make_night=make_night)
    result = asyncio.run(build_night(plan).run(tasks, last_night))
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
    last_night, index = _history(store, str(project))
    sel = select_tasks(tasks, settings.night, NightSeeds.of(settings.night.seed, index).select, last_night)
    return estimate_night(sel, load_workspace(project, settings.files), settings, backends.target, store)


def summary_line(s: NightSummary) -> str:
    """One line for logs and notices."""
    edits = f" (edits {s.tally.line()})" if s.evidence else ""
    return f"night {s.night_id}: {s.decision}{edits} ({s.calls} calls, ${s.cost_usd:.4f}) {s.reason}".strip()


__all__ = ["ROLES", "Backends", "batched_backends", "build_backends", "estimate_project_night", "run_project_night",
           "summary_line"]
