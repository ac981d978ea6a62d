"""Prompt caching through the real SDKs: the breakpoint on the wire, cache usage read back and
priced, the first call of a new prefix sent alone, OpenAI's cache key, and the price table."""

from __future__ import annotations

import asyncio
import random
from functools import partial

import anthropic
import openai
import pytest

from skillopt_sleep.backends.anthropic_api import AnthropicBackend
from skillopt_sleep.backends.base import Message, Request
from skillopt_sleep.backends.budget import Budget, cost_for, price_for
from skillopt_sleep.backends.openai_api import OpenAIBackend
from skillopt_sleep.backends.retry import RetryPolicy, call_with_retry
from skillopt_sleep.models import NightSummary, Usage
from skillopt_sleep.settings import BudgetSettings, Price, RoleSettings
from skillopt_sleep.testing import ModelServer, Text

SKILL = "Always run the suite with `make check` before you answer. " * 120  # ~1,700 tokens


def ask(i: int, system: str = SKILL) -> Request:
    return Request("target", system, (Message("user", f"task number {i}"),), max_tokens=50, seed=i)


def anthropic_backend(srv: ModelServer, cache: bool = True) -> AnthropicBackend:
    role = RoleSettings(
        backend="anthropic", model="claude-sonnet-4-6", base_url=srv.url, prompt_cache=cache
    )
    return AnthropicBackend.from_settings(role, {"ANTHROPIC_API_KEY": "sk-ant-test"})


def public_openai(srv: ModelServer) -> OpenAIBackend:
    """The openai backend as it talks to the public API (max_completion_tokens, a cache key)."""
    client = partial(openai.AsyncOpenAI, base_url=srv.v1, api_key="sk-test", max_retries=0)
    return OpenAIBackend(client, model="gpt-5-mini", compatible=False)  # closed with its loop


def calls(backend, requests, budget: Budget | None = None):
    budget = budget or Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None))

    async def go():
        return await asyncio.gather(
            *(
                call_with_retry(
                    backend, r, budget=budget, policy=RetryPolicy(), rng=random.Random(0)
                )
                for r in requests
            )
        )

    return asyncio.run(go()), budget


@pytest.fixture
def server():
    with ModelServer(responder=lambda call: Text("done")) as srv:
        yield srv


