"""Command: train stage DIR --project P (a run's best skill as a staged proposal)."""

from __future__ import annotations

import argparse
import shlex

from ..errors import UsageError
from .context import Ctx


def stage_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    if args.dir is None:
        raise UsageError(
            "train stage needs the run directory", hint="skillopt-sleep train stage DIR --project P"
        )
    if not args.project:
        # A run records no project: staging into the current directory would put the skill
        # wherever the command happened to be typed.
        raise UsageError(
            "train stage needs --project DIR: the project whose skill the run's best replaces",
            hint=f"skillopt-sleep train stage {shlex.quote(args.dir)} --project DIR",
        )
    project = ctx.project(args.project)
    if not project.is_dir():
        raise UsageError(f"no project directory {project}", hint="check the --project path")
    from ..train.stage import stage_run

    settings = ctx.settings(project).settings
    proposal = stage_run(
        ctx.cwd / args.dir,
        project,
        settings=settings,
        store=ctx.store,
        paths=ctx.paths,
        clock=ctx.clock,
    )
    if proposal is None:
        ctx.emit({"staged": None}, f"the run in {args.dir} accepted no edit: nothing to stage")
        return 0
    ctx.emit(
        proposal,
        f"staged {proposal.night_id} for {project}: review it with `skillopt-sleep review`, "
        "then `skillopt-sleep adopt`",
    )
    return 0
