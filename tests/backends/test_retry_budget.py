"""Retries (backoff, jitter, Retry-After, bounds) and the budget (checked before each attempt)."""

from __future__ import annotations

import asyncio
import random

import pytest

from skillopt_sleep.backends.base import Completion, Message, Request
from skillopt_sleep.backends.budget import Budget, price_for
from skillopt_sleep.backends.retry import RetryPolicy, call_with_retry
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.errors import AuthError, BadRequestError, BudgetExhausted, TransientError
from skillopt_sleep.settings import BudgetSettings, Price


def req(text: str = "hello", *, role: str = "target", max_tokens: int = 100) -> Request:
    return Request(role, "system", (Message("user", text),), max_tokens=max_tokens)  # type: ignore[arg-type]


class Sleeps:
    """Records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def run(coro):
    return asyncio.run(coro)


def call(backend, request, budget, policy=None, sleep=None, seed=0):
    return run(
        call_with_retry(
            backend,
            request,
            budget=budget,
            policy=policy or RetryPolicy(),
            rng=random.Random(seed),
            sleep=sleep or Sleeps(),
        )
    )


def unlimited() -> Budget:
    return Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None))


def test_retry_after_is_waited_out_then_the_answer_returns():
    backend = ScriptedBackend([TransientError("429", retry_after=7.0), "fine"], model="gpt-5")
    sleeps = Sleeps()
    done = call(backend, req(), unlimited(), sleep=sleeps)
    assert done.text == "fine"
    assert len(sleeps.waits) == 1
    assert 7.0 <= sleeps.waits[0] <= 7.0 + 0.5  # honoured, plus at most a little jitter


def test_backoff_grows_exponentially_with_jitter_and_is_capped():
    policy = RetryPolicy(max_retries=8, base_delay=1.0, max_delay=10.0)
    rng = random.Random(1)
    waits = [policy.delay(a, None, rng) for a in range(8)]
    for attempt, wait in enumerate(waits):
        full = min(10.0, 2.0**attempt)
        assert full / 2 <= wait <= full
    assert max(waits) <= 10.0
    assert len({round(w, 6) for w in waits[:4]}) == 4  # jittered, not a fixed ladder


def test_retries_are_bounded_and_the_last_error_is_raised():
    errors = [TransientError(f"500 #{i}") for i in range(5)]
    backend = ScriptedBackend(list(errors), model="gpt-5")
    budget = unlimited()
    with pytest.raises(TransientError, match="500 #2"):
        call(backend, req(), budget, policy=RetryPolicy(max_retries=2))
    assert len(backend.history) == 3
    assert budget.total.calls == 3  # every attempt sent counts as a call
    assert budget.failed_calls == {"target": 3}


def test_a_retry_after_longer_than_the_bound_fails_at_once():
    backend = ScriptedBackend([TransientError("429", retry_after=3600.0), "late"], model="gpt-5")
    sleeps = Sleeps()
    with pytest.raises(TransientError):
        call(backend, req(), unlimited(), policy=RetryPolicy(max_retry_after=60), sleep=sleeps)
    assert sleeps.waits == []


@pytest.mark.parametrize(
    "error", [AuthError("ANTHROPIC_API_KEY is not set"), BadRequestError("unknown model x")]
)
def test_errors_a_retry_cannot_fix_are_not_retried(error):
    backend = ScriptedBackend([error, "never"], model="gpt-5")
    sleeps = Sleeps()
    with pytest.raises(type(error)):
        call(backend, req(), unlimited(), sleep=sleeps)
    assert len(backend.history) == 1 and sleeps.waits == []


def test_usage_and_cost_are_recorded_per_role_from_the_price_table():
    backend = ScriptedBackend(model="gpt-5")
    backend.enqueue(
        Completion("a", 1000, 500, None, "gpt-5"), Completion("b", 2000, 0, None, "gpt-5")
    )
    budget = unlimited()
    first = call(backend, req(role="target"), budget)
    call(backend, req(role="judge"), budget)
    assert first.cost_usd == pytest.approx((1000 * 1.25 + 500 * 10.0) / 1e6)
    assert budget.by_role["target"].calls == 1 and budget.by_role["judge"].input_tokens == 2000
    assert budget.total.calls == 2
    assert budget.total.cost_usd == pytest.approx(first.cost_usd + 2000 * 1.25 / 1e6)


def test_a_backend_reported_cost_is_kept_and_unknown_models_are_noted():
    backend = ScriptedBackend(model="my-local-llama")
    backend.enqueue(
        Completion("a", 10, 10, 0.25, "claude-opus-4-8"), Completion("b", 10, 10, None, "")
    )
    budget = unlimited()
    assert call(backend, req(), budget).cost_usd == 0.25
    assert call(backend, req(), budget).cost_usd == 0.0
    assert budget.unpriced_models == {"my-local-llama"}


def test_price_overrides_match_by_prefix_and_win_over_defaults():
    overrides = {"gpt-5": Price(input=9.0, output=9.0), "llama3": Price(input=0.1, output=0.2)}
    assert price_for("gpt-5-2025-08-07", overrides)[:2] == (9.0, 9.0)
    assert price_for("gpt-5-mini", overrides)[:2] == (
        0.25,
        2.0,
    )  # a longer default prefix is closer
    assert price_for("llama3.1:8b", overrides)[:2] == (0.1, 0.2)
    assert price_for("openrouter/anthropic/claude-sonnet-4-5", {})[:2] == (3.0, 15.0)
    assert price_for("claude-opus-4-8[1m]", {})[:2] == (15.0, 75.0)
    assert price_for("mystery", {}) is None


def test_max_calls_stops_concurrent_calls_at_exactly_the_limit():
    backend = ScriptedBackend(model="gpt-5", responder=lambda r: "ok")
    budget = Budget(BudgetSettings(max_calls=5, max_tokens=None, max_cost_usd=None))

    async def many():
        return await asyncio.gather(
            *(
                call_with_retry(
                    backend,
                    req(f"task {i}"),
                    budget=budget,
                    policy=RetryPolicy(),
                    rng=random.Random(i),
                )
                for i in range(12)
            ),
            return_exceptions=True,
        )

    results = run(many())
    assert sum(isinstance(r, Completion) for r in results) == 5
    assert sum(isinstance(r, BudgetExhausted) for r in results) == 7
    assert len(backend.history) == 5 and budget.total.calls == 5


def test_the_token_budget_counts_the_expected_size_of_the_next_call():
    backend = ScriptedBackend(model="gpt-5", responder=lambda r: "ok")
    budget = Budget(BudgetSettings(max_calls=None, max_tokens=1000, max_cost_usd=None))
    with pytest.raises(BudgetExhausted, match="token budget") as info:
        call(backend, req("x" * 400, max_tokens=950), budget)
    assert backend.history == []  # refused before anything was sent
    assert "budget.max_tokens" in info.value.one_line()


def test_the_cost_budget_refuses_a_call_whose_estimate_would_go_over():
    backend = ScriptedBackend(model="claude-opus-4-1", responder=lambda r: "ok")
    budget = Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=0.05))
    # 1000 output tokens of Opus cost $0.075: over the $0.05 limit before the call is sent.
    with pytest.raises(BudgetExhausted, match=r"cost budget reached \(\$0.0000/\$0.05"):
        call(backend, req(max_tokens=1000), budget)
    assert backend.history == []
    assert call(backend, req(max_tokens=200), budget).text == "ok"


def test_a_retry_that_the_budget_cannot_afford_is_not_sent():
    backend = ScriptedBackend([TransientError("503"), "never"], model="gpt-5")
    budget = Budget(BudgetSettings(max_calls=1, max_tokens=None, max_cost_usd=None))
    with pytest.raises(BudgetExhausted, match=r"call budget reached \(1/1 calls\)"):
        call(backend, req(), budget)
    assert len(backend.history) == 1
