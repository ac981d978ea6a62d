"""Which agents can be replayed, read from the agent registry.

A registered agent whose :attr:`~..harvest.agents.Agent.replay` names a module has a replay:
that module's ``REPLAY`` (a :class:`~.spec.ReplayAgent`), imported the first time a night asks
for it. The registry holds the module's *name*, not the object: it lives in ``harvest``, a floor
below this one, so it cannot import the replay it points to, and a name costs nothing for the
harvest, hook and CLI code that never replays. An agent with replay is then its registry module
plus its replay module (Claude Code: :mod:`.claude_code`, Codex: :mod:`.codex`, Copilot CLI:
:mod:`.copilot`, OpenCode: :mod:`.opencode`), also from outside the package.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from ..errors import UsageError
from ..harvest import agents as registry
from .environment import TRUST_FILES, base_env
from .spec import ReplayAgent

Agent = str  # a registered agent's name whose registry entry names a replay module

_LOADED: dict[tuple[str, str], ReplayAgent] = {}  # (agent, module): its replay


class _Replayable:
    """The names of the registered agents that have a replay, as the registry holds them now
    (an agent registered later is in too)."""

    def __iter__(self) -> Iterator[Agent]:
        return iter([a.name for a in registry.agents() if a.replay])

    def __contains__(self, name: object) -> bool:
        return any(a.name == name and a.replay for a in registry.agents())

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __repr__(self) -> str:
        return f"AGENTS{tuple(self)!r}"


AGENTS = _Replayable()


def _load(agent: registry.Agent) -> ReplayAgent:
    """The ``REPLAY`` of the module ``agent.replay`` names; a module that is missing or holds no
    replay of this agent is an error naming it."""
    try:
        found = getattr(importlib.import_module(agent.replay), "REPLAY", None)
    except ImportError as exc:
        raise UsageError(
            f"the replay module {agent.replay!r} of agent {agent.name!r} cannot be imported: {exc}",
            hint="fix the agent's registry entry (replay=) or install its module",
        ) from exc
    if not isinstance(found, ReplayAgent) or found.name != agent.name:
        raise UsageError(
            f"the module {agent.replay!r} holds no REPLAY of agent {agent.name!r}",
            hint=f"define REPLAY = ReplayAgent(name={agent.name!r}, ...) in it",
        )
    return found


def replay_agent(name: str) -> ReplayAgent:
    """The replay part of agent ``name``; an agent without one (or unknown) is an error listing
    the replayable."""
    agent = next((a for a in registry.agents() if a.name == name and a.replay), None)
    if agent is None:
        raise UsageError(
            f"agent {name!r} cannot be replayed", hint=f"choose one of: {', '.join(AGENTS)}"
        )
    key = (name, agent.replay)
    if key not in _LOADED:
        _LOADED[key] = _load(agent)
    return _LOADED[key]


def replay_models(backend: str, model: str | None) -> dict[Agent, str | None]:
    """The model each replayable agent runs on when the night's target role is ``model`` of
    ``backend`` (the user's ``[roles.target] model`` or ``--model``): that model for an agent
    that runs that backend's models, None for the others, which then run on the model their own
    configuration names (a Codex task of a night on a Claude model)."""
    return {
        a: model if model and backend in replay_agent(a).model_backends else None for a in AGENTS
    }


def login_problem(agent: Agent, env: Mapping[str, str]) -> str:
    """ "" when the agent has a login or key a replay can use, else a one-line reason (offline:
    the key in the environment, or the login file the temporary home is given)."""
    return replay_agent(agent).login(env)


__all__ = [
    "AGENTS",
    "TRUST_FILES",
    "Agent",
    "base_env",
    "login_problem",
    "replay_agent",
    "replay_models",
]
