"""Commands: schedule (install, status, run, run-job) and unschedule."""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..backends.registry import detect_backend
from ..errors import ScheduleError, SleepError, UsageError
from ..paths import Paths
from ..pids import pid_alive
from ..schedule.envfile import read_env_file, too_open
from ..schedule.install import Request, apply, prepare, remove
from ..schedule.job import JobDeps, JobResult, run_job
from ..schedule.jobspec import (
    instance_name,
    needs_pythonpath,
    package_root,
    resolve_python,
    secret_names,
)
from ..schedule.loop import StoppableClock, run_loop, stop_on_signals
from ..schedule.nightrun import subprocess_night
from ..schedule.overview import overview
from ..schedule.plan import METHODS, Host
from ..schedule.runner import SubprocessRunner
from ..schedule.state import LOOP_KEY, LoopRecord, load_installation, load_last_run, load_loop, save
from ..schedule.timing import cron_from_time, describe, local_timezone, validate_cron, zone_name
from ..settings import Settings, load_settings, settings_layers
from .common import add_backend_flags, backend_flags
from .context import Ctx


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "schedule", parents=[common], help="run a night every night with the OS scheduler"
    )
    _when_flags(p)
    _project_flags(p)
    add_backend_flags(p)
    p.add_argument(
        "--method", choices=METHODS, help="OS scheduler to use (default: the best available)"
    )
    p.add_argument(
        "--print",
        dest="print_only",
        action="store_true",
        help="show what would be installed and change nothing",
    )
    p.set_defaults(func=schedule_install)
    ss = p.add_subparsers(dest="schedule_command", metavar="SUBCOMMAND", parser_class=type(p))
    st = ss.add_parser("status", parents=[common], help="method, next runs, last result, notices")
    st.add_argument("--ack", action="store_true", help="mark the failure notices shown as seen")
    st.set_defaults(func=schedule_status)
    rn = ss.add_parser("run", parents=[common], help="built-in loop: sleep, run the night, repeat")
    _when_flags(rn)
    _project_flags(rn)
    add_backend_flags(rn)
    rn.add_argument("--once", action="store_true", help="run one night now and exit")
    rn.set_defaults(func=schedule_loop)
    rj = ss.add_parser("run-job", parents=[common], help="what the installed job runs (internal)")
    _project_flags(rj)
    add_backend_flags(rj)
    rj.add_argument("--expect-config", metavar="FILE", help=argparse.SUPPRESS)
    rj.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE", help=argparse.SUPPRESS
    )
    rj.set_defaults(func=schedule_run_job)
    un = sub.add_parser(
        "unschedule", parents=[common], help="remove the nightly run `schedule` installed"
    )
    un.set_defaults(func=unschedule)


def _when_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--at", metavar="CRON", help="cron expression, e.g. '17 3 * * *' (local time)")
    g.add_argument("--time", metavar="HH:MM", help="every day at this local time")


def _project_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--project",
        "-p",
        action="append",
        default=[],
        metavar="DIR",
        help="project to run the night for (repeatable; default: current directory)",
    )


# -- schedule ------------------------------------------------------------------------------


