"""The installation's own copy of an agent's plugin folder (``<data>/plugins/<agent>``).

Agents are pointed at this copy, not at the checkout, so a plugin keeps working when the
checkout moves or is deleted; the launcher link inside it is replaced by the launcher itself
(a checkout without symlinks, Git on Windows, holds only the link's text).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .claude import LAUNCHER
from .context import Ctx


def stage_plugin(ctx: Ctx, source: Path, agent: str) -> Path:
    """Copy ``plugins/<agent>`` of the checkout into the installation; returns the copy."""
    src = source / "plugins" / agent
    dest = ctx.layout.own_dir / "plugins" / agent
    if ctx.dry:
        ctx.say(f"would copy: {src} -> {dest}")
        return dest
    ctx.make_dirs(dest.parent)
    ctx.say(f"+ copy {src} -> {dest}")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, symlinks=True)
    launcher = dest / "bin" / "skillopt-sleep"
    if launcher.is_symlink() or launcher.exists():
        launcher.unlink()
        shutil.copy2(source / LAUNCHER, launcher)
    if not ctx.manifest.has("plugin-copy", str(dest)):
        ctx.manifest.add("plugin-copy", dest)
    return dest