def test_anthropic_marks_the_system_prompt_and_only_it_as_a_cache_breakpoint(server):
    calls(anthropic_backend(server), [ask(1)])
    body = server.model_requests("anthropic")[0].body
    assert body["system"] == [
        {"type": "text", "text": SKILL, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [{"role": "user", "content": "task number 1"}]


def test_with_caching_off_the_request_has_no_breakpoint_and_pays_full_price(server):
    done, budget = calls(anthropic_backend(server, cache=False), [ask(1), ask(2)])
    assert all(
        "cache_control" not in block for r in server.model_requests() for block in r.body["system"]
    )
    assert [d.cache_read_tokens for d in done] == [0, 0]
    assert budget.total.saved_usd == 0


def test_concurrent_calls_write_the_prefix_once_and_read_it_after(server):
    done, budget = calls(anthropic_backend(server), [ask(i) for i in range(8)])
    writes = [d.cache_write_tokens for d in done]
    reads = [d.cache_read_tokens for d in done]
    assert sum(1 for w in writes if w) == 1 and sum(1 for r in reads if r) == 7
    prefix = max(writes)
    assert prefix > 1024 and all(r in (0, prefix) for r in reads)
    # the call that wrote went alone: every reader was sent after it was answered
    first = next(r for r in server.model_requests() if r.body and "task number 0" in str(r.body))
    later = [r for r in server.model_requests() if r is not first]
    assert all(r.started >= first.finished for r in later)
    # priced at the list price: writes 1.25x, reads 0.1x of $3 per million input tokens
    one = done[1]
    fresh = one.input_tokens - one.cache_read_tokens
    assert one.cost_usd == pytest.approx(
        (fresh * 3 + one.cache_read_tokens * 0.3 + one.output_tokens * 15) / 1e6
    )
    assert (
        budget.total.cache_read_tokens == 7 * prefix and budget.total.cache_write_tokens == prefix
    )
    assert budget.total.list_cost_usd > 3 * budget.total.cost_usd


def test_a_short_system_prompt_is_not_cached(server):
    done, _ = calls(anthropic_backend(server), [ask(1, "Be brief."), ask(2, "Be brief.")])
    assert [(d.cache_write_tokens, d.cache_read_tokens) for d in done] == [(0, 0), (0, 0)]


def test_a_changed_skill_writes_a_new_prefix(server):
    backend = anthropic_backend(server)
    calls(backend, [ask(1)])
    done, _ = calls(backend, [ask(2, SKILL + "\nNew rule: keep answers short.")])
    assert done[0].cache_write_tokens > 0 and done[0].cache_read_tokens == 0


def test_openai_sends_the_stable_prefix_first_with_a_cache_key_and_reads_cached_tokens(server):
    done, budget = calls(public_openai(server), [ask(i) for i in range(3)])
    bodies = [r.body for r in server.model_requests("chat")]
    assert all(b["messages"][0] == {"role": "system", "content": SKILL} for b in bodies)
    keys = {b["prompt_cache_key"] for b in bodies}
    assert len(keys) == 1 and keys.pop().startswith("skillopt-")
    assert done[0].cache_read_tokens == 0 and done[1].cache_read_tokens >= 1024
    cached = done[1].cache_read_tokens
    fresh = done[1].input_tokens - cached
    assert done[1].cost_usd == pytest.approx(
        (fresh * 0.25 + cached * 0.025 + done[1].output_tokens * 2) / 1e6
    )
    assert budget.total.cache_write_tokens == 0  # OpenAI charges nothing extra to write


def test_a_compatible_server_gets_no_cache_key(server):
    role = RoleSettings(backend="openai", model="llama3", base_url=server.v1)
    calls(OpenAIBackend.from_settings(role, {}), [ask(1)])
    assert "prompt_cache_key" not in server.model_requests("chat")[0].body


def test_the_responses_api_reports_cached_tokens_the_way_openai_does(server):
    with openai.OpenAI(base_url=server.v1, api_key="sk-test", max_retries=0) as client:
        usages = [
            client.responses.create(model="gpt-5-mini", instructions=SKILL, input=f"task {i}").usage
            for i in range(2)
        ]
    assert usages[0].input_tokens_details.cached_tokens == 0
    assert usages[1].input_tokens_details.cached_tokens >= 1024


def test_the_anthropic_client_sees_the_providers_usage_fields(server):
    system = [{"type": "text", "text": SKILL, "cache_control": {"type": "ephemeral"}}]
    with anthropic.Anthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0) as client:
        first, second = (
            client.messages.create(
                model="claude-sonnet-4-6",
                max_tokens=20,
                system=system,
                messages=[{"role": "user", "content": f"q{i}"}],
            ).usage
            for i in range(2)
        )
    assert first.cache_creation_input_tokens > 1024 and first.cache_read_input_tokens == 0
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0 and second.input_tokens < 50


def test_cache_and_batch_prices_follow_the_list_prices():
    assert price_for("claude-sonnet-4-6", {}) == pytest.approx((3.0, 15.0, 3.75, 0.3, 6.0))
    assert price_for("gpt-5-mini", {}) == (0.25, 2.0, 0.25, 0.025, 0.25)
    assert price_for("llama3", {"llama3": Price(input=1, output=2)}) == (1, 2, 1, 1, 1)
    custom = {"my-model": Price(input=1, output=2, cache_write=3, cache_read=0.5)}
    assert cost_for("my-model", 1000, 10, custom, cache_write=200, cache_read=300) == pytest.approx(
        (500 * 1 + 200 * 3 + 300 * 0.5 + 10 * 2) / 1e6
    )
    assert cost_for(
        "claude-sonnet-4-6", 1000, 0, {}, cache_write=600, cache_write_1h=600
    ) == pytest.approx((400 * 3 + 600 * 6) / 1e6)
    full = cost_for("claude-sonnet-4-6", 1000, 100, {})
    assert cost_for("claude-sonnet-4-6", 1000, 100, {}, batched=True) == pytest.approx(full / 2)


def test_a_night_stored_before_cache_fields_existed_still_loads():
    old = {
        "night_id": "n1",
        "project": "/p",
        "started_at": "2026-01-01T03:00:00Z",
        "decision": "accept",
        "calls": 3,
        "tokens": 300,
        "cost_usd": 0.01,
        "usage_by_role": {
            "target": {"calls": 3, "input_tokens": 200, "output_tokens": 100, "cost_usd": 0.01}
        },
    }
    night = NightSummary.model_validate(old)
    assert night.usage_by_role["target"].cache_read_tokens == 0
    assert night.usage.saved_usd == 0 and night.saving_note() == ""
    assert (Usage(cost_usd=1, list_cost_usd=4) + Usage(cost_usd=1, list_cost_usd=2)).saved_usd == 4
