"""The agent environment: the real agent (``claude -p``, ``codex exec``) acts on the item in a
sandboxed throwaway copy of its project, with the instruction files where it reads them, and the
attempt is scored on what it did (its commands, the files it touched, the tree it left) as well
as on what it said.

An agent rollout is no model call of ours: it counts as one call of the ``agent`` role in the
run's budget, with the tokens and cost the agent reported (priced at the model it ran on,
:func:`~..agent_replay.own_model.own_model` when the night names none, where it reports no
cost), after a hold taken before it starts of :data:`EXPECTED_TOKENS` and the most an agent
rollout has cost tonight (:mod:`.agent_costs`), so a budget stops a night before an agent run it
cannot pay for. A run that fails, times out or cannot be parsed is an errored rollout, no
evidence; a missing agent or sandbox is found before (:func:`~..agent_replay.prepare`), and an
agent that keeps failing is stopped by its breaker (:mod:`~..agent_replay.breaker`).
"""

from __future__ import annotations

from ..agent_replay import AgentSetup, agent_rollout
from ..agent_replay.breaker import AgentBreaker
from ..agent_replay.own_model import own_model
from ..backends.base import Backend, Completion, Message
from ..backends.budget import Budget, Hold
from ..checks.action_judge import Effects
from ..checks.judge import RubricJudge, Verdict, judge
from ..errors import BackendError
from ..models import TaskRecord
from ..redact import redact
from .agent_costs import EXPECTED_TOKENS, AgentCosts
from .base import EnvResult, files_of, skill_at_of
from .task_record import item_failed, prompt_of

ROLE = "agent"
__all__ = ["EXPECTED_TOKENS", "ROLE", "AgentEnv", "agent_cache_tag"]


def agent_cache_tag(agent: str, model: str | None, max_turns: int, commit: str) -> str:
    """What sets an agent rollout's cache key apart from a text rollout's of the same task (the
    copy is made at the task's ``commit``)."""
    return f"agent:{agent}:{model or ''}:{max_turns}:{commit}"


class AgentEnv:
    """One agent (the setup's) replaying items in sandboxed copies, judged by every check of the
    item on the attempt's text and effects (rubrics by ``rubric``)."""

    name = "agent"

    def __init__(
        self,
        setup: AgentSetup,
        rubric: RubricJudge | None = None,
        *,
        breaker: AgentBreaker | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.setup, self.rubric = setup, rubric
        self.breaker = breaker or AgentBreaker(setup.agent)
        self.notes = notes if notes is not None else []  # the breaker's note, once tripped
        self.rollouts = 0
        self.models: set[str] = set()  # what its rollouts ran on (as the agent named it, if it did)
        self.costs = AgentCosts(setup.model or own_model(setup.agent, setup.env))

    def cache_tag(self, item: TaskRecord) -> str:
        """What sets this environment's rollouts of ``item`` apart in a replay cache."""
        s = self.setup
        return agent_cache_tag(s.agent, s.model, s.limits.max_turns, item.commit)

    async def rollout(
        self,
        item: TaskRecord,
        instructions: str,
        backend: Backend,
        *,
        seed: int,
        max_tokens: int = 1024,
    ) -> EnvResult:
        budget: Budget | None = getattr(backend, "budget", None)
        if budget is None:
            return await self._rollout(item, instructions, seed, None)
        async with self.costs.turn():  # the agent's first rollout alone: its cost holds the rest
            return await self._rollout(item, instructions, seed, budget)

    async def _rollout(
        self, item: TaskRecord, instructions: str, seed: int, budget: Budget | None
    ) -> EnvResult:
        asked = (Message("user", prompt_of(item)),)
        try:
            self.breaker.check()
        except BackendError as exc:  # tripped: refused before anything is spent
            return EnvResult.errored(exc.one_line(), asked)
        hold = None
        if budget is not None:
            hold = budget.reserve(EXPECTED_TOKENS, self.costs.hold_usd(budget.limits.prices))

        async def score(text: str, effects: Effects) -> Verdict:
            return await judge(item, redact(text), self.rubric, effects)

        try:
            done = await agent_rollout(
                item,
                files_of(instructions),
                seed,
                setup=self.setup,
                score=score,
                skill_at=skill_at_of(instructions),
            )
        except BaseException as exc:
            _settle(budget, hold, None, self.costs)
            if isinstance(exc, BackendError) and self.breaker.failed(exc):
                self.notes.append(self.breaker.tripped)
            if isinstance(exc, BackendError) and item_failed(exc):
                return EnvResult.errored(exc.one_line(), asked)
            raise
        self.breaker.succeeded()
        out = done.output
        _settle(
            budget,
            hold,
            Completion(out.text, out.input_tokens, out.output_tokens, out.cost_usd),
            self.costs,
        )
        self.rollouts += 1
        self.models.add(out.model or self.costs.model)
        verdict = done.verdict
        assert isinstance(verdict, Verdict)
        return EnvResult(
            1.0 if verdict.passed else 0.0,
            verdict.score,
            verdict.reasons,
            (*asked, Message("assistant", redact(out.text))),
            actions=out.actions,
        )


def _settle(
    budget: Budget | None, hold: Hold | None, done: Completion | None, costs: AgentCosts
) -> None:
    """Release the hold; record the run's cost (the dearest so far kept), or a failed call,
    under the agent role."""
    if budget is None or hold is None:
        return
    budget.settle(hold)
    if done is None:
        budget.record_failure(ROLE)
    else:
        costs.seen(budget.record(ROLE, costs.model, done))
