"""Command: doctor — check every role's backend, the store, the plugins and the schedule."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import SleepError
from .common import add_backend_flags, add_project_flag, backend_flags
from .context import Ctx

if TYPE_CHECKING:
    pass


MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "skip": "skip"}


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("doctor", parents=[common], help="check backends, store, plugins, schedule")
    add_project_flag(p)
    add_backend_flags(p)
    p.set_defaults(func=doctor)


def doctor(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..doctor import DoctorInput, run_checks

    project = ctx.project(args.project)
    loaded = ctx.settings(project, backend_flags(args))
    findings = run_checks(DoctorInput(ctx.env, ctx.read_paths, loaded.settings, project))
    lines = []
    for f in findings:
        line = f"{MARK[f.status]}  {f.name}: {f.detail}"
        if f.fix and f.status in ("warn", "fail"):
            line += f"\n      fix: {f.fix}"
        lines.append(line)
    failed = [f for f in findings if f.status == "fail"]
    lines.append("all good" if not failed else f"{len(failed)} problem(s) to fix")
    ctx.emit({"ok": not failed, "checks": [f.__dict__ for f in findings]}, "\n".join(lines))
    return SleepError.exit_code if failed else 0  # the table's "a problem the output lists"
