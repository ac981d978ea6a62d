"""Commands: schedule status, schedule run (the built-in loop) and schedule run-job (what the
installed job runs); and what they share with ``schedule`` and ``unschedule``: the projects and
their settings, the cron expression, the flags a job carries, the host the OS scheduler runs on."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..paths import Paths
from .common import backend_flags
from .context import Ctx

if TYPE_CHECKING:
    from ..schedule.job import JobDeps, JobResult
    from ..schedule.plan import Host
    from ..settings import Settings


# -- shared with schedule and unschedule ---------------------------------------------------


def projects_and_settings(args: argparse.Namespace, ctx: Ctx) -> tuple[list[Path], list[Settings]]:
    base = ctx.settings(None, backend_flags(args)).settings
    given = args.project or base.schedule.projects or [str(ctx.cwd)]
    projects = list(dict.fromkeys(ctx.project(p) for p in given))
    for project in projects:
        if not project.is_dir():
            raise UsageError(
                f"no such project directory: {project}", hint="pass an existing --project DIR"
            )
    return projects, [ctx.settings(p, backend_flags(args)).settings for p in projects]


def cron_for(args: argparse.Namespace, settings: Settings) -> str:
    from ..schedule.timing import cron_from_time, validate_cron

    if getattr(args, "time", None):
        return cron_from_time(args.time)
    return validate_cron(getattr(args, "at", None) or settings.schedule.cron)


def run_flags(args: argparse.Namespace, backend: str | None = None) -> list[str]:
    flags: list[str] = []
    for flag, value in (
        ("--backend", backend or args.backend),
        ("--model", args.model),
        ("--base-url", args.base_url),
    ):
        if value:
            flags += [flag, value]
    return flags


def host_for(ctx: Ctx, paths: Paths | None = None) -> Host:
    from ..schedule.plan import Host
    from ..schedule.runner import SubprocessRunner

    home = Path(ctx.env.get("HOME") or ctx.env.get("USERPROFILE") or Path.home())
    uid = os.getuid() if hasattr(os, "getuid") else 0
    state_dir = (paths or ctx.paths).state_dir
    return Host(SubprocessRunner(ctx.env), ctx.env, home, state_dir, sys.platform, uid)


def when(t: datetime) -> str:
    return t.strftime("%a %Y-%m-%d %H:%M %Z").strip()


# -- schedule status -----------------------------------------------------------------------


def schedule_status(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..schedule.overview import overview
    from ..schedule.timing import local_timezone

    tz = local_timezone(ctx.env)
    view = overview(ctx.store, host_for(ctx), ctx.clock.now(), tz)
    lines: list[str] = []
    if view.method is None:
        lines.append(
            "no night is scheduled: run `skillopt-sleep schedule` "
            "(or `skillopt-sleep schedule run` for the built-in loop)"
        )
    else:
        how = (
            f"built-in loop (pid {view.loop.pid})"
            if view.installation is None and view.loop
            else view.method
        )
        projects = view.installation.projects if view.installation else view.loop.projects  # type: ignore[union-attr]
        lines += [f"scheduled: {how}, {view.description}", "projects: " + ", ".join(projects)]
        if view.next_runs:
            lines.append("next runs: " + ", ".join(when(t) for t in view.next_runs))
    if view.problem:
        lines.append(f"problem: {view.problem}")
    last = view.last_run
    if last is None:
        lines.append("last run: none yet")
    else:
        result = last.status + (f": {last.message}" if last.message else "")
        lines.append(f"last run: {when(last.started_at.astimezone(tz))} ({last.trigger}), {result}")
        lines += [
            f"  {p.project}: {p.status}"
            + (f", {p.decision}" if p.decision else "")
            + (f" ({p.message})" if p.message else "")
            for p in last.projects
        ]
        if last.log_file:
            lines.append(f"  log: {last.log_file}")
    if view.notices:
        lines.append(f"{len(view.notices)} unseen failure notice(s):")
        lines += [f"  {n.created_at[:16].replace('T', ' ')}  {n.message}" for n in view.notices]
        if args.ack:
            ctx.store.mark_notices_seen(n.id for n in view.notices)
            lines.append("marked as seen")
        else:
            lines.append("dismiss with `skillopt-sleep schedule status --ack`")
    ctx.emit(view.as_json(), "\n".join(lines))
    return 0


# -- schedule run / run-job ----------------------------------------------------------------


def job_ctx(ctx: Ctx, pairs: Sequence[str]) -> Ctx:
    """A context whose environment adds ``--env`` pairs and the 0600 env file's secrets (the
    process's own environment wins over the file: it is the newer word)."""
    from ..schedule.envfile import read_env_file

    extra: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(
                f"--env {pair!r} is not KEY=VALUE", hint="schedule again to rewrite the job"
            )
        extra[key] = value
    base = dataclasses.replace(ctx, env={**ctx.env, **extra})
    secrets = read_env_file(base.paths.env_file)
    return dataclasses.replace(base, env={**secrets, **base.env})


