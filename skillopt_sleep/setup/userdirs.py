"""The engine's own directories (what ``paths.resolve_paths`` gives through platformdirs),
derived without platformdirs: the installer runs before the engine's dependencies exist."""

from __future__ import annotations

from pathlib import Path

from .context import Ctx
from .layout import NAME


def engine_dirs(ctx: Ctx, platform: str) -> dict[str, Path]:
    """``config``, ``data``, ``state`` and ``log`` directories of the engine for this user."""
    env, home = ctx.env, ctx.layout.home
    if env.get("SKILLOPT_SLEEP_HOME"):
        root = Path(env["SKILLOPT_SLEEP_HOME"])
        return {
            k: root / d
            for k, d in (
                ("config", "config"),
                ("data", "data"),
                ("state", "state"),
                ("log", "logs"),
            )
        }
    if ctx.layout.windows:
        local = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local") / NAME / NAME
        roaming = Path(env.get("APPDATA") or home / "AppData" / "Roaming") / NAME / NAME
        return {"config": roaming, "data": roaming, "state": local, "log": local / "Logs"}
    if platform == "darwin":
        support = home / "Library" / "Application Support" / NAME
        return {
            "config": support,
            "data": support,
            "state": support,
            "log": home / "Library" / "Logs" / NAME,
        }
    state = Path(env.get("XDG_STATE_HOME") or home / ".local" / "state") / NAME
    return {
        "config": Path(env.get("XDG_CONFIG_HOME") or home / ".config") / NAME,
        "data": Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / NAME,
        "state": state,
        "log": state / "log",
    }