def schedule_install(args: argparse.Namespace, ctx: Ctx) -> int:
    projects, loaded = _projects_and_settings(args, ctx)
    cron = _cron(args, loaded[0])
    # --print changes nothing and creates nothing, not even the data directories.
    paths = ctx.read_paths if args.print_only else ctx.paths
    flags, backends = _pinned_flags(args, loaded, ctx)
    request = Request(
        projects,
        cron,
        args.method or loaded[0].schedule.method,
        flags,
        secret_names(loaded, backends),
    )
    host, tz, now = _host(ctx, paths), local_timezone(ctx.env), ctx.clock.now()
    root = package_root()
    try:
        prepared = prepare(
            request,
            name=instance_name(ctx.env, paths),
            env=ctx.env,
            paths=paths,
            host=host,
            now=now,
            tz=tz,
            python=resolve_python(ctx.env),
            root=root if needs_pythonpath(root) else None,
            only_render=args.print_only,
        )
    except ScheduleError as exc:
        if not (args.print_only and request.method == "auto"):
            raise
        # A preview answers its question: here, nothing could be installed, and what to do instead.
        ctx.emit(
            {
                "method": None,
                "changed": False,
                "reason": exc.one_line(),
                "cron": cron,
                "projects": [str(p) for p in projects],
            },
            f"nothing would be scheduled: {exc.message}\n{exc.hint}\nnothing was changed (--print)",
        )
        return 0
    plan = prepared.plan
    payload = {
        "method": plan.method,
        "cron": cron,
        "description": describe(cron, tz),
        "timezone": zone_name(tz),
        "projects": [str(p) for p in projects],
        "next_runs": [t.isoformat() for t in prepared.next_runs],
        "job": {"argv": prepared.job.argv, "env": prepared.job.env_dict},
        "env_file": str(paths.env_file),
        "secrets_to_env_file": sorted(prepared.secrets),
        "plan": plan.as_json(),
        "changed": not args.print_only,
        "log_dir": str(paths.log_dir),
    }
    head = [
        f"method: {plan.method}, {describe(cron, tz)}",
        "projects: " + ", ".join(str(p) for p in projects),
        "next runs: " + ", ".join(_when(t) for t in prepared.next_runs),
    ]
    if prepared.secrets:
        head.append(
            f"keys kept in {paths.env_file} (mode 0600), not in the job: "
            + ", ".join(sorted(prepared.secrets))
        )
    if args.print_only:
        ctx.emit(
            payload,
            "\n".join(
                [
                    "would schedule a nightly run",
                    *head,
                    "",
                    plan.as_text(),
                    "",
                    "nothing was changed (--print)",
                ]
            ),
        )
        return 0
    apply(prepared, store=ctx.store, paths=paths, host=host, now=now, tz=tz)
    tail = [f"warning: {w}" for w in plan.warnings]
    tail += [
        f"logs: {paths.log_dir}",
        "check it with `skillopt-sleep schedule status`; remove it with `skillopt-sleep unschedule`",
    ]
    ctx.emit(payload, "\n".join(["scheduled a nightly run", *head, *tail]))
    return 0


def _projects_and_settings(args: argparse.Namespace, ctx: Ctx) -> tuple[list[Path], list[Settings]]:
    base = ctx.settings(None, backend_flags(args)).settings
    given = args.project or base.schedule.projects or [str(ctx.cwd)]
    projects = list(dict.fromkeys(ctx.project(p) for p in given))
    for project in projects:
        if not project.is_dir():
            raise UsageError(
                f"no such project directory: {project}", hint="pass an existing --project DIR"
            )
    return projects, [ctx.settings(p, backend_flags(args)).settings for p in projects]


def _cron(args: argparse.Namespace, settings: Settings) -> str:
    if getattr(args, "time", None):
        return cron_from_time(args.time)
    return validate_cron(getattr(args, "at", None) or settings.schedule.cron)


def _run_flags(args: argparse.Namespace, backend: str | None = None) -> list[str]:
    flags: list[str] = []
    for flag, value in (
        ("--backend", backend or args.backend),
        ("--model", args.model),
        ("--base-url", args.base_url),
    ):
        if value:
            flags += [flag, value]
    return flags


def _pinned_flags(
    args: argparse.Namespace, loaded: Sequence[Settings], ctx: Ctx
) -> tuple[list[str], list[str]]:
    """The flags the job carries, with the backend detected now pinned when none is configured:
    a night under cron must not quietly pick another backend than the one the user has now."""
    roles = [r for s in loaded for r in (s.roles.target, s.roles.optimizer, s.roles.judge)]
    names = {r.backend for r in roles}
    pinned = None
    if names == {None}:
        try:
            pinned = detect_backend(
                ctx.env, which=lambda name: shutil.which(name, path=ctx.env.get("PATH"))
            )
        except SleepError as exc:
            if not args.print_only:
                raise
            # A preview may come before the backend is set up; the real `schedule` refuses.
            ctx.err.write(
                f"skillopt-sleep: warning: {exc.one_line()}; the job would fail until "
                "a backend is set up\n"
            )
            return _run_flags(args), []
        names = {pinned}
    return _run_flags(args, pinned), sorted(n for n in names if n)


