"""Doctor checks for the registered agents' plugins beyond Claude Code and Codex (Copilot CLI,
OpenCode, Gemini CLI, Qwen Code, Pi, and any agent registered later): for each agent on this
machine, is its session-end hook installed, and would it run the engine?

The list comes from the agent registry, so an agent registered without a plugin place is named
too (its sessions are still harvested at night), never silently left out of the report.

A hook that is installed but cannot start the engine loses every session silently (the
launcher never fails the agent), so that is a failure, not a warning.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..harvest import agents
from ..harvest.agents import Agent
from ..plugin_places import BY_NAME, NAME, Installed, PluginPlace
from . import DoctorInput, Finding

OWN_CHECKS = ("claude-code", "codex")  # plugins.py checks their plugin and skill

SETUP = "sh install/install.sh --agents {name} from a skillopt-sleep checkout"


def checks(inp: DoctorInput) -> list[Finding]:
    if not (inp.env.get("HOME") or inp.env.get("USERPROFILE")):
        return []  # plugins.py already says it cannot look for agents
    return [_finding(inp, a) for a in agents.agents() if a.name not in OWN_CHECKS]


def _finding(inp: DoctorInput, agent: Agent) -> Finding:
    title = f"plugin: {agent.name}"
    place = BY_NAME.get(agent.name)
    if place is None:
        detail = f"{agent.label} has no skillopt-sleep hook; its sessions are harvested at night"
        return Finding(title, "skip", detail)
    return _place_finding(inp, title, agent.label, place)


def _place_finding(inp: DoctorInput, title: str, label: str, place: PluginPlace) -> Finding:
    if not place.present(inp.env, inp.which):
        return Finding(title, "skip", f"{label} not found")
    found = place.installed(inp.env)
    fix = "run " + SETUP.format(name=place.name)
    if found is None:
        return Finding(
            title,
            "warn",
            f"{label} is here but its skillopt-sleep hook is not installed",
            fix,
            {"agent": place.name, "installed": "no"},
        )
    data = {"agent": place.name, "installed": "yes", "path": str(found.where)}
    problem = _cannot_run(inp, found)
    if problem:
        return Finding(title, "fail", f"hook installed at {found.where}, but {problem}", fix, data)
    runs = str(found.launcher) if found.launcher else f"`{NAME}` on PATH"
    return Finding(title, "ok", f"hook installed at {found.where}; it runs {runs}", data=data)


def _cannot_run(inp: DoctorInput, found: Installed) -> str:
    """Why the hook would not reach the engine ("" when it would)."""
    if found.launcher is None:  # the plugin runs $SKILLOPT_SLEEP_BIN, else the command on PATH
        if inp.env.get("SKILLOPT_SLEEP_BIN") or inp.which(NAME):
            return ""
        return f"it runs `{NAME}` from PATH, and there is none"
    launcher = found.launcher
    if not (launcher.is_file() and os.access(launcher, os.X_OK)):
        return f"its launcher {launcher} is missing or not executable"
    if _engine_found(inp.env, launcher) or inp.which(NAME):
        return ""
    return f"its launcher {launcher} finds no installed engine"


def _engine_found(env: Mapping[str, str], launcher: Path) -> bool:
    """What the launcher looks for first (see its header): an override, the checkout around it,
    the engine setup recorded, the installer's private environment, a pipx or uv install."""
    if env.get("SKILLOPT_SLEEP_PYTHON"):
        return True
    real = launcher.resolve()
    if any(
        (up / "pyproject.toml").is_file() and (up / "skillopt_sleep").is_dir()
        for up in real.parents
    ):
        return True
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    record = data / NAME / "engine-command"
    try:
        engine = Path(record.read_text(encoding="utf-8").strip())
    except OSError:
        engine = data / NAME / "engine" / "bin" / "python"
    candidates = (
        engine,
        data / NAME / "engine" / "bin" / "python",
        Path(env.get("PIPX_HOME") or data / "pipx") / "venvs" / NAME / "bin" / NAME,
        Path(env.get("UV_TOOL_DIR") or data / "uv" / "tools") / NAME / "bin" / NAME,
        home / ".local" / "bin" / NAME,
    )
    return any(c.is_file() and os.access(c, os.X_OK) for c in candidates)
