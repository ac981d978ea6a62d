"""Agent replay: the real agent (``claude -p`` with its tools, ``codex exec``, ``copilot -p``,
``opencode run``) replays a task in a sandboxed throwaway copy of the project, with the candidate
instruction files where it reads them; its actions come from its own output or session. Each
agent is one module here holding its :class:`~.spec.ReplayAgent`, named by the agent's registry
entry (see :mod:`.agents`). See :func:`agent_rollout`."""

from .agents import AGENTS, Agent, replay_models
from .rollout import AgentLimits, AgentResult, AgentSetup, agent_rollout, prepare

__all__ = [
    "AGENTS",
    "Agent",
    "AgentLimits",
    "AgentResult",
    "AgentSetup",
    "agent_rollout",
    "prepare",
    "replay_models",
]
