"""Which rollouts the real agent replays, and how their cost is counted.

``[night] replay``: ``text`` never uses the agent; ``auto`` replays the tasks that carry action
checks with their own agent (Claude Code or Codex, by the task's source) when that agent's CLI
and a sandbox are there; ``agent`` does so for every task of those sources. A task whose agent
cannot be replayed here falls back to a text replay, and the night says why once (``notes``):
never an unconfined run. An agent rollout counts as one call of the ``agent`` role in the
budget, with the tokens and cost the agent reported, reserved before it starts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Literal

from ..action_models import ACTION_KINDS
from ..agent_replay import AGENTS, Agent, AgentLimits, AgentSetup, agent_rollout, prepare
from ..agent_replay.breaker import AgentBreaker
from ..backends.base import Completion
from ..backends.budget import Budget
from ..errors import BackendError
from ..models import NightSummary, TaskRecord
from .action_judge import Effects
from .judge import Verdict

ReplayMode = Literal["auto", "text", "agent"]
ROLE = "agent"
EXPECTED_TOKENS = 40_000  # reserved before an agent rollout, settled with what it reported
Prepare = Callable[[Agent], "AgentSetup | str"]


def has_action_checks(task: TaskRecord) -> bool:
    return any(c.kind in ACTION_KINDS for c in task.checks)


class AgentReplays:
    """The night's agent replays: which tasks, with which agent setup, and the notes on fallbacks."""

    def __init__(
        self, mode: ReplayMode, prepare_agent: Prepare, breaker_threshold: int = 3
    ) -> None:
        self.mode = mode
        self._prepare = prepare_agent
        self._setups: dict[str, AgentSetup | str] = {}
        self._breakers: dict[str, AgentBreaker] = {}
        self._threshold = breaker_threshold
        self.notes: list[str] = []
        self.rollouts = 0

    def setup_for(self, task: TaskRecord) -> AgentSetup | None:
        """The agent setup that replays ``task``, or None for a text replay."""
        if self.mode == "text" or task.source not in AGENTS:
            return None
        if self.mode == "auto" and not has_action_checks(task):
            return None
        agent: Agent = task.source
        if agent not in self._setups:
            self._setups[agent] = self._prepare(agent)
            found = self._setups[agent]
            if isinstance(found, str):
                self.notes.append(f"{found}; {agent} tasks were replayed as text")
            elif found.note:
                self.notes.append(found.note)
        found = self._setups[agent]
        return None if isinstance(found, str) else found

    def cache_tag(self, task: TaskRecord) -> str:
        """What sets an agent rollout's cache key apart from a text rollout's ("" for text)."""
        setup = self.setup_for(task)
        return (
            ""
            if setup is None
            else f"agent:{setup.agent}:{setup.model or ''}:{setup.limits.max_turns}:{task.commit}"
        )

    async def run(
        self,
        task: TaskRecord,
        files: Mapping[str, str],
        sample: int,
        budget: Budget,
        score: Callable[[str, Effects], Awaitable[Verdict]],
    ) -> tuple[str, Verdict]:
        """One agent rollout of ``task``, its cost counted under the ``agent`` role."""
        setup = self.setup_for(task)
        assert setup is not None, "run() is called only for tasks setup_for() accepted"
        breaker = self._breakers.setdefault(setup.agent, AgentBreaker(setup.agent, self._threshold))
        breaker.check()
        hold = budget.reserve(EXPECTED_TOKENS, 0.0)
        try:
            result = await agent_rollout(task, files, sample, setup=setup, score=score)
        except BaseException as exc:
            budget.settle(hold)
            budget.record_failure(ROLE)
            if isinstance(exc, BackendError) and breaker.failed(exc):
                self.notes.append(breaker.tripped)
            raise
        budget.settle(hold)
        breaker.succeeded()
        out = result.output
        budget.record(
            ROLE,
            setup.model or f"{setup.agent}-default",
            Completion(out.text, out.input_tokens, out.output_tokens, out.cost_usd),
        )
        self.rollouts += 1
        assert isinstance(result.verdict, Verdict)
        return out.text, result.verdict


def agent_replays(
    mode: ReplayMode,
    env: Mapping[str, str],
    *,
    timeout_s: float = 600.0,
    max_turns: int = 30,
    models: Mapping[str, str | None] | None = None,
) -> AgentReplays:
    """The night's :class:`AgentReplays` for the user's environment ``env``."""
    limits = AgentLimits(timeout_s=timeout_s, max_turns=max_turns)

    def prep(agent: Agent) -> AgentSetup | str:
        return prepare(agent, env, limits=limits, model=(models or {}).get(agent))

    return AgentReplays(mode, prep)


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
    n = sum(
        1
        for t in tasks
        if mode != "text" and t.source in AGENTS and (mode == "agent" or has_action_checks(t))
    )
    per, source = rollout_tokens(nights)
    if not n:
        return 0, "", per
    note = (
        f"{n} of {len(tasks)} tasks are replayed by the real agent (replay = {mode!r}): about "
        f"{per:,} tokens a rollout ({source}), counted as calls of the agent role"
    )
    return n, note, per
