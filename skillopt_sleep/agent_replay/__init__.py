"""Agent replay: the real agent (``claude -p`` with its tools, ``codex exec``, ``copilot -p``)
replays a task in a sandboxed throwaway copy of the project, with the candidate instruction files
where it reads them; its actions come from its own output or session. Each agent is one entry of
the table in :mod:`.agents` (see :class:`~.spec.ReplayAgent`). See :func:`agent_rollout`."""

from .agents import AGENTS, Agent
from .rollout import AgentLimits, AgentResult, AgentSetup, agent_rollout, prepare

__all__ = [
    "AGENTS",
    "Agent",
    "AgentLimits",
    "AgentResult",
    "AgentSetup",
    "agent_rollout",
    "prepare",
]
