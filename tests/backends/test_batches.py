"""The batch APIs through the real SDKs against the loopback server: submit, poll, fetch,
partial failure, expiry, cancellation, resume after kill -9, and the budget before submitting."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Message, Request
from skillopt_sleep.backends.batching import BatchingBackend, BatchJournal
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.openai_api import OpenAIBackend
from skillopt_sleep.backends.retry import CircuitBreaker, RetryPolicy, call_with_retry
from skillopt_sleep.errors import BackendUnavailable, BadRequestError, BudgetExhausted
from skillopt_sleep.settings import BudgetSettings, RoleSettings
from skillopt_sleep.store import Store
from skillopt_sleep.testing import Error, ModelServer, Text

sys.path.insert(0, str(Path(__file__).parent))
from batch_child import backend as child_backend
from batch_child import requests

from tests.signalled import end_with, interruptible

PROVIDERS = ("anthropic", "openai")
CHILD = Path(__file__).parent / "batch_child.py"
CREATE = {"anthropic": "/v1/messages/batches", "openai": "/v1/batches"}


@pytest.fixture
def server():
    with ModelServer(
        responder=lambda call: Text("answer to " + (call.last.text if call.last else ""))
    ) as srv:
        yield srv


def batching(provider: str, srv: ModelServer, store: Store | None = None) -> BatchingBackend:
    return child_backend(provider, srv.url, store or Store.memory())


def gather(backend, reqs, budget: Budget | None = None, retries: int = 4):
    budget = budget or Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None))
    policy = RetryPolicy(max_retries=retries, base_delay=0.01)

    async def go():
        return await asyncio.gather(
            *(
                call_with_retry(backend, r, budget=budget, policy=policy, rng=random.Random(0))
                for r in reqs
            ),
            return_exceptions=True,
        )

    return asyncio.run(go()), budget


def created(srv: ModelServer, provider: str) -> list:
    return [r for r in srv.requests if r.method == "POST" and r.path == CREATE[provider]]


def polls(srv: ModelServer) -> list:
    return [
        r
        for r in srv.requests
        if r.method == "GET" and "batches/" in r.path and not r.path.endswith("results")
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_phase_goes_out_as_one_batch_polled_until_done_at_half_price(provider, server):
    server.batch_polls = 2
    done, budget = gather(batching(provider, server), requests(5))
    assert [d.text for d in done] == [f"answer to question {i}" for i in range(5)]
    assert len(created(server, provider)) == 1
    assert len(polls(server)) >= 3  # two answered "in progress", the third saw it ended
    assert all(d.batched for d in done) and budget.total.batched_calls == 5
    assert budget.total.cost_usd == pytest.approx(budget.total.list_cost_usd / 2)
    items = server.model_requests()
    assert len(items) == 5 and {r.batch for r in items} == {created_batch_id(server, provider)}
    if provider == "openai":
        upload = next(r for r in server.requests if r.path == "/v1/files")
        assert "multipart/form-data" in upload.headers["content-type"]


def created_batch_id(srv: ModelServer, provider: str) -> str:
    return next(iter(srv.batches.batches))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_failed_request_fails_alone_and_a_transient_one_is_retried_in_a_new_batch(
    provider, server
):
    server.enqueue(
        Text("a"), Error(400, message="bad request body"), Error(500), Text("d"), Text("c again")
    )
    done, budget = gather(batching(provider, server), requests(4))
    assert done[0].text == "a" and done[3].text == "d"
    assert isinstance(done[1], BadRequestError) and "bad request body" in str(done[1])
    assert done[2].text == "c again"  # the 500 was sent again, in a second batch of one
    assert len(created(server, provider)) == 2
    assert budget.failed_calls["target"] == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_requests_a_batch_did_not_run_before_it_expired_are_sent_again(provider, server):
    server.batch_expire_after = 2
    done, _ = gather(batching(provider, server), requests(4))
    assert [d.text for d in done] == [f"answer to question {i}" for i in range(4)]
    sizes = [len(b.items) for b in server.batches.batches.values()]
    assert sizes == [4, 2]
    outcome = [b.outcome for b in server.batches.batches.values()]
    assert outcome == ["expired", "completed"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_callers_giving_up_cancel_the_batch_at_the_provider(provider, server, tmp_path):
    server.hold_batches = True
    store = Store.open(tmp_path / "s.db")
    backend = batching(provider, server, store)

    async def go():
        task = asyncio.ensure_future(gather_async(backend, requests(3)))
        while not polls(server):
            await asyncio.sleep(0.02)
        task.cancel()
        await asyncio.sleep(0.3)

    asyncio.run(go())
    cancels = [r for r in server.requests if r.path.endswith("/cancel")]
    assert len(cancels) == 1 and backend.log.cancelled == [created_batch_id(server, provider)]
    assert BatchJournal(store).open_batches(backend.scope) == {}


async def gather_async(backend, reqs):
    budget = Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None))
    return await asyncio.gather(
        *(
            call_with_retry(backend, r, budget=budget, policy=RetryPolicy(), rng=random.Random(0))
            for r in reqs
        )
    )


def child(provider: str, srv: ModelServer, store: Path, n: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(CHILD), provider, srv.url, str(store), str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **interruptible(),
    )


def wait_for(predicate, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_rerun_after_kill_9_fetches_the_recorded_batch_instead_of_paying_again(
    provider, server, tmp_path
):
    server.hold_batches = True
    store = tmp_path / "store.db"
    proc = child(provider, server, store, 4)
    try:
        wait_for(lambda: polls(server))
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)  # reaps it and closes its pipes
    assert proc.returncode == -signal.SIGKILL
    assert len(created(server, provider)) == 1
    server.hold_batches = False
    done, _ = gather(batching(provider, server, Store.open(store)), requests(4))
    assert [d.text for d in done] == [f"answer to question {i}" for i in range(4)]
    assert len(created(server, provider)) == 1  # fetched, not submitted again
    assert len(server.model_requests()) == 4  # the provider answered each request once
    # a third run has nothing open to resume: it pays for a new batch
    gather(batching(provider, server, Store.open(store)), requests(4))
    assert len(created(server, provider)) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_ctrl_c_while_polling_cancels_the_batch(provider, server, tmp_path):
    server.hold_batches = True
    proc = child(provider, server, tmp_path / "store.db", 3)
    try:
        wait_for(lambda: polls(server))
        end_with(proc, signal.SIGINT, timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)  # reaps it and closes its pipes
    batch_id = created_batch_id(server, provider)
    # Cancelling is idempotent: a client that retries a slow cancel may send it twice.
    cancels = {r.path for r in server.requests if r.path.endswith("/cancel")}
    assert cancels == {f"{CREATE[provider]}/{batch_id}/cancel"}
    assert server.batches.batches[batch_id].state == "canceling"
    assert proc.returncode != 0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_budget_refuses_before_submitting(provider, server):
    backend = batching(provider, server)
    one_call = Budget(BudgetSettings()).estimate(backend.model, requests(1)[0], batched=True)[1]
    budget = Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=one_call * 2.5))
    done, budget = gather(backend, requests(6), budget)
    refused = [d for d in done if isinstance(d, BudgetExhausted)]
    answered = [d for d in done if not isinstance(d, BaseException)]
    assert len(refused) == 4 and len(answered) == 2
    assert [len(b.items) for b in server.batches.batches.values()] == [
        2
    ]  # only what it could afford

    nothing = Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=one_call / 2))
    server.clear()
    done, _ = gather(batching(provider, server), requests(3), nothing)
    assert all(isinstance(d, BudgetExhausted) for d in done)
    assert len(created(server, provider)) == 0 and len(server.batches.batches) == 1


def test_the_journal_keeps_only_open_batches_the_provider_still_holds(tmp_path):
    now = [1000.0]
    journal = BatchJournal(Store.open(tmp_path / "s.db"), clock=lambda: now[0])
    journal.record("anthropic:url", "b1", ["x-0", "y-0"])
    journal.record("anthropic:url", "b2", ["z-0"])
    journal.close("anthropic:url", "b2", "done")
    assert journal.open_batches("anthropic:url") == {"b1": {"x-0", "y-0"}}
    assert journal.open_batches("openai:url") == {}
    now[0] += 30 * 86400
    assert journal.open_batches("anthropic:url") == {}


def test_the_batch_files_are_what_the_provider_documents(server):
    gather(batching("openai", server), requests(2))
    batch = next(iter(server.batches.batches.values()))
    lines = [json.loads(x) for x in server.batches.files[batch.input_file_id].decode().splitlines()]
    assert [x["url"] for x in lines] == ["/v1/chat/completions"] * 2
    assert all(x["method"] == "POST" and x["body"]["model"] == "gpt-5-mini" for x in lines)
    assert len({x["custom_id"] for x in lines}) == 2


def test_a_compatible_server_without_a_batch_api_names_the_setting_to_turn_off(server):
    role = RoleSettings(backend="openai", model="llama3", base_url=server.url + "/nobatch")
    inner = OpenAIBackend.from_settings(role, {})
    done, _ = gather(BatchingBackend(inner, inner.batch_api(), poll_s=0.01), requests(2))
    assert all(isinstance(d, BackendUnavailable) for d in done)
    assert "set [night] batch = false" in done[0].one_line()


def test_anthropic_batch_requests_keep_the_shared_prefix_for_an_hour_and_pay_that_price(server):
    system = "Keep the public names stable and document every new setting. " * 100
    reqs = [
        Request("target", system, (Message("user", f"q{i}"),), max_tokens=20, seed=i)
        for i in range(3)
    ]
    done, _ = gather(batching("anthropic", server), reqs)
    items = server.model_requests()
    assert all(
        r.body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"} for r in items
    )
    writer = done[0]
    assert writer.cache_write_tokens == writer.cache_write_1h_tokens > 1024
    assert [d.cache_read_tokens for d in done[1:]] == [writer.cache_write_tokens] * 2
    fresh = writer.input_tokens - writer.cache_write_tokens
    # a 1-hour write is 2x input, and the batch halves everything
    assert writer.cost_usd == pytest.approx(
        (fresh * 3 + writer.cache_write_tokens * 6 + writer.output_tokens * 15) / 1e6 / 2
    )


def test_after_the_nights_first_answer_the_waiting_calls_go_out_together(server):
    backend = batching("anthropic", server)
    budget = Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None))
    breaker = CircuitBreaker()  # shared by a night's calls: the first one goes alone, as a probe

    async def go():
        return await asyncio.gather(
            *(
                call_with_retry(
                    backend,
                    r,
                    budget=budget,
                    policy=RetryPolicy(),
                    rng=random.Random(0),
                    breaker=breaker,
                )
                for r in requests(6)
            )
        )

    done = asyncio.run(go())
    assert [d.text for d in done] == [f"answer to question {i}" for i in range(6)]
    assert [len(b.items) for b in server.batches.batches.values()] == [1, 5]
