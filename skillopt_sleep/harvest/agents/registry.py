"""The registry of coding agents: what skillopt-sleep needs to know about each one.

An agent is a frozen dataclass of data and small callables, not a Protocol to subclass: what
it needs already exists as plain functions beside its parser (a lister, a default root, a
hook reader), so one module describes an agent in one expression, and code outside this
package adds one with :func:`register` and nothing else. Built-in agents register themselves
when :mod:`skillopt_sleep.harvest.agents` is imported; an unknown name is an error that lists
the registered ones, never a default.

The registry lives in ``harvest``: harvest's loop, the hook logger and the CLI iterate it, and
the parsers it points at are harvest's own. The floors above (setup, doctor, agent replay) read
it; nothing here imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from ..jsonl import LineParser
from ..scan import Problem, Roots
from ..session import ParseState, SessionChunk

if TYPE_CHECKING:  # a type only: the turn rules are costly to import, and `log` needs none
    from ..turns import TurnClassifier

Lister = Callable[[Path, "frozenset[str] | None", "list[Problem]"], Iterator[str]]
"""``files(root, projects, problems)``: the session files under ``root`` (only the scoped
projects' where the layout allows; ``None``: every project). Never raises: what cannot be
listed is appended to ``problems``."""

HookReader = Callable[[Mapping[str, Any], Path], Mapping[str, str]]
"""``hook(payload, root)``: an agent's session-end hook JSON as the logger's payload fields
(``session_id``, ``transcript_path``, ``cwd``, ...). Raises ``InputError`` for a bad payload."""

SessionReader = Callable[
    [Path, Mapping[str, str], "list[Problem]", "frozenset[str] | None", "TurnClassifier | None"],
    Iterator[tuple[SessionChunk, str, str]],
]
"""``sessions(database, cursors, problems, projects, classifier)``: for an agent that keeps its
sessions in a database, ``(chunk, session id, cursor)`` for each session with something new
since ``cursors`` (session id -> the cursor text it gave last time). Never raises for a damaged
store or session: it is appended to ``problems``."""


@dataclass(frozen=True)
class Agent:
    """One coding agent: where its sessions live, how to read them, which files it reads.

    ``name`` is the task ``source`` its records carry, the key of its cursors and the value of
    ``harvest --source`` and ``log --agent``. ``instructions`` and ``skills`` are the memory
    files and skill folders the agent reads, most important first (the rule writers use them);
    of ``instructions``, ``fallback`` names those it reads only where none of the others exists.
    ``rule_dirs`` are folders whose every ``*.md`` it reads too (a rule placement may add a file
    of its own there); ``follows`` names the instruction files whose ``@path`` lines it follows
    (``"*"``: all of them). The rule placement reads these facts, for agents registered from
    outside the package too.
    ``hook`` is None for an agent whose hook payload has Claude Code's fields
    (``session_id``, ``transcript_path``). ``git_commit``: its tasks are given the commit they
    started from (the transcript names the branch). ``sessions`` replaces ``parser`` for an
    agent whose ``files`` are session databases (see :data:`SessionReader`).
    ``replay`` names the module (``package.module``) whose ``REPLAY`` runs the agent headless
    for agent replay ("": it has none). A name, not an import: agent replay is a floor above
    harvest, and imports the module only when a night replays the agent.
    """

    name: str
    label: str
    root: Callable[[Mapping[str, str]], Path]
    files: Lister
    parser: Callable[[ParseState], LineParser]
    peek_project: Callable[[Path], str] | None = None
    root_env: tuple[str, ...] = ()
    instructions: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    fallback: tuple[str, ...] = ()
    rule_dirs: tuple[str, ...] = ()
    follows: tuple[str, ...] = ()
    hook: HookReader | None = None
    git_commit: bool = False
    sessions: SessionReader | None = None
    replay: str = ""


_REGISTRY: dict[str, Agent] = {}


def register(agent: Agent, *, replace: bool = False) -> Agent:
    """Add ``agent`` (after the ones already registered). A second agent of the same name is
    refused unless ``replace``: two parsers for one source would mix their cursors."""
    if agent.name in _REGISTRY and not replace:
        raise UsageError(
            f"an agent named {agent.name!r} is already registered",
            hint="pick another name, or pass replace=True",
        )
    _REGISTRY[agent.name] = agent
    return agent


def unregister(name: str) -> None:
    """Remove an agent (a test's toy agent); an unknown name is ignored."""
    _REGISTRY.pop(name, None)


def get(name: str) -> Agent:
    """The agent called ``name``; an unknown name is an error listing the registered ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UsageError(
            f"unknown agent {name!r}", hint=f"choose one of: {', '.join(names())}"
        ) from None


def names() -> tuple[str, ...]:
    """The registered agents' names, built-ins first, in registration order."""
    return tuple(_REGISTRY)


def agents() -> tuple[Agent, ...]:
    return tuple(_REGISTRY.values())


def home(env: Mapping[str, str]) -> Path:
    """The user's home as ``env`` says (``HOME``, ``USERPROFILE``), else this process's."""
    return Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())


def agent_roots(env: Mapping[str, str], settings: Mapping[str, str | None] | None = None) -> Roots:
    """Every registered agent's sessions root: a setting first, then the agent's own default
    (its environment variable, else its folder in the home of ``env``)."""
    chosen = settings or {}
    out: dict[str, Path] = {}
    for agent in agents():
        setting = chosen.get(agent.name)
        out[agent.name] = Path(setting).expanduser() if setting else agent.root(env)
    return Roots(by_agent=out)
