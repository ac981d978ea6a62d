"""The model an agent replay runs on when the night names none: what the agent itself would pick
in the replay's environment (its replay entry's :attr:`~.spec.ReplayAgent.own_model`: Claude
Code's ``ANTHROPIC_MODEL``, the ``model`` of Codex's ``config.toml``), else ``<agent>-default``.
The budget prices an agent rollout, and refuses a money cap it cannot hold, by this name
(:data:`~..backends.budget.DEFAULT_PRICES`, ``[budget.prices]``)."""

from __future__ import annotations

from collections.abc import Mapping

from .agents import AGENTS, replay_agent


def own_model(agent: str, env: Mapping[str, str]) -> str:
    """The model ``agent`` runs on in a replay given no ``--model``, in the user's ``env``."""
    chosen = replay_agent(agent).own_model(env) if agent in AGENTS else None
    return chosen or f"{agent}-default"
