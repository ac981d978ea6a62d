"""The estimator as it was before it modelled the night more closely (kept for bench/estimate.py's
before/after; not part of the product).

``run --estimate``: what a night would call, spend and cost, before spending anything.

Three prices: the full one (every prompt token at the input price, synchronous), with prompt
caching (the system prefix of each phase written once and read by its other calls, where it is
long enough to be cached), and with caching through the batch API (half of that). The budget is
compared with the full price of the way the night will run (batch or not): cache hits are likely,
not promised.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.estimate_before.rehearse import GateForecast, Outlook, forecast
from skillopt_sleep.backends.base import Backend
from skillopt_sleep.backends.budget import CHARS_PER_TOKEN, cost_for
from skillopt_sleep.envs.agent import agent_cache_tag
from skillopt_sleep.evidence import EvidencePolicy
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.optimize.select import Selection
from skillopt_sleep.rollouts.agent_dispatch import ReplayMode, agent_share, wants_agent
from skillopt_sleep.rollouts.replay import cache_key, system_text
from skillopt_sleep.rules.guards import edit_budget
from skillopt_sleep.rules.workspace import Workspace
from skillopt_sleep.settings import Settings
from skillopt_sleep.store import Store

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
    calls_bound: int = 0  # the most calls the night can make (see :func:`estimate_night`)
    gate_expected: float = 0.0  # of ``calls``: the edit gate's fresh rollouts, expected
    gate_bound: int = 0  # ... and at most
    gate_parts: tuple[tuple[str, float], ...] = ()  # the expected rollouts by part of the gate
    gate_saved: float = 0.0  # the rollouts its early stops are expected to save


@dataclass
class _Tally:
    """Calls and tokens counted so far, and the cached prefixes they share."""

    calls: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    rubric_calls: int = 0
    shared: list[tuple[int, int]] = field(default_factory=list)  # (prefix tokens, calls sharing)


def estimate_night(
    sel: Selection,
    ws: Workspace,
    settings: Settings,
    target: Backend,
    store: Store | None,
    night_index: int = 0,
) -> Estimate:
    """The train replay (less what the cache holds), then the fresh rollouts of the edits' tests as
    the gate's own code spends them on a rehearsal (:mod:`.evidence.rehearse`); the reflections and
    rubric calls. ``calls`` is the expected count; ``calls_bound`` the most, with at most one edit
    per case shown a round."""
    k = settings.night.k
    out_tokens = int(settings.roles.target.max_tokens * OUTPUT_SHARE)
    tally, tasks, rubric_rate = _Tally(), [*sel.train, *sel.holdout], 0.0
    budget = edit_budget(settings.night, night_index)
    gate = _forecast(sel, ws, settings, target, store, budget)
    fresh = round(gate.expected)
    if tasks and sel.train:
        tally.tokens_in, tally.rubric_calls, rubric_rate, tally.shared = _fresh_share(
            tasks, ws, fresh, budget
        )
        tally.calls, tally.tokens_out = fresh, fresh * out_tokens
    _count_train_replay(tally, sel.train, ws, target, store, (k, out_tokens), settings)
    rounds = settings.night.steps
    tally.calls += rounds + tally.rubric_calls
    # at most: every test to its full course, and each reflection asked twice (a malformed reply)
    calls_bound = tally.calls + math.ceil((gate.bound - fresh) * (1 + rubric_rate)) + rounds
    if settings.budget.max_calls is not None:  # the budget stops a night there, whatever it planned
        calls_bound = min(calls_bound, max(tally.calls, settings.budget.max_calls))
    tally.tokens_in += (4000 + 800 * settings.night.reflect_tasks) * rounds
    tally.tokens_in += tally.rubric_calls * 600
    agent_in, agent_note = _agent_tokens(sel, settings, ws, store, fresh)
    tally.tokens_in += agent_in
    tally.tokens_out += rounds * settings.roles.optimizer.max_tokens // 2 + tally.rubric_calls * 60
    model = target.model
    cost, cost_cached, cost_batch = _costs(settings, model, tally)
    unpriced = f"no price known for {model}: add [budget.prices] to the config"
    notes = ([] if cost is not None else [unpriced]) + ([agent_note] if agent_note else [])
    return Estimate(
        tally.calls,
        tally.cached,
        tally.tokens_in,
        tally.tokens_out,
        cost,
        _within(settings, model, tally),
        tuple(notes),
        cost_cached,
        cost_batch,
        settings.night.batch,
        calls_bound,
        round(gate.expected, 1),
        gate.bound,
        tuple((p, round(n, 1)) for p, n in gate.parts.items()),
        round(sum(gate.saved.values()), 1),
    )


def _forecast(
    sel: Selection,
    ws: Workspace,
    settings: Settings,
    target: Backend,
    store: Store | None,
    budget: int,
) -> GateForecast:
    """The gate's fresh rollouts, rehearsed on tonight's tasks at the cached pass rates."""
    return forecast(
        [*sel.train, *sel.holdout],
        sel.train,
        _known_rates(sel.train, ws, target, store, settings.night.k),
        EvidencePolicy.from_settings(settings.night),
        budget,
        _outlook(settings, ws, store),
        seed=settings.night.seed,
    )


def _key(
    task: TaskRecord, system: str, sample: int, target: Backend, agent: tuple[ReplayMode, int]
) -> str:
    """The cache key the night's replay will look up: an agent rollout's where the task's agent
    replays it under ``agent`` (the replay mode, the turn limit), as the night assumes it can."""
    mode, max_turns = agent
    tag = (
        agent_cache_tag(task.source, None, max_turns, task.commit)
        if wants_agent(task, mode)
        else ""
    )
    return cache_key(task, system, sample, target, tag)


def _count_train_replay(
    tally: _Tally,
    train: Sequence[TaskRecord],
    ws: Workspace,
    target: Backend,
    store: Store | None,
    sizes: tuple[int, int],
    settings: Settings,
) -> None:
    """The train replay's calls and tokens, less what the cache holds, into ``tally``; ``sizes``
    is (K, the tokens of an answer)."""
    (k, out_tokens), night = sizes, settings.night
    prefixes: dict[str, int] = {}  # system text -> calls sharing that prefix
    for task in train:
        system = system_text(ws.texts, task)
        for sample in range(k):
            key = _key(task, system, sample, target, (night.replay, night.agent_max_turns))
            if store is not None and store.cache_get(key):
                tally.cached += 1
                continue
            tally.calls += 1
            tally.tokens_in += (
                len(system) + len(task.intent) + len(task.context)
            ) // CHARS_PER_TOKEN
            tally.tokens_out += out_tokens
            tally.rubric_calls += sum(1 for c in task.checks if c.kind == "rubric")
            prefixes[system] = prefixes.get(system, 0) + 1
    tally.shared += [(len(system) // CHARS_PER_TOKEN, n) for system, n in prefixes.items()]


def _agent_tokens(
    sel: Selection, settings: Settings, ws: Workspace, store: Store | None, fresh: int
) -> tuple[int, str]:
    """The input tokens of the night's agent rollouts, and the estimate's note on them. An agent
    rollout reads the project and runs tools: far more than a text reply. What one spends comes
    from this project's last nights' agent rollouts, or a flat prior before any."""
    everyone = [*sel.train, *sel.holdout]
    nights = [n.summary for n in store.nights(project=str(ws.project), limit=5)] if store else []
    agent_tasks, note, per_rollout = agent_share(everyone, settings.night.replay, nights)
    k = settings.night.k
    rollouts = (k * len(sel.train) + (fresh if sel.train else 0)) * agent_tasks
    return rollouts // max(1, len(everyone)) * per_rollout, note


def _within(settings: Settings, model: str, tally: _Tally) -> bool:
    """Whether the night's full price (batch or not), calls and tokens fit the budget."""
    b = settings.budget
    spend = cost_for(
        model, tally.tokens_in, tally.tokens_out, b.prices, batched=settings.night.batch
    )
    return (
        (b.max_calls is None or tally.calls <= b.max_calls)
        and (b.max_tokens is None or tally.tokens_in + tally.tokens_out <= b.max_tokens)
        and (b.max_cost_usd is None or spend is None or spend <= b.max_cost_usd)
    )


