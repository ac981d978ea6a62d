"""What an agent rollout is held at against the money cap before it starts.

An agent rollout's cost is only known when it ends (Claude Code reports its ``total_cost_usd``,
Codex its tokens, priced at its model's price), so each one is held at the most an agent
rollout of this agent has cost tonight. Until one has finished, the agent's first rollout runs
alone, held at :func:`prior_usd` (its model's price for :data:`EXPECTED_TOKENS` of input and
:data:`PRIOR_OUTPUT_TOKENS` of output), and the others wait for its cost. So a night passes
``max_cost_usd`` only by what the rollouts in flight when it stopped (at most ``[night]
concurrency``) cost beyond their holds: each one by what it cost above the dearest rollout of
its agent before it, the first one by what it cost above the prior.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from ..backends.budget import cost_for
from ..settings import Price

EXPECTED_TOKENS = 40_000  # held before an agent rollout, settled with what it reported
PRIOR_OUTPUT_TOKENS = 2_000  # of a rollout's tokens, the output the prior prices


def prior_usd(model: str, prices: dict[str, Price]) -> float | None:
    """What an agent rollout on ``model`` is taken to cost before one is seen (None: no price):
    :data:`EXPECTED_TOKENS` input tokens at the full input price, no cache discount, and
    :data:`PRIOR_OUTPUT_TOKENS` output tokens."""
    return cost_for(model, EXPECTED_TOKENS, PRIOR_OUTPUT_TOKENS, prices)


class AgentCosts:
    """One agent's rollouts tonight: the dearest so far, and the first one run alone."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.most: float | None = None  # the dearest finished rollout tonight (None: none yet)
        self._first = asyncio.Lock()

    def hold_usd(self, prices: dict[str, Price]) -> float:
        """What the next rollout is held at: the dearest so far, else the prior (0 unpriced)."""
        if self.most is not None:
            return self.most
        return prior_usd(self.model, prices) or 0.0

    def seen(self, cost_usd: float) -> None:
        """A rollout finished at ``cost_usd`` (0 when its cost is unknown)."""
        self.most = max(self.most or 0.0, cost_usd)

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """A rollout's turn to start: at once when one has finished, else alone, after any
        first rollout before it."""
        if self.most is None:
            await self._first.acquire()
            if self.most is None:
                try:
                    yield
                finally:
                    self._first.release()
                return
            self._first.release()
        yield
