"""``run --estimate``: what a night would call, spend and cost, before spending anything.

Three prices: the full one (every prompt token at the input price, synchronous), with prompt
caching (the system prefix of each phase written once and read by its other calls, where it is
long enough to be cached), and with caching through the batch API (half of that). The budget is
compared with the full price of the way the night will run (batch or not): cache hits are likely,
not promised.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..backends.base import Backend
from ..backends.budget import CHARS_PER_TOKEN, cost_for
from ..settings import Settings
from ..store import Store
from .evidence import EvidencePolicy
from .replay import cache_key, system_text
from .select import Selection
from .workspace import Workspace

# What an answer costs on average, as a share of max_tokens (replays are short answers).
OUTPUT_SHARE = 0.35
MIN_CACHED_TOKENS = 1024  # the shortest prefix the providers cache


@dataclass(frozen=True)
class Estimate:
    calls: int
    cached: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    within_budget: bool
    notes: tuple[str, ...]
    cost_cached_usd: float | None = None
    cost_batch_usd: float | None = None
    batch: bool = False


def estimate_night(sel: Selection, ws: Workspace, settings: Settings, target: Backend,
                   store: Store | None) -> Estimate:
    """Upper-bound-ish estimate: the train replay, then the fresh rollouts of every proposed edit's
    tests; the reflections, rubrics."""
    k = settings.night.k
    out_tokens = int(settings.roles.target.max_tokens * OUTPUT_SHARE)
    calls = cached = tokens_in = tokens_out = rubric_calls = 0
    prefixes: dict[tuple[str, str], int] = {}  # (phase, system) -> calls sharing that prefix
    shared: list[tuple[int, int]] = []  # (prefix tokens, calls sharing it)
    phases = [("train", sel.train)]
    tasks = [*sel.train, *sel.holdout]
    budget = max(1, settings.night.edit_budget)
    fresh = EvidencePolicy.from_settings(settings.night).planned_rollouts(len(tasks), budget + 1, budget)
    if tasks and sel.train:
        per_task = sum((len(system_text(ws.texts, t)) + len(t.intent) + len(t.context)) // 4 for t in tasks)
        rubrics = sum(sum(1 for c in t.checks if c.kind == "rubric") for t in tasks)
        calls += fresh
        tokens_in += fresh * per_task // len(tasks)
        tokens_out += fresh * out_tokens
        rubric_calls += fresh * rubrics // len(tasks)
        # the fresh rollouts run under budget + 1 texts (each edit alone, and all together)
        prefix = sum(len(system_text(ws.texts, t)) for t in tasks) // len(tasks) // CHARS_PER_TOKEN
        shared += [(prefix, max(1, fresh // (budget + 1)))] * (budget + 1)
    for phase, tasks in phases:
        for task in tasks:
            system = system_text(ws.texts, task)
            for sample in range(k):
                if phase != "after" and store is not None and store.cache_get(cache_key(task, system, sample, target)):
                    cached += 1
                    continue
                calls += 1
                tokens_in += (len(system) + len(task.intent) + len(task.context)) // CHARS_PER_TOKEN
                tokens_out += out_tokens
                rubric_calls += sum(1 for c in task.checks if c.kind == "rubric")
                prefixes[(phase, system)] = prefixes.get((phase, system), 0) + 1
    rounds = settings.night.steps
    reflect_in = 4000 + 800 * settings.night.reflect_tasks
    calls += rounds + rubric_calls
    tokens_in += rounds * reflect_in + rubric_calls * 600
    tokens_out += rounds * settings.roles.optimizer.max_tokens // 2 + rubric_calls * 60
    prices, model = settings.budget.prices, target.model
    writes = reads = 0
    shared += [(len(system) // CHARS_PER_TOKEN, n) for (_, system), n in prefixes.items()]
    for size, n in shared:
        if size >= MIN_CACHED_TOKENS and settings.roles.target.prompt_cache:
            writes, reads = writes + size, reads + size * (n - 1)
    cost = cost_for(model, tokens_in, tokens_out, prices)
    cost_cached = cost_for(model, tokens_in, tokens_out, prices, cache_write=writes, cache_read=reads)
    cost_batch = cost_for(model, tokens_in, tokens_out, prices, cache_write=writes, cache_read=reads,
                          cache_write_1h=writes, batched=True)  # a batch keeps its prefix for an hour
    notes = [] if cost is not None else [f"no price known for {model}: add [budget.prices] to the config"]
    batch = settings.night.batch
    spend = cost_for(model, tokens_in, tokens_out, prices, batched=batch)
    b = settings.budget
    within = (b.max_calls is None or calls <= b.max_calls) and \
             (b.max_tokens is None or tokens_in + tokens_out <= b.max_tokens) and \
             (b.max_cost_usd is None or spend is None or spend <= b.max_cost_usd)
    return Estimate(calls, cached, tokens_in, tokens_out, cost, within, tuple(notes),
                    cost_cached, cost_batch, batch)
