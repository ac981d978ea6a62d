"""What the harvest's model helpers share: a capped number of calls under the budget, retried,
and a failure that leaves the work as the rules did it instead of stopping the harvest."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from ..backends.base import Backend, Message, Request, Role
from ..backends.budget import Budget
from ..backends.retry import RetryPolicy, call_with_retry
from ..errors import BackendError, BudgetExhausted


@dataclass
class ModelHelper:
    """At most ``max_calls`` model calls; ``ask`` answers None for an outage or a spent budget."""

    backend: Backend
    budget: Budget
    max_calls: int
    policy: RetryPolicy = field(default_factory=lambda: RetryPolicy(max_retries=2))
    calls: int = 0
    failures: int = 0

    @property
    def can_ask(self) -> bool:
        return self.calls < self.max_calls

    async def ask(self, request: Request, rng: random.Random) -> str | None:
        """The model's answer, or None (counted in ``failures``; a spent budget stops asking)."""
        self.calls += 1
        try:
            done = await call_with_retry(
                self.backend, request, budget=self.budget, policy=self.policy, rng=rng
            )
        except BudgetExhausted:
            self.max_calls = self.calls
            return None
        except BackendError:
            self.failures += 1
            return None
        return done.text


def json_request(
    role: Role,
    system: str,
    payload: dict[str, str],
    *,
    max_tokens: int,
    tag: str,
    temperature: float | None = None,
) -> Request:
    """One model call whose user message is ``payload`` as JSON (the answer is parsed as JSON)."""
    body = json.dumps(payload, ensure_ascii=False)
    return Request(
        role=role,
        system=system,
        messages=(Message("user", body),),
        max_tokens=max_tokens,
        temperature=temperature,
        tag=tag,
    )
