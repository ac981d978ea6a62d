"""Gemini CLI: its extension (a ``SessionEnd`` hook), installed with
``gemini extensions install <our copy> --consent``.

Through the CLI, not a file copy: Gemini CLI signs every installed extension in
``~/.gemini/extension_integrity.json`` with a key of its own, and a copy it did not sign is not
trusted. What the call changed is recorded (:mod:`.agent_diff`), so uninstall reverts it offline.
"""

from __future__ import annotations

from pathlib import Path

from ..plugin_places import NAME, gemini_home
from .agent_diff import recorded_run, stage_plugin
from .context import Ctx

QUIET = {"NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1"}
UNINSTALL = ("gemini", "extensions", "uninstall", NAME)


def install_gemini(ctx: Ctx, source: Path) -> None:
    extension = stage_plugin(ctx, source, "gemini")
    argv = ["gemini", "extensions", "install", str(extension), "--consent"]
    if ctx.dry:
        ctx.say(f"would run: {' '.join(argv)}")
        return
    recorded_run(
        ctx,
        "gemini",
        gemini_home(ctx.env),
        argv,
        "gemini extensions install",
        env={**ctx.env, **QUIET},
    )
