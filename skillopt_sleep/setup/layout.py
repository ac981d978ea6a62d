"""Where the installation puts things, derived once from HOME and the environment.

The same places as the engine's own data directories where they meet (the data dir holds the
private environment, the wheels and the Claude Code marketplace copy), and the places pipx, uv,
Claude Code and Codex use by default. The engine's own directories (what ``paths.resolve_paths``
gives through platformdirs) are derived here without platformdirs (:func:`engine_dirs`): the
installer runs before the engine's dependencies exist.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath

NAME = "skillopt-sleep"
MARKET = "skillopt-sleep"
PLUGIN_ID = f"{NAME}@{MARKET}"


@dataclass(frozen=True)
class Layout:
    """Every path the installer reads or writes. Build it with :func:`layout_for`."""

    home: Path
    windows: bool
    state_dir: Path
    own_dir: Path
    user_bin: Path
    claude_dir: Path
    codex_dir: Path
    skills_dir: Path

    @property
    def manifest(self) -> Path:
        return self.state_dir / "install-manifest.txt"

    @property
    def engine_venv(self) -> Path:
        return self.own_dir / "engine"

    @property
    def engine_record(self) -> Path:
        """One line: the engine command the plugins' launcher runs (see plugins/*/launcher)."""
        return self.own_dir / "engine-command"

    @property
    def wheel_dir(self) -> Path:
        return self.own_dir / "wheels"

    @property
    def claude_market(self) -> Path:
        return self.own_dir / "claude-marketplace"

    @property
    def codex_skill(self) -> Path:
        return self.skills_dir / NAME

    def venv_bin(self, venv: Path) -> Path:
        return venv / ("Scripts" if self.windows else "bin")

    def exe(self, name: str) -> str:
        return f"{name}.exe" if self.windows else name

    @property
    def command_link(self) -> Path:
        """Where the command lands for the user's shell: a symlink, a ``.cmd`` shim on Windows."""
        return self.user_bin / (f"{NAME}.cmd" if self.windows else NAME)


def layout_for(env: Mapping[str, str], *, windows: bool | None = None) -> Layout:
    """The layout for a user whose environment is ``env`` (``windows`` defaults to this OS)."""
    win = os.name == "nt" if windows is None else windows
    home = Path(env.get("HOME") or env.get("USERPROFILE") or str(Path.home()))
    if win:
        local = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
        state = own = local / NAME
    else:
        state = _xdg(env, "XDG_STATE_HOME", home / ".local" / "state") / NAME
        own = _xdg(env, "XDG_DATA_HOME", home / ".local" / "share") / NAME
    return Layout(
        home=home,
        windows=win,
        state_dir=state,
        own_dir=own,
        user_bin=home / ".local" / "bin",
        claude_dir=Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude"),
        codex_dir=Path(env.get("CODEX_HOME") or home / ".codex"),
        skills_dir=home / ".agents" / "skills",
    )


def _xdg(env: Mapping[str, str], var: str, default: Path) -> Path:
    value = env.get(var, "")
    return Path(value) if value and PurePath(value).is_absolute() else default


def engine_dirs(layout: Layout, env: Mapping[str, str], platform: str) -> dict[str, Path]:
    """``config``, ``data``, ``state`` and ``log`` directories of the engine for this user."""
    home = layout.home
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
    if layout.windows:
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
