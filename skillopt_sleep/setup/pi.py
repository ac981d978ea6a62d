"""Pi: our pi package (a ``session_shutdown`` extension and the skill), installed with
``pi install <our copy>``.

Through the CLI: pi lists a package in its ``settings.json``, which it owns and rewrites; a bare
copy of the extension into ``~/.pi/agent/extensions/`` would lose the package's launcher and
skill. What the call changed is recorded (:mod:`.agent_diff`), so uninstall reverts it offline.
"""

from __future__ import annotations

from pathlib import Path

from ..plugin_places import pi_home
from .agent_diff import recorded_run, stage_plugin
from .context import Ctx


def uninstall_argv(ctx: Ctx) -> tuple[str, ...]:
    return ("pi", "remove", str(ctx.layout.own_dir / "plugins" / "pi"))


def install_pi(ctx: Ctx, source: Path) -> None:
    package = stage_plugin(ctx, source, "pi")
    argv = ["pi", "install", str(package)]
    if ctx.dry:
        ctx.say(f"would run: {' '.join(argv)}")
        return
    recorded_run(ctx, "pi", pi_home(ctx.env), argv, "pi install")
