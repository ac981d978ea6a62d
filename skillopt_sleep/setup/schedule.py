"""The nightly schedule, installed through the engine's own `schedule` command. A schedule that
cannot be installed (no backend yet, no scheduler) is skipped with the reason, never a failed
install: the rest works, and `skillopt-sleep schedule` can be run once the reason is fixed."""

from __future__ import annotations

import sys
from pathlib import Path

from .context import Ctx
from .layout import NAME, engine_dirs
from .tree import missing_dirs, remove_deepest_first


def want_schedule(ctx: Ctx, choice: str, *, yes: bool, interactive: bool) -> bool:
    """``choice`` is yes, no or ask; asking happens only on a terminal, never under a dry run."""
    if choice != "ask":
        return choice == "yes"
    if yes or ctx.dry or not interactive:
        return False
    ctx.out.write("Schedule the nightly run now? [y/N] ")
    ctx.out.flush()
    return sys.stdin.readline().strip().lower().startswith("y")


def install_schedule(ctx: Ctx, engine: Path | None, wanted: bool) -> str:
    """Returns how it went, for the closing line: installed, kept, skipped or not asked."""
    if ctx.manifest.has("schedule", "yes"):
        ctx.say(f"schedule: already installed (see: {NAME} schedule status)")
        return "kept"
    if not wanted:
        ctx.say(f"schedule: not installed; run '{NAME} schedule' when you want the nightly run")
        return "not asked"
    if ctx.dry:
        ctx.say(f"would run: {engine or NAME} schedule")
        return "would install"
    if engine is None:
        ctx.say(f"schedule: skipped: no engine command found; run '{NAME} schedule' yourself")
        return "skipped"
    fresh = [
        d for p in engine_dirs(ctx.layout, ctx.env, sys.platform).values() for d in missing_dirs(p)
    ]
    done = ctx.run([engine, "schedule"], timeout=120)
    if not done.ok:
        # What the failed command created is ours to take away again (empty directories).
        remove_deepest_first({d for d in fresh if d.is_dir()})  # rmdir: only when empty
        ctx.say(f"schedule: skipped: {done.last_line()}")
        ctx.say(f"  the rest is installed; run '{NAME} schedule' once that is fixed")
        return "skipped"
    ctx.manifest.add("schedule", "yes", engine)
    return "installed"
