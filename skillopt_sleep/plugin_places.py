"""Where the five newer agents keep their own home and our session-end plugin once installed.

Standard library only: the installer (``setup``) reads it before the engine's dependencies
exist, and ``doctor`` reads the same places, so the two never disagree about where a hook is.
Claude Code and Codex have their own, older code paths.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

NAME = "skillopt-sleep"


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())


def _xdg(env: Mapping[str, str], var: str, default: str) -> Path:
    value = env.get(var, "")
    return Path(value) if value and Path(value).is_absolute() else _home(env) / default


def copilot_home(env: Mapping[str, str]) -> Path:
    return Path(env["COPILOT_HOME"]) if env.get("COPILOT_HOME") else _home(env) / ".copilot"


def copilot_cache(env: Mapping[str, str]) -> Path:
    """Where Copilot CLI unpacks itself on its first run (any command, 235 MB in 1.0.102)."""
    return _xdg(env, "XDG_CACHE_HOME", ".cache") / "copilot"


def opencode_home(env: Mapping[str, str]) -> Path:
    return _xdg(env, "XDG_CONFIG_HOME", ".config") / "opencode"


def gemini_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("GEMINI_CLI_HOME") or _home(env)) / ".gemini"


def qwen_home(env: Mapping[str, str]) -> Path:
    return Path(env["QWEN_HOME"]) if env.get("QWEN_HOME") else _home(env) / ".qwen"


def pi_home(env: Mapping[str, str]) -> Path:
    if env.get("PI_CODING_AGENT_DIR"):
        return Path(env["PI_CODING_AGENT_DIR"])
    return _home(env) / ".pi" / "agent"


@dataclass(frozen=True)
class Installed:
    """Our plugin as the agent will load it: where, and the launcher its hook runs (None: the
    ``skillopt-sleep`` command on PATH, as the OpenCode plugin and a bare Pi extension run)."""

    where: Path
    launcher: Path | None


def _json(path: Path) -> object:
    """A JSON file, ``//`` comment lines allowed (Copilot's config.json has one); {} if bad."""
    try:
        text = path.read_text(encoding="utf-8")
        return json.loads("\n".join(ln for ln in text.splitlines() if not ln.startswith("//")))
    except (OSError, ValueError):
        return {}


def _folder(where: Path) -> Installed | None:
    return Installed(where, where / "bin" / NAME) if where.is_dir() else None


def copilot_installed(env: Mapping[str, str]) -> Installed | None:
    found = _json(copilot_home(env) / "config.json")
    plugins = found.get("installedPlugins") if isinstance(found, dict) else None
    for entry in plugins if isinstance(plugins, list) else []:
        if isinstance(entry, dict) and entry.get("name") == NAME and entry.get("cache_path"):
            return _folder(Path(str(entry["cache_path"])))
    return None


def opencode_installed(env: Mapping[str, str]) -> Installed | None:
    """The plugin file; the launcher it runs is the one in the installer's own copy of the
    plugin when that exists (setup/layout.py's data directory), else the command on PATH."""
    js = opencode_home(env) / "plugins" / f"{NAME}.js"
    if not js.is_file():
        return None
    launcher = _xdg(env, "XDG_DATA_HOME", ".local/share") / NAME / "plugins" / "opencode"
    launcher = launcher / "bin" / NAME
    return Installed(js, launcher if launcher.is_file() else None)


def gemini_installed(env: Mapping[str, str]) -> Installed | None:
    return _folder(gemini_home(env) / "extensions" / NAME)


def qwen_installed(env: Mapping[str, str]) -> Installed | None:
    where = qwen_home(env) / "extensions" / NAME
    meta = _json(where / ".qwen-extension-install.json")
    if isinstance(meta, dict) and meta.get("type") == "link" and meta.get("source"):
        where = Path(str(meta["source"]))
    return _folder(where) if (where / "qwen-extension.json").is_file() else None


def pi_installed(env: Mapping[str, str]) -> Installed | None:
    home = pi_home(env)
    found = _json(home / "settings.json")
    packages = found.get("packages") if isinstance(found, dict) else None
    for entry in packages if isinstance(packages, list) else []:
        where = home / str(entry) if isinstance(entry, str) else None
        if where and (where / "extensions" / f"{NAME}.ts").is_file():
            return _folder(where.resolve())
    bare = home / "extensions" / f"{NAME}.ts"
    return Installed(bare, None) if bare.is_file() else None


@dataclass(frozen=True)
class PluginPlace:
    """One agent: its registry name, its label, its binary, and its home directory."""

    name: str
    label: str
    binary: str
    home: Callable[[Mapping[str, str]], Path]
    installed: Callable[[Mapping[str, str]], Installed | None]

    def present(self, env: Mapping[str, str], which: Callable[[str], str | None]) -> bool:
        """The agent is on this machine: its binary is on PATH or its home exists."""
        return which(self.binary) is not None or self.home(env).is_dir()


PLACES = (
    PluginPlace("copilot", "Copilot CLI", "copilot", copilot_home, copilot_installed),
    PluginPlace("opencode", "OpenCode", "opencode", opencode_home, opencode_installed),
    PluginPlace("gemini", "Gemini CLI", "gemini", gemini_home, gemini_installed),
    PluginPlace("qwen", "Qwen Code", "qwen", qwen_home, qwen_installed),
    PluginPlace("pi", "Pi", "pi", pi_home, pi_installed),
)
BY_NAME = {p.name: p for p in PLACES}
