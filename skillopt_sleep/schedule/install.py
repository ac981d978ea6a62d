"""``schedule`` and ``unschedule``: plan, install and remove the nightly job, and keep the record
of exactly what was installed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from ..errors import ScheduleError
from ..paths import Paths
from ..store import Store
from .envfile import merge_env_file, remove_env_keys
from .jobspec import JobSpec, build_job
from .methods import choose, installer
from .plan import METHODS, Host, Installer, Plan
from .state import INSTALLED_KEY, Installation, load_installation, save
from .timing import next_runs, zone_name


@dataclass(frozen=True)
class Request:
    """What the user asked ``schedule`` for, resolved: projects, cron, method, carried flags."""

    projects: Sequence[Path]
    cron: str
    method: str
    flags: Sequence[str]
    secrets: Sequence[str]


@dataclass(frozen=True)
class Prepared:
    """A rendered schedule, not yet installed."""

    request: Request
    job: JobSpec
    plan: Plan
    installer: Installer
    secrets: Mapping[str, str]
    next_runs: list[datetime]


def prepare(
    request: Request,
    *,
    name: str,
    env: Mapping[str, str],
    paths: Paths,
    host: Host,
    now: datetime,
    tz: tzinfo,
    python: str,
    root: Path | None,
    only_render: bool = False,
) -> Prepared:
    chosen = choose(host, request.method, only_render=only_render)
    job, secrets = build_job(
        name=name,
        projects=request.projects,
        flags=request.flags,
        env=env,
        paths=paths,
        secrets=request.secrets,
        which=host.runner.which,
        python=python,
        root=root,
    )
    plan = chosen.plan(job, request.cron, now.astimezone(tz))
    return Prepared(request, job, plan, chosen, secrets, next_runs(request.cron, now, tz, 3))


def apply(
    prepared: Prepared, *, store: Store, paths: Paths, host: Host, now: datetime, tz: tzinfo
) -> Installation:
    """Install, replacing an earlier install (of any method) so only one schedule ever exists."""
    previous = load_installation(store)
    if previous is not None and (previous.method, previous.name) != (
        prepared.plan.method,
        prepared.plan.name,
    ):
        _uninstall_record(previous, host)
    created, written = False, list[str]()
    if prepared.secrets:
        created, written = merge_env_file(paths.env_file, dict(prepared.secrets))
    if previous is not None:
        created = created or previous.env_file_created
        written = sorted(set(written) | set(previous.secrets_written))
    prepared.installer.install(prepared.plan)
    record = Installation(
        method=prepared.plan.method,
        name=prepared.plan.name,
        cron=prepared.request.cron,
        timezone=zone_name(tz),
        projects=[str(p) for p in prepared.request.projects],
        installed_at=now,
        argv=prepared.job.argv,
        env_keys=[k for k, _ in prepared.job.env],
        files=[f.path for f in prepared.plan.files],
        secrets_written=written,
        env_file_created=created,
    )
    save(store, INSTALLED_KEY, record)
    return record


def remove(*, store: Store, paths: Paths, host: Host, name: str) -> list[str]:
    """Remove what ``schedule`` installed; with no record, any block/unit of this instance."""
    record = load_installation(store)
    removed: list[str] = []
    if record is not None:
        removed += _uninstall_record(record, host)
        if record.secrets_written:
            remove_env_keys(
                paths.env_file, record.secrets_written, delete_if_only_ours=record.env_file_created
            )
            removed.append(f"{', '.join(record.secrets_written)} from {paths.env_file}")
        save(store, INSTALLED_KEY, None)
        return removed
    for method in METHODS:
        candidate = installer(method, host)
        if candidate.unavailable() is None:
            removed += candidate.uninstall(name)
    return removed


def _uninstall_record(record: Installation, host: Host) -> list[str]:
    target = installer(record.method, host)
    reason = target.unavailable()
    if reason and record.method in ("crontab", "schtasks"):
        raise ScheduleError(
            f"cannot remove the {record.method} schedule: {reason}",
            hint="remove it by hand, then run `skillopt-sleep unschedule` again",
        )
    return target.uninstall(record.name)
