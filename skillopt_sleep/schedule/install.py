"""``schedule`` and ``unschedule``: choose the OS scheduler, plan, install and remove the nightly
job, and keep the record of exactly what was installed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from ..errors import ScheduleError
from ..paths import Paths
from ..store import Store
from .crontab import CrontabInstaller
from .envfile import merge_env_file, remove_env_keys
from .jobspec import JobSpec, build_job
from .launchd import LaunchdInstaller
from .plan import METHODS, Host, Installer, Method, Plan
from .schtasks import SchtasksInstaller
from .state import INSTALLED_KEY, Installation, load_installation, save
from .systemd import SystemdInstaller
from .timing import next_runs, zone_name

# Best first: systemd and launchd catch up a night the machine slept through; cron does not.
PREFERENCE: tuple[Method, ...] = ("launchd", "schtasks", "systemd", "crontab")
LOOP_HINT = "run `skillopt-sleep schedule run` under tmux, a container entrypoint or a supervisor"


def installer(method: Method, host: Host) -> Installer:
    classes: dict[str, Callable[[Host], Installer]] = {
        "crontab": CrontabInstaller,
        "systemd": SystemdInstaller,
        "launchd": LaunchdInstaller,
        "schtasks": SchtasksInstaller,
    }
    return classes[method](host)


def choose(host: Host, wanted: str, *, only_render: bool = False) -> Installer:
    """The installer for ``wanted`` (a method name or ``auto``); a ScheduleError when unusable.

    ``only_render``: a named method is returned even where it cannot run, to show its files."""
    if wanted == "loop":
        raise ScheduleError(
            "the built-in loop is not installed into an OS scheduler", hint=LOOP_HINT
        )
    if wanted != "auto":
        if wanted not in METHODS:
            raise ScheduleError(
                f"unknown scheduling method {wanted!r}", hint=f"choose one of: {', '.join(METHODS)}"
            )
        chosen = installer(wanted, host)
        reason = None if only_render else chosen.unavailable()
        if reason:
            raise ScheduleError(
                f"cannot schedule with {wanted}: {reason}",
                hint="choose another --method, or " + LOOP_HINT,
            )
        return chosen
    reasons = []
    for method in PREFERENCE:
        candidate = installer(method, host)
        reason = candidate.unavailable()
        if reason is None:
            return candidate
        reasons.append(f"{method}: {reason}")
    raise ScheduleError(
        "no OS scheduler is usable here (" + "; ".join(reasons) + ")", hint=LOOP_HINT
    )


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
