"""A process that sends requests through a batching backend, for the kill -9 and Ctrl-C tests.

    python batch_child.py PROVIDER BASE_URL STORE_PATH N

prints one JSON line of answers when done.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from functools import partial
from pathlib import Path

import anthropic
import openai

from skillopt_sleep.backends.anthropic_api import AnthropicBackend
from skillopt_sleep.backends.base import Message, Request
from skillopt_sleep.backends.batching import BatchingBackend, BatchJournal
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.openai_api import OpenAIBackend
from skillopt_sleep.backends.retry import RetryPolicy, call_with_retry
from skillopt_sleep.settings import BudgetSettings
from skillopt_sleep.store import Store


def requests(n: int) -> list[Request]:
    return [
        Request(
            "target", "Answer briefly.", (Message("user", f"question {i}"),), max_tokens=30, seed=i
        )
        for i in range(n)
    ]


def backend(provider: str, url: str, store: Store) -> BatchingBackend:
    """A batching backend over the real SDK; a client factory (as a night passes), so each event
    loop's client is closed with its loop rather than left with open connections."""
    if provider == "anthropic":
        inner = AnthropicBackend(
            partial(anthropic.AsyncAnthropic, base_url=url, api_key="sk-ant-test", max_retries=0),
            model="claude-sonnet-4-6",
        )
    else:
        inner = OpenAIBackend(
            partial(openai.AsyncOpenAI, base_url=url + "/v1", api_key="sk-test", max_retries=0),
            model="gpt-5-mini",
            compatible=False,
        )
    return BatchingBackend(inner, inner.batch_api(), journal=BatchJournal(store), poll_s=0.05)


async def run(b: BatchingBackend, n: int) -> list[str]:
    budget = Budget(BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None))
    done = await asyncio.gather(
        *(
            call_with_retry(b, r, budget=budget, policy=RetryPolicy(), rng=random.Random(0))
            for r in requests(n)
        )
    )
    return [d.text for d in done]


def main(argv: list[str]) -> int:
    provider, url, store_path, n = argv[0], argv[1], Path(argv[2]), int(argv[3])
    store = Store.open(store_path)
    print(json.dumps(asyncio.run(run(backend(provider, url, store), n))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
