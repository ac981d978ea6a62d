"""Commands: schedule (installs the nightly run) and unschedule; the other schedule subcommands are in
:mod:`.schedule_run_cmds`."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Sequence
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ScheduleError, SleepError
from ..lock import pid_alive
from ..paths import Paths
from .common import add_backend_flags
from .context import Ctx

if TYPE_CHECKING:
    from ..schedule.install import Prepared
    from ..settings import Settings


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    from ..schedule.plan import METHODS
    from .schedule_run_cmds import schedule_loop, schedule_run_job, schedule_status

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
    from ..schedule.install import Request, apply, prepare
    from ..schedule.jobspec import (
        instance_name,
        needs_pythonpath,
        package_root,
        resolve_python,
        secret_names,
    )
    from ..schedule.timing import local_timezone
    from .schedule_run_cmds import cron_for, host_for, projects_and_settings

    projects, loaded = projects_and_settings(args, ctx)
    cron = cron_for(args, loaded[0])
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
    host, tz, now = host_for(ctx, paths), local_timezone(ctx.env), ctx.clock.now()
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
        return _nothing_to_preview(ctx, exc, cron, projects)
    payload, head = _described(prepared, cron, tz, projects, paths, changed=not args.print_only)
    plan = prepared.plan
    if args.print_only:
        lines = ["would schedule a nightly run", *head, "", plan.as_text(), ""]
        ctx.emit(payload, "\n".join([*lines, "nothing was changed (--print)"]))
        return 0
    apply(prepared, store=ctx.store, paths=paths, host=host, now=now, tz=tz)
    tail = [f"warning: {w}" for w in plan.warnings]
    tail += [
        f"logs: {paths.log_dir}",
        "check it with `skillopt-sleep schedule status`; remove it with `skillopt-sleep unschedule`",
    ]
    ctx.emit(payload, "\n".join(["scheduled a nightly run", *head, *tail]))
    return 0


def _nothing_to_preview(ctx: Ctx, exc: ScheduleError, cron: str, projects: list[Path]) -> int:
    """A preview answers its question: here, nothing could be installed, and what to do instead."""
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


def _described(
    prepared: Prepared,
    cron: str,
    tz: tzinfo,
    projects: list[Path],
    paths: Paths,
    *,
    changed: bool,
) -> tuple[dict[str, Any], list[str]]:
    """What is (or would be) scheduled: the JSON payload and the head lines of the text."""
    from ..schedule.timing import describe, zone_name
    from .schedule_run_cmds import when

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
        "changed": changed,
        "log_dir": str(paths.log_dir),
    }
    head = [
        f"method: {plan.method}, {describe(cron, tz)}",
        "projects: " + ", ".join(str(p) for p in projects),
        "next runs: " + ", ".join(when(t) for t in prepared.next_runs),
    ]
    if prepared.secrets:
        head.append(
            f"keys kept in {paths.env_file} (mode 0600), not in the job: "
            + ", ".join(sorted(prepared.secrets))
        )
    return payload, head


def _pinned_flags(
    args: argparse.Namespace, loaded: Sequence[Settings], ctx: Ctx
) -> tuple[list[str], list[str]]:
    """The flags the job carries, with the backend detected now pinned when none is configured:
    a night under cron must not quietly pick another backend than the one the user has now."""
    from ..backends.registry import detect_backend
    from .schedule_run_cmds import run_flags

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
            return run_flags(args), []
        names = {pinned}
    return run_flags(args, pinned), sorted(n for n in names if n)


# -- unschedule ----------------------------------------------------------------------------


def unschedule(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..schedule.install import remove
    from ..schedule.jobspec import instance_name
    from ..schedule.state import load_loop
    from .schedule_run_cmds import host_for

    removed = remove(
        store=ctx.store, paths=ctx.paths, host=host_for(ctx), name=instance_name(ctx.env, ctx.paths)
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