def _fresh_share(
    tasks: Sequence[TaskRecord], ws: Workspace, fresh: int, budget: int
) -> tuple[int, int, float, list[tuple[int, int]]]:
    """The gate's ``fresh`` rollouts over ``tasks``: input tokens, rubric calls, rubric calls per
    rollout, and the cached prefixes they share (under budget + 1 texts: each edit alone, all together)."""
    per_task = sum(
        (len(system_text(ws.texts, t)) + len(t.intent) + len(t.context)) // 4 for t in tasks
    )
    rubrics = sum(sum(1 for c in t.checks if c.kind == "rubric") for t in tasks)
    prefix = sum(len(system_text(ws.texts, t)) for t in tasks) // len(tasks) // CHARS_PER_TOKEN
    shared = [(prefix, max(1, fresh // (budget + 1)))] * (budget + 1)
    return (
        fresh * per_task // len(tasks),
        fresh * rubrics // len(tasks),
        rubrics / len(tasks),
        shared,
    )


def _costs(
    settings: Settings,
    model: str,
    tally: _Tally,
) -> tuple[float | None, float | None, float | None]:
    """The full price, with prompt caching, and with caching through the batch API."""
    prices, writes, reads = settings.budget.prices, 0, 0
    tokens_in, tokens_out, shared = tally.tokens_in, tally.tokens_out, tally.shared
    for size, n in shared:
        if size >= MIN_CACHED_TOKENS and settings.roles.target.prompt_cache:
            writes, reads = writes + size, reads + size * (n - 1)
    cost = cost_for(model, tokens_in, tokens_out, prices)
    cost_cached = cost_for(
        model, tokens_in, tokens_out, prices, cache_write=writes, cache_read=reads
    )
    cost_batch = cost_for(
        model,
        tokens_in,
        tokens_out,
        prices,
        cache_write=writes,
        cache_read=reads,
        cache_write_1h=writes,
        batched=True,
    )  # a batch keeps its prefix for an hour
    return cost, cost_cached, cost_batch


def _known_rates(
    train: Sequence[TaskRecord], ws: Workspace, target: Backend, store: Store | None, k: int
) -> dict[str, float]:
    """Each train task's pass rate in its cached replay under tonight's files; the others (no cache,
    or held out) at the mean of those known."""
    rates: dict[str, float] = {}
    for task in train:
        system = system_text(ws.texts, task)
        hits = (
            [store.cache_get(cache_key(task, system, s, target)) for s in range(k)] if store else []
        )
        passed = [bool(h["passed"]) for h in hits if h is not None and h.get("score") is not None]
        if passed:
            rates[task.id] = sum(passed) / len(passed)
    return rates


def _outlook(settings: Settings, ws: Workspace, store: Store | None) -> Outlook:
    """Edits a round and the share that passed efficacy, from this project's last nights (the
    defaults of :class:`Outlook` before the first)."""
    cases = settings.night.reflect_tasks
    nights = [
        n.summary
        for n in (store.nights(project=str(ws.project), limit=5) if store else [])
        if n.summary.evidence
    ]  # a dry run proposed and tested as a night does
    if not nights:
        return Outlook(cases=cases, proposals_max=cases + 2)
    tested = [e for s in nights for e in s.evidence]
    rounds = sum(max(e.round for e in s.evidence) for s in nights)
    helped = sum(e.verdict not in ("no_effect", "worse", "inconclusive") for e in tested)
    return Outlook(
        proposals=len(tested) / rounds,
        helpful=helped / len(tested),
        cases=cases,
        proposals_max=max(cases + 2, *(len(s.evidence) for s in nights)),
    )
