"""What the schedule commands share: the projects and their settings, the cron expression, the
flags a job carries, the host the OS scheduler runs on."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path

from ..errors import UsageError
from ..paths import Paths
from ..schedule.plan import Host
from ..schedule.runner import SubprocessRunner
from ..schedule.timing import cron_from_time, validate_cron
from ..settings import Settings
from .common import backend_flags
from .context import Ctx


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
    home = Path(ctx.env.get("HOME") or ctx.env.get("USERPROFILE") or Path.home())
    uid = os.getuid() if hasattr(os, "getuid") else 0
    state_dir = (paths or ctx.paths).state_dir
    return Host(SubprocessRunner(ctx.env), ctx.env, home, state_dir, sys.platform, uid)


def when(t: datetime) -> str:
    return t.strftime("%a %Y-%m-%d %H:%M %Z").strip()
