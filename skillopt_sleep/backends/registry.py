"""Backend registry: names to classes, loud on unknown names, no silent fallback.

When a role names no backend, :func:`detect_backend` picks the first usable one in
:data:`AUTO_ORDER`:

1. ``anthropic``   ``ANTHROPIC_API_KEY`` is set
2. ``openai``      ``OPENAI_API_KEY`` is set
3. ``claude-code`` ``claude`` is on PATH and ``claude auth status`` says logged in
4. ``codex``       ``codex`` is on PATH and logged in (``codex login status``), or its config
                   names a provider whose key is set

A key in the environment is an explicit choice to pay per token, so it comes first; the agent
CLIs come next, Claude before Codex. A role that sets ``base_url`` but no backend means an
OpenAI-compatible server, so it gets ``openai``. With nothing usable the night stops with
``BackendUnavailable`` listing the ways to set one up: never a silent ``simulated``.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from typing import Protocol

from ..errors import BackendUnavailable, UnknownBackend
from ..settings import RoleSettings
from .base import Backend
from .keys import KEY_ENV

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

NONE_USABLE_HINT = (
    "set ANTHROPIC_API_KEY or OPENAI_API_KEY, log in to `claude` or `codex`, "
    "pass --backend openai --base-url URL for a local server, "
    "or --backend simulated for an offline trial"
)

Which = Callable[[str], "str | None"]


class BackendClass(Protocol):
    """A registered class: it builds its backend from a role's settings."""

    def from_settings(self, role: RoleSettings, env: Mapping[str, str]) -> Backend: ...


def known_backends() -> list[str]:
    return sorted(BACKENDS)


def backend_class(name: str) -> BackendClass:
    """The class registered under ``name``; an unknown name lists the choices."""
    if name not in BACKENDS:
        close = difflib.get_close_matches(name, BACKENDS, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UnknownBackend(
            f"unknown backend {name!r}",
            hint=f"{hint}choose one of: {', '.join(known_backends())}",
        )
    module_name, _, class_name = BACKENDS[name].partition(":")
    module = importlib.import_module(module_name)
    found: BackendClass = getattr(module, class_name)
    return found


def resolve_name(role: RoleSettings, env: Mapping[str, str], *, which: Which | None = None) -> str:
    """The backend name a role will use: its own, ``openai`` for a bare ``base_url``, or the
    first usable one."""
    if role.backend:
        return role.backend
    if role.base_url:
        return "openai"
    return detect_backend(env, which=which)


def create_backend(
    role: RoleSettings,
    env: Mapping[str, str],
    *,
    which: Which | None = None,
) -> Backend:
    """Build the backend a role names, or the first usable one if it names none."""
    cls = backend_class(resolve_name(role, env, which=which))
    return cls.from_settings(role, env)


def detect_backend(env: Mapping[str, str], *, which: Which | None = None) -> str:
    """The first usable backend in :data:`AUTO_ORDER`. Never ``simulated``."""
    for name in AUTO_ORDER:
        if name in KEY_ENV:  # its SDK is imported only once it is chosen
            if env.get(KEY_ENV[name], "").strip():
                return name
            continue
        usable = getattr(backend_class(name), "usable", None)
        if usable is not None and usable(env, which):
            return name
    raise BackendUnavailable("no model backend is configured or usable", hint=NONE_USABLE_HINT)
