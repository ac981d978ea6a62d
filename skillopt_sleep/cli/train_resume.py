"""``train --resume --out DIR``: the run in DIR started again from what it recorded (its
configuration, its task set's path, its initial skill, its prompts), the flags given on top."""

from __future__ import annotations

import argparse
import json
import shlex

from ..errors import UsageError
from .context import Ctx

# the flags a run's config.json holds under the same name (the others: the backend's, below)
RECORDED = ("rigor", "backend", "model", "optimizer_model")


def resume_args(args: argparse.Namespace, ctx: Ctx, flags: tuple[str, ...]) -> dict[str, object]:
    """Fill ``args`` from the run in ``--out`` where the command line leaves them out; the run's
    recorded configuration, the base the flags given are laid over. A UsageError naming the fix
    when ``--out`` holds no run."""
    from ..train.rundir import RunDir

    if not args.out:
        raise UsageError(
            "train --resume needs --out DIR, the run to resume",
            hint="skillopt-sleep train --resume --out DIR",
        )
    run = RunDir(ctx.cwd / args.out)
    if not run.has_run():
        raise UsageError(
            f"no training run in {args.out} to resume",
            hint="start one with `skillopt-sleep train DATA --skill FILE --out "
            f"{shlex.quote(args.out)}`",
        )
    config, source = run.recorded()
    own = ":" in str(config.get("env", ""))
    if args.data is None and not own:
        if source is None or source.get("data") is None:
            raise UsageError(
                f"the run in {args.out} does not record where its task set is",
                hint="give DATA and --skill as when it started: skillopt-sleep train DATA "
                f"--skill FILE --out {shlex.quote(args.out)}",
            )
        args.data = source["data"]
    if args.skill is None and args.skill_text is None:
        args.skill_text = (run.path / "initial.md").read_text(encoding="utf-8")
    if args.prompts is None and source is not None and source.get("prompts"):
        args.prompts = source["prompts"]
    for name in (*flags, *RECORDED):
        if getattr(args, name) is None and config.get(name) not in (None, ""):
            setattr(args, name, config[name])
    if args.extras is None and config.get("extras"):
        args.extras = json.dumps(config["extras"])
    return config
