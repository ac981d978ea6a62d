"""What agent replay needs to know about one agent CLI, as data: one :class:`ReplayAgent` per
agent in the table of :mod:`.agents`, keyed by the registry's agent name (the task's source).

The rollout (:mod:`.rollout`) knows no agent by name: it fills the temporary home, builds the
argv and reads the output through these fields, so another agent is one more table entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .events import AgentOutput


@dataclass(frozen=True)
class Launch:
    """One headless run: what an agent's argv is made of."""

    binary: str
    prompt: str
    copy: Path  # the throwaway copy, the agent's working directory
    home: Path  # the temporary home, filled by :attr:`ReplayAgent.home`
    max_turns: int
    model: str | None


def _nothing(env: Mapping[str, str]) -> str:
    return ""


def _no_paths(env: Mapping[str, str]) -> tuple[Path, ...]:
    return ()


def _no_model(env: Mapping[str, str]) -> str | None:
    return None


@dataclass(frozen=True)
class ReplayAgent:
    """The replay part of an agent.

    ``home(home, env)`` fills the temporary home with the login the agent needs (copied from
    the user's, never linked) and returns the agent's whole environment inside the sandbox.
    ``api_url(env, home)``: the one address the sandbox lets it reach. ``login(env)``: "" when
    a replay can log in, else a one-line reason naming the fix. ``parse(stdout, copy, home)``
    reads what it said and did, after the run, while the temporary home still exists.
    ``count_tools``: the agent has no turn limit of its own, so the inner proxy counts the tool
    calls in its JSON events and stops it. ``readable(env)``: paths it must read that the
    sandbox would hide (an install under the user's home). ``note(env)``: a one-line remark
    for the night's summary ("" when none). ``model_backends``: the night's backends whose
    models the agent runs (Claude Code a Claude model, Codex an OpenAI one): a target model of
    one of them is the replay's ``--model``; under any other the agent runs on its own
    configured model. ``own_model(env)``: the model the agent picks itself in the user's
    ``env`` when the night names none (None: its default, unknown here).
    """

    name: str
    binary: str
    argv: Callable[[Launch], list[str]]
    home: Callable[[Path, Mapping[str, str]], dict[str, str]]
    api_url: Callable[[Mapping[str, str], Path], str]
    login: Callable[[Mapping[str, str]], str]
    parse: Callable[[str, str, Path], AgentOutput]
    count_tools: bool = False
    readable: Callable[[Mapping[str, str]], tuple[Path, ...]] = _no_paths
    note: Callable[[Mapping[str, str]], str] = _nothing
    model_backends: frozenset[str] = frozenset()
    own_model: Callable[[Mapping[str, str]], str | None] = _no_model