def _host(ctx: Ctx, paths: Paths | None = None) -> Host:
    home = Path(ctx.env.get("HOME") or ctx.env.get("USERPROFILE") or Path.home())
    uid = os.getuid() if hasattr(os, "getuid") else 0
    state_dir = (paths or ctx.paths).state_dir
    return Host(SubprocessRunner(ctx.env), ctx.env, home, state_dir, sys.platform, uid)


def _when(t: datetime) -> str:
    return t.strftime("%a %Y-%m-%d %H:%M %Z").strip()


# -- schedule status -----------------------------------------------------------------------


def schedule_status(args: argparse.Namespace, ctx: Ctx) -> int:
    tz = local_timezone(ctx.env)
    view = overview(ctx.store, _host(ctx), ctx.clock.now(), tz)
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
            lines.append("next runs: " + ", ".join(_when(t) for t in view.next_runs))
    if view.problem:
        lines.append(f"problem: {view.problem}")
    last = view.last_run
    if last is None:
        lines.append("last run: none yet")
    else:
        result = last.status + (f": {last.message}" if last.message else "")
        lines.append(
            f"last run: {_when(last.started_at.astimezone(tz))} ({last.trigger}), {result}"
        )
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


def _job_ctx(ctx: Ctx, pairs: Sequence[str]) -> Ctx:
    """A context whose environment adds ``--env`` pairs and the 0600 env file's secrets (the
    process's own environment wins over the file: it is the newer word)."""
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
    flags = backend_flags(args)
    expect = getattr(args, "expect_config", None)

    def settings_for(project: Path) -> Settings:
        layers = settings_layers(
            config_file=ctx.paths.config_file, project=project, env=ctx.env, flags=flags
        )
        return load_settings(layers).settings

    return JobDeps(
        store=ctx.store,
        paths=ctx.paths,
        clock=ctx.clock,
        env=ctx.env,
        settings_for=settings_for,
        night=subprocess_night(resolve_python(ctx.env), stop=stop),
        flags=_run_flags(args),
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
    ctx = _job_ctx(ctx, args.env)
    projects = [ctx.project(p) for p in args.project] or [ctx.cwd]
    result = run_job(projects, _deps(args, ctx, None), trigger="scheduled")
    _report(ctx, result)
    return result.exit_code


def schedule_loop(args: argparse.Namespace, ctx: Ctx) -> int:
    ctx = _job_ctx(ctx, [])
    projects, loaded = _projects_and_settings(args, ctx)
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
    cron, tz = _cron(args, loaded[0]), local_timezone(ctx.env)
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
        ctx.say(f"night for {_when(slot)}: {result.record.status} (log: {result.record.log_file})")

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


# -- unschedule ----------------------------------------------------------------------------


def unschedule(args: argparse.Namespace, ctx: Ctx) -> int:
    removed = remove(
        store=ctx.store, paths=ctx.paths, host=_host(ctx), name=instance_name(ctx.env, ctx.paths)
    )
    text = (
        "removed:\n" + "\n".join(f"  {r}" for r in removed) if removed else "nothing was scheduled"
    )
    loop = load_loop(ctx.store)
    if loop is not None and pid_alive(loop.pid):
        text += (
            f"\na built-in loop is still running (pid {loop.pid}): stop it with `kill {loop.pid}`"
        )
    ctx.emit(
        {"removed": removed, "loop_pid": loop.pid if loop and pid_alive(loop.pid) else None}, text
    )
    return 0
