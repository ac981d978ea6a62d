"""Gemini CLI: its extension (a ``SessionEnd`` hook), installed with
``gemini extensions install <our copy> --consent``.

Through the CLI, not a file copy: Gemini CLI signs every installed extension in
``~/.gemini/extension_integrity.json`` with a key of its own, and a copy it did not sign is not
trusted. What the call changed is recorded (:mod:`.agent_diff`), so uninstall reverts it offline.

``--consent`` answers the extension's own question, not the one gemini asks first about the
folder it installs from ("Do you want to trust this folder ...? [y/N]"). With no terminal to
answer it, gemini 0.61 waits forever (or, started once, ends at once with exit 0 and nothing
installed). That folder is our own copy, so the command runs with it trusted, for that command
only (``GEMINI_CLI_TRUST_WORKSPACE``: nothing is written to the user's trusted folders), started
once (``GEMINI_CLI_NO_RELAUNCH``); it is stopped after :data:`WAIT` seconds, and the extension
must be in place after it.
"""

from __future__ import annotations

from pathlib import Path

from ..plugin_places import NAME, gemini_home, gemini_installed
from .agent_diff import recorded_run, stage_plugin
from .context import Ctx, SetupFailed

QUIET = {
    "NO_UPDATE_NOTIFIER": "1",
    "NO_COLOR": "1",
    "GEMINI_CLI_TRUST_WORKSPACE": "true",
    "GEMINI_CLI_NO_RELAUNCH": "true",
}
UNINSTALL = ("gemini", "extensions", "uninstall", NAME)
# Installing a local extension takes gemini a few seconds; past this it waits on a question.
WAIT = 60


def install_gemini(ctx: Ctx, source: Path) -> None:
    extension = stage_plugin(ctx, source, "gemini")
    argv = ["gemini", "extensions", "install", str(extension), "--consent"]
    if ctx.dry:
        ctx.say(f"would run: {' '.join(argv)}")
        return
    by_hand = (
        f"run `GEMINI_CLI_TRUST_WORKSPACE=true {' '.join(argv)}` in a terminal, then the "
        "installer again (or leave gemini out of --agents)"
    )
    recorded_run(
        ctx,
        "gemini",
        gemini_home(ctx.env),
        argv,
        "gemini extensions install",
        env={**ctx.env, **QUIET},
        timeout=WAIT,
        stuck=f"gemini waited on a question; {by_hand}",
    )
    if gemini_installed(ctx.env) is None:
        raise SetupFailed(
            "gemini extensions install ended, but no skillopt-sleep extension is in "
            f"{gemini_home(ctx.env) / 'extensions'}",
            hint=by_hand,
        )
