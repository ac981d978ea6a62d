"""Which rollouts the real agent replays: the environment chosen per task.

``[night] replay``: ``text`` never uses the agent; ``auto`` replays the tasks that carry action
checks with their own agent (Claude Code or Codex, by the task's source) when that agent's CLI
and a sandbox are there; ``agent`` does so for every task of those sources. A task whose agent
cannot be replayed here falls back to a text replay, and the night says why once (``notes``):
never an unconfined run. An agent rollout counts as one call of the ``agent`` role in the
budget, with the tokens and cost the agent reported, reserved before it starts
(:mod:`~..envs.agent`): the replay runs it through the environment seam like any other.
:meth:`AgentReplays.models` names the models the agents would run tonight's tasks on, so a
money cap no price lets the budget hold is refused before the night, as for the roles' models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from ..action_models import ACTION_KINDS
from ..agent_replay import AGENTS, Agent, AgentLimits, AgentSetup, prepare
from ..agent_replay.breaker import AgentBreaker
from ..agent_replay.own_model import own_model
from ..checks.judge import RubricJudge
from ..envs.agent import EXPECTED_TOKENS, ROLE, AgentEnv
from ..models import NightSummary, TaskRecord

ReplayMode = Literal["auto", "text", "agent"]
Prepare = Callable[[Agent], "AgentSetup | str"]
__all__ = [
    "EXPECTED_TOKENS",
    "ROLE",
    "AgentReplays",
    "agent_replays",
    "agent_share",
    "rollout_tokens",
]


def has_action_checks(task: TaskRecord) -> bool:
    return any(c.kind in ACTION_KINDS for c in task.checks)


def wants_agent(task: TaskRecord, mode: ReplayMode, default: Agent | None = None) -> bool:
    """Whether ``mode`` replays ``task`` with an agent (when that agent can be replayed here):
    its own, or ``default`` for a task of no agent's (an imported training item)."""
    if mode == "text" or (task.source not in AGENTS and default is None):
        return False
    return mode == "agent" or has_action_checks(task)


class AgentReplays:
    """The night's choice of environment per task: the task's own agent
    (:class:`~..envs.agent.AgentEnv`, behind a breaker per agent) or none (a text replay), and
    the notes on fallbacks and tripped breakers."""

    def __init__(
        self,
        mode: ReplayMode,
        prepare_agent: Prepare,
        default: Agent | None = None,
        breaker_threshold: int = 3,
        model_of: Callable[[Agent], str] | None = None,
    ) -> None:
        self.mode, self.default = mode, default
        self._prepare = prepare_agent
        self._model_of = model_of or (lambda agent: own_model(agent, {}))
        self._setups: dict[str, AgentSetup | str] = {}
        self._envs: dict[str, AgentEnv] = {}
        self._threshold = breaker_threshold
        self.notes: list[str] = []

    @property
    def rollouts(self) -> int:
        """Agent rollouts finished so far."""
        return sum(env.rollouts for env in self._envs.values())

    def ran_on(self) -> dict[Agent, str]:
        """The model each agent's rollouts tonight ran on (a run of models joined by ", "), as
        the agent named it, else as the night chose it or the agent's own configuration."""
        return {a: ", ".join(sorted(e.models)) for a, e in sorted(self._envs.items()) if e.models}

    def agent_for(self, task: TaskRecord) -> Agent | None:
        """The agent that would replay ``task`` (if it can be replayed here), or None."""
        agent = task.source if task.source in AGENTS else self.default
        return agent if agent is not None and wants_agent(task, self.mode, self.default) else None

    def models(self, tasks: Sequence[TaskRecord]) -> dict[Agent, str]:
        """The model each agent that would replay some of ``tasks`` runs on: the night's choice
        for it, else the agent's own (:func:`~..agent_replay.own_model.own_model`)."""
        agents = {a for t in tasks if (a := self.agent_for(t)) is not None}
        return {a: self._model_of(a) for a in sorted(agents)}

    def setup_for(self, task: TaskRecord) -> AgentSetup | None:
        """The agent setup that replays ``task``, or None for a text replay."""
        agent = task.source if task.source in AGENTS else self.default
        if agent is None or not wants_agent(task, self.mode, self.default):
            return None
        if agent not in self._setups:
            self._setups[agent] = self._prepare(agent)
            found = self._setups[agent]
            if isinstance(found, str):
                self.notes.append(f"{found}; {agent} tasks were replayed as text")
            elif found.note:
                self.notes.append(found.note)
        found = self._setups[agent]
        return None if isinstance(found, str) else found

    def env_for(self, task: TaskRecord, rubric: RubricJudge | None) -> AgentEnv | None:
        """The environment that replays ``task`` with its agent, or None for a text replay."""
        setup = self.setup_for(task)
        if setup is None:
            return None
        if setup.agent not in self._envs:
            breaker = AgentBreaker(setup.agent, self._threshold)
            self._envs[setup.agent] = AgentEnv(setup, rubric, breaker=breaker, notes=self.notes)
        return self._envs[setup.agent]


def agent_replays(
    mode: ReplayMode,
    env: Mapping[str, str],
    *,
    timeout_s: float = 600.0,
    max_turns: int = 30,
    models: Mapping[str, str | None] | None = None,
    default: Agent | None = None,
) -> AgentReplays:
    """The night's :class:`AgentReplays` for the user's environment ``env``."""
    limits = AgentLimits(timeout_s=timeout_s, max_turns=max_turns)

    def prep(agent: Agent) -> AgentSetup | str:
        return prepare(agent, env, limits=limits, model=(models or {}).get(agent))

    def model_of(agent: Agent) -> str:
        return (models or {}).get(agent) or own_model(agent, env)

    return AgentReplays(mode, prep, default, model_of=model_of)


def rollout_tokens(nights: Sequence[NightSummary]) -> tuple[int, str]:
    """Tokens an agent rollout is expected to spend, and where that comes from: the average of
    the agent rollouts that ``nights`` recorded, or :data:`EXPECTED_TOKENS` before any."""
    used = [n.usage_by_role[ROLE] for n in nights if n.usage_by_role.get(ROLE)]
    calls = sum(u.calls for u in used)
    if not calls:
        return EXPECTED_TOKENS, "a flat prior: no agent rollout recorded yet"
    per = max(1, round(sum(u.tokens for u in used) / calls))
    return per, f"the average of {calls} agent rollouts of the last {len(used)} nights"


def agent_share(
    tasks: list[TaskRecord], mode: ReplayMode, nights: Sequence[NightSummary] = ()
) -> tuple[int, str, int]:
    """How many of ``tasks`` the agent would replay under ``mode``, a note for the estimate ("" when
    none) and the tokens a rollout is expected to spend (:func:`rollout_tokens` of ``nights``).
    Whether the agent and a sandbox are there is only known at night."""
    n = sum(1 for t in tasks if wants_agent(t, mode))
    per, source = rollout_tokens(nights)
    if not n:
        return 0, "", per
    note = (
        f"{n} of {len(tasks)} tasks are replayed by the real agent (replay = {mode!r}): about "
        f"{per:,} tokens a rollout ({source}), counted as calls of the agent role"
    )
    return n, note, per
