"""Copilot CLI: its Claude-format plugin (a ``sessionEnd`` hook), installed with
``copilot plugin install <our copy>``.

Through the CLI, not a file copy: Copilot loads a plugin only once it is listed in its own
``config.json``, a file it marks "managed automatically"; the CLI copies the folder into
``~/.copilot/installed-plugins/_direct/`` and lists it there. What the call changed is recorded
(:mod:`.agent_diff`), so uninstall reverts it offline; so is the cache it unpacks itself into
(``~/.cache/copilot``) when it was not there before.
"""

from __future__ import annotations

from pathlib import Path

from ..plugin_places import NAME, copilot_cache, copilot_home
from .agent_diff import recorded_run, stage_plugin
from .context import Ctx

# Installing a local folder needs no account or network: no telemetry, no update check.
QUIET = {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false", "NO_COLOR": "1"}
UNINSTALL = ("copilot", "plugin", "uninstall", NAME)


def install_copilot(ctx: Ctx, source: Path) -> None:
    plugin = stage_plugin(ctx, source, "copilot")
    argv = ["copilot", "plugin", "install", str(plugin)]
    if ctx.dry:
        ctx.say(f"would run: {' '.join(argv)}")
        return
    recorded_run(
        ctx,
        "copilot",
        copilot_home(ctx.env),
        argv,
        "copilot plugin install",
        env={**ctx.env, **QUIET},
        caches=(copilot_cache(ctx.env),),
    )