def _deps(args: argparse.Namespace, ctx: Ctx, stop: threading.Event | None) -> JobDeps:
    from ..harvest.agents import names
    from ..schedule.job import JobDeps
    from ..schedule.jobspec import resolve_python
    from ..schedule.nightrun import subprocess_night
    from ..settings import load_settings, settings_layers

    flags = backend_flags(args)
    expect = getattr(args, "expect_config", None)

    def settings_for(project: Path) -> Settings:
        layers = settings_layers(
            config_file=ctx.paths.config_file,
            project=project,
            env=ctx.env,
            flags=flags,
            cwd=ctx.cwd,
        )
        return load_settings(layers, agents=names()).settings

    return JobDeps(
        store=ctx.store,
        paths=ctx.paths,
        clock=ctx.clock,
        env=ctx.env,
        settings_for=settings_for,
        night=subprocess_night(resolve_python(ctx.env), stop=stop),
        flags=run_flags(args),
        expect_config=Path(expect) if expect else None,
    )


def _report(ctx: Ctx, result: JobResult) -> None:
    record = result.record
    lines = [
        f"{record.trigger} run: {record.status}"
        + (f" ({record.message})" if record.message else "")
    ]
    lines += [
        f"  {p.project}: {p.status}"
        + (f", {p.decision}" if p.decision else "")
        + (f" ({p.message})" if p.message and p.status == "ok" else "")
        for p in record.projects
    ]
    lines.append(f"log: {record.log_file}")
    ctx.emit(record, "\n".join(lines))


def schedule_run_job(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..schedule.job import run_job

    ctx = job_ctx(ctx, args.env)
    projects = [ctx.project(p) for p in args.project] or [ctx.cwd]
    result = run_job(projects, _deps(args, ctx, None), trigger="scheduled")
    _report(ctx, result)
    return result.exit_code


def schedule_loop(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..schedule.envfile import too_open
    from ..schedule.job import run_job
    from ..schedule.loop import StoppableClock, run_loop, stop_on_signals
    from ..schedule.state import LOOP_KEY, LoopRecord, load_installation, load_last_run, save
    from ..schedule.timing import describe, local_timezone, zone_name

    ctx = job_ctx(ctx, [])
    projects, loaded = projects_and_settings(args, ctx)
    if too_open(ctx.paths.env_file):
        ctx.say(f"warning: {ctx.paths.env_file} is readable by others: chmod 600 it")
    if args.once:
        result = run_job(projects, _deps(args, ctx, None), trigger="once")
        _report(ctx, result)
        return result.exit_code
    installed = load_installation(ctx.store)
    if installed is not None:
        raise UsageError(
            f"a night is already scheduled with {installed.method}",
            hint="run `skillopt-sleep unschedule` first, or let that schedule run the nights",
        )
    cron, tz = cron_for(args, loaded[0]), local_timezone(ctx.env)
    stop = threading.Event()
    ctx = dataclasses.replace(ctx, clock=StoppableClock(stop))
    deps = _deps(args, ctx, stop)
    last = load_last_run(ctx.store)
    save(
        ctx.store,
        LOOP_KEY,
        LoopRecord(
            pid=os.getpid(),
            cron=cron,
            timezone=zone_name(tz),
            projects=[str(p) for p in projects],
            started_at=ctx.clock.now(),
        ),
    )
    ctx.say(f"skillopt-sleep loop: {describe(cron, tz)}, projects: {', '.join(map(str, projects))}")

    def night(slot: datetime, missed: int) -> None:
        result = run_job(projects, deps, trigger="loop")
        ctx.say(f"night for {when(slot)}: {result.record.status} (log: {result.record.log_file})")

    try:
        with stop_on_signals(stop) as received:
            run_loop(
                cron,
                tz,
                ctx.clock,
                stop,
                night,
                last_done=last.started_at if last else None,
                say=ctx.say,
            )
    finally:
        save(ctx.store, LOOP_KEY, None)
    ctx.say(f"skillopt-sleep loop: stopped ({', '.join(received) or 'done'})")
    return 0
