"""Backend registry: names to classes, loud on unknown names, no silent fallback."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping

from ..errors import BackendUnavailable, ConfigError
from ..settings import RoleSettings
from .base import Backend

# name -> "module:Class". Every class has ``from_settings(role: RoleSettings, env) -> Backend``.
BACKENDS: dict[str, str] = {
    "simulated": "skillopt_sleep.backends.simulated:SimulatedBackend",
    "scripted": "skillopt_sleep.backends.scripted:ScriptedBackend",
    "anthropic": "skillopt_sleep.backends.anthropic_api:AnthropicBackend",
    "openai": "skillopt_sleep.backends.openai_api:OpenAIBackend",
    "claude-code": "skillopt_sleep.backends.claude_cli:ClaudeCodeBackend",
    "codex": "skillopt_sleep.backends.codex_cli:CodexBackend",
}

# Order in which a real night looks for a usable backend when none is configured.
AUTO_ORDER = ("anthropic", "openai", "claude-code", "codex")


def known_backends() -> list[str]:
    return sorted(BACKENDS)


def backend_class(name: str) -> type:
    """The class registered under ``name``; an unknown name lists the choices."""
    if name not in BACKENDS:
        close = difflib.get_close_matches(name, BACKENDS, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise ConfigError(
            f"unknown backend {name!r}",
            hint=f"{hint}choose one of: {', '.join(known_backends())}",
        )
    module_name, _, class_name = BACKENDS[name].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)


def create_backend(
    role: RoleSettings,
    env: Mapping[str, str],
    *,
    which: Callable[[str], str | None] | None = None,
) -> Backend:
    """Build the backend a role names, or the first usable one if it names none."""
    name = role.backend or detect_backend(env, which=which)
    cls = backend_class(name)
    return cls.from_settings(role, env)


def detect_backend(env: Mapping[str, str], *, which: Callable[[str], str | None] | None = None) -> str:
    """The first usable backend in :data:`AUTO_ORDER`. Never ``simulated``."""
    import shutil

    which = which or shutil.which
    for name in AUTO_ORDER:
        cls = backend_class(name) if _importable(name) else None
        usable = getattr(cls, "usable", None) if cls is not None else None
        if usable is not None and usable(env, which):
            return name
    raise BackendUnavailable(
        "no model backend is configured or usable",
        hint="set ANTHROPIC_API_KEY or OPENAI_API_KEY, log in to `claude` or `codex`, "
        "or pass --backend NAME (simulated for an offline trial)",
    )


def _importable(name: str) -> bool:
    try:
        backend_class(name)
    except (ImportError, AttributeError):
        return False
    return True
