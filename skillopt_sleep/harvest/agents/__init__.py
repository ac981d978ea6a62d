"""The coding agents whose sessions become tasks: one module per agent, one registry.

``from skillopt_sleep.harvest import agents``; ``agents.names()``, ``agents.get(name)``;
another agent is one module that calls ``agents.register(Agent(...))`` (see
:mod:`.registry` for the contract). Importing this package registers the built-ins, in the
order of the import below.
"""

from __future__ import annotations

from . import claude_code, codex, copilot, gemini, opencode, pi, qwen  # noqa: F401  (register)
from .registry import Agent, agent_roots, agents, get, names, register, unregister

__all__ = ["Agent", "agent_roots", "agents", "get", "names", "register", "unregister"]
