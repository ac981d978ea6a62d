"""OpenCode: its plugin, one JavaScript file copied into ``~/.config/opencode/plugins/``,
where OpenCode loads every file at start (no CLI step exists for a local plugin).

The file runs the launcher of the installation's own copy of ``plugins/opencode``
(``<data>/plugins/opencode/bin/skillopt-sleep``, :func:`.agent_diff.stage_plugin`), as every
other agent's plugin does: it runs the engine setup recorded, also when OpenCode starts without
the shell's PATH.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..plugin_places import NAME, opencode_home
from .agent_diff import recorded, stage_plugin
from .context import Ctx


def install_opencode(ctx: Ctx, source: Path) -> None:
    stage_plugin(ctx, source, "opencode")
    src = source / "plugins" / "opencode" / "plugins" / f"{NAME}.js"
    dest = opencode_home(ctx.env) / "plugins" / f"{NAME}.js"
    if ctx.dry:
        ctx.say(f"would copy: {src} -> {dest}")
        return

    def copy() -> None:
        ctx.say(f"+ copy {src} -> {dest}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)

    recorded(ctx, "opencode", opencode_home(ctx.env), copy)
