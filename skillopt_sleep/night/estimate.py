"""``run --estimate``: what a night would call, spend and cost, before spending anything.

Three prices: the full one (every prompt token at the input price, synchronous), with prompt
caching (the system prefix of each phase written once and read by its other calls, where it is
long enough to be cached), and with caching through the batch API (half of that). The budget is
compared with the full price of the way the night will run (batch or not): cache hits are likely,
not promised. Agent rollouts are priced as the night holds them (:mod:`.estimate_agents`), in all
three; a money cap the user set that no price lets a night hold is said so, never "within".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..backends.base import Backend
from ..backends.budget import CHARS_PER_TOKEN, cost_for, unpriced_cap
from ..envs.agent import agent_cache_tag
from ..evidence import EvidencePolicy
from ..evidence.kinds import kind_of
from ..evidence.rehearse import bound
from ..models import TaskRecord
from ..optimize.select import Selection
from ..rollouts.agent_dispatch import AgentReplays, ReplayMode, agent_share, wants_agent
from ..rollouts.replay import cache_key, system_text
from ..rules.guards import edit_budget
from ..rules.workspace import Workspace
from ..settings import Settings
from ..store import Store
from .estimate_agents import agent_models, rollout_usd, with_rollouts
from .estimate_history import last_nights, most_edits, proposals
from .estimate_ways import ways
from .rehearsal import RoundsForecast, forecast_rounds

# What an answer costs on average, as a share of max_tokens (replays are short answers).
OUTPUT_SHARE = 0.35
MIN_CACHED_TOKENS = 1024  # the shortest prefix the providers cache
# A task's pass rate when nothing is cached of it or its kind: a corrected task was answered wrong.
OUTCOME_RATE = {"failure": 0.25, "success": 0.75}
PRIOR_RATE = 0.5
PRIOR_WEIGHT = 2  # rollouts the prior counts for against a kind's cached ones


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
    calls_mean: int = 0  # the calls over many such nights, on average (``calls`` is one night's)
    p_proven: float = 0.0  # the chance the night proves an edit (and so pays for its harm check)
    calls_if_proven: int | None = None  # the calls if it does (None: no rehearsal did)
    calls_if_not: int | None = None  # ... and if it proves none (None: every rehearsal did)
    calls_miss: float = 0.0  # how far ``calls`` is expected to miss, as |est - actual| / actual


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
    agents: AgentReplays | None = None,
) -> Estimate:
    """The train replay (less what the cache holds), then the reflections and the fresh rollouts of
    the edits' tests as the night's own rounds spend them on rehearsals (:mod:`.rehearsal`); the
    rubric calls. ``calls`` is the single number nearest a night on average
    (:func:`.estimate_ways.nearest`), its tokens and cost that rehearsal's; ``calls_mean`` the
    mean, ``calls_if_proven`` / ``calls_if_not`` the two ways a night goes;
    ``calls_bound`` the most, with at most one edit per case shown a round
    (:func:`.evidence.rehearse.bound`); ``agents``: the agents' models (None: their own)."""
    k = settings.night.k
    out_tokens = int(settings.roles.target.max_tokens * OUTPUT_SHARE)
    plan, most = _plan(sel, ws, settings, target, store, night_index)
    base = _Tally()
    _count_train_replay(base, sel.train, ws, target, store, (k, out_tokens), settings)
    size = (sel, ws, settings, night_index)
    mean, rubric_rate = _night_tally(base, size, plan.rollouts, plan.reflections)
    runs = [(_night_tally(base, size, r.rollouts, r.reflections)[0], r) for r in plan.runs]
    way = ways([(t.calls, r.proven) for t, r in runs], mean.calls)
    tally, fresh = next(((t, r.rollouts) for t, r in runs if t.calls == way.calls), (mean, 0))
    fresh, steps = fresh if runs else round(plan.rollouts), _steps(sel, settings, night_index)
    calls_bound = _calls_bound(mean.calls, (steps, plan, most, rubric_rate), settings)
    agent_n, agent_in, agent_note = _agent_tokens(sel, settings, ws, store, fresh)
    night = (settings, target.model, [*sel.train, *sel.holdout], agents)
    prices, refused = _money(night, (tally, mean), ws, store)
    (cost, cost_cached, cost_batch, mean_cost), words = with_rollouts(prices, agent_n, *refused[1])
    tally.tokens_in += agent_in
    notes = refused[0] + ([agent_note + words] if agent_note else [])
    notes += _over_budget(settings, way.if_proven)
    return Estimate(
        way.calls,
        tally.cached,
        tally.tokens_in,
        tally.tokens_out,
        cost,
        not refused[2] and _within(settings, mean, mean_cost),
        tuple(notes),
        cost_cached,
        cost_batch,
        settings.night.batch,
        calls_bound,
        round(plan.rollouts, 1),
        most,
        tuple((p, round(n, 1)) for p, n in plan.parts.items()),
        round(sum(plan.saved.values()), 1),
        way.mean,
        way.p_proven,
        way.if_proven,
        way.if_not,
        way.miss,
    )


def _calls_bound(
    calls: int, night: tuple[int, RoundsForecast, int, float], settings: Settings
) -> int:
    """The most calls: every test to its full course, and each reflection asked twice (a
    malformed reply); never past max_calls, where the budget stops a night, whatever it planned."""
    steps, plan, most, rubric_rate = night
    rounds, drawn = min(steps, round(plan.reflections)), round(plan.rollouts)
    bound_ = calls - rounds + math.ceil((most - drawn) * (1 + rubric_rate)) + 2 * steps
    if settings.budget.max_calls is not None:
        bound_ = min(bound_, max(calls, settings.budget.max_calls))
    return bound_


def _over_budget(settings: Settings, if_proven: int | None) -> list[str]:
    """A note when a night that proves an edit would need more calls than the budget allows."""
    most = settings.budget.max_calls
    if if_proven is None or most is None or if_proven <= most:
        return []
    note = (
        f"if an edit is proven the night needs about {if_proven} calls, more than "
        f"budget.max_calls = {most}: it would stop there and say what it skipped "
        "(raise [budget] max_calls to let it finish)"
    )
    return [note]


def _steps(sel: Selection, settings: Settings, night_index: int) -> int:
    """The rounds the night may run: none without a task to learn from or an edit to spend."""
    budget = edit_budget(settings.night, night_index)
    return settings.night.steps if sel.train and budget > 0 else 0


def _night_tally(
    base: _Tally,
    size: tuple[Selection, Workspace, Settings, int],
    rollouts: float,
    reflections: float,
) -> tuple[_Tally, float]:
    """``base`` (the train replay) with ``rollouts`` fresh gate rollouts and ``reflections``
    rounds added, with their rubric calls and tokens; and the rubric calls per rollout. ``size``
    is the night: its tasks, files, settings and index."""
    sel, ws, settings, night_index = size
    tally = _Tally(base.calls, base.cached, base.tokens_in, base.tokens_out, base.rubric_calls)
    tasks, fresh, rubric_rate = [*sel.train, *sel.holdout], round(rollouts), 0.0
    budget = edit_budget(settings.night, night_index)
    tally.shared = list(base.shared)
    if tasks and sel.train:
        tokens_in, rubric_calls, rubric_rate, shared = _fresh_share(tasks, ws, fresh, budget)
        tally.tokens_in += tokens_in
        tally.rubric_calls += rubric_calls
        tally.shared += shared
        tally.calls += fresh
        tally.tokens_out += fresh * int(settings.roles.target.max_tokens * OUTPUT_SHARE)
    rounds = min(_steps(sel, settings, night_index), round(reflections))
    tally.calls += rounds + tally.rubric_calls
    tally.tokens_in += (4000 + 800 * settings.night.reflect_tasks) * rounds
    tally.tokens_in += tally.rubric_calls * 600
    tally.tokens_out += rounds * settings.roles.optimizer.max_tokens // 2 + tally.rubric_calls * 60
    return tally, rubric_rate


def _plan(
    sel: Selection,
    ws: Workspace,
    settings: Settings,
    target: Backend,
    store: Store | None,
    night_index: int,
) -> tuple[RoundsForecast, int]:
    """Tonight's rounds rehearsed at the tasks' known rates, and the gate's most fresh rollouts."""
    nights = last_nights(ws, store)
    rates = _known_rates(sel, ws, target, store, settings.night.k)
    plan = forecast_rounds(
        sel, rates, settings.night, night_index, proposals(nights), seed=settings.night.seed
    )
    budget = edit_budget(settings.night, night_index)
    policy = EvidencePolicy.from_settings(settings.night)
    return plan, bound(
        len(sel.train) + len(sel.holdout), policy, budget, most_edits(settings, nights)
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
) -> tuple[int, int, str]:
    """The night's agent rollouts, their input tokens, and the estimate's note on them. An agent
    rollout reads the project and runs tools: far more than a text reply. What one spends comes
    from this project's last nights' agent rollouts, or a flat prior before any."""
    everyone = [*sel.train, *sel.holdout]
    nights = [n.summary for n in store.nights(project=str(ws.project), limit=5)] if store else []
    agent_tasks, note, per_rollout = agent_share(everyone, settings.night.replay, nights)
    k = settings.night.k
    rollouts = (k * len(sel.train) + (fresh if sel.train else 0)) * agent_tasks
    n = rollouts // max(1, len(everyone))
    return n, n * per_rollout, note


def _money(
    night: tuple[Settings, str, list[TaskRecord], AgentReplays | None],
    tallies: tuple[_Tally, _Tally],
    ws: Workspace,
    store: Store | None,
) -> tuple[list[float | None], tuple[list[str], tuple[float | None, str], bool]]:
    """The night's prices before its agent rollouts (full, cached, batch; the mean's full), and
    its notes on prices, an agent rollout's (USD, why) and whether the cap cannot be held."""
    settings, model, tasks, agents = night
    tally, mean = tallies
    b = settings.budget
    models = agent_models(agents, settings.night.replay, tasks)
    batched = settings.night.batch
    mean_cost = cost_for(model, mean.tokens_in, mean.tokens_out, b.prices, batched=batched)
    per = rollout_usd(last_nights(ws, store, tested=False), models, b.prices)
    unpriced = f"no price known for {model}: add [budget.prices] to the config"
    notes = [] if _priced(settings, model) else [unpriced]
    refused = unpriced_cap(b, [model, *_role_models(settings), *models.values()])
    notes += [f"{refused.message}: {refused.hint}"] if refused is not None else []
    return [*_costs(settings, model, tally), mean_cost], (notes, per, refused is not None)


def _priced(settings: Settings, model: str) -> bool:
    return cost_for(model, 1, 1, settings.budget.prices) is not None


def _role_models(settings: Settings) -> list[str]:
    """The optimizer's and the judge's models, where the settings name them."""
    return [r.model for r in (settings.roles.optimizer, settings.roles.judge) if r.model]


def _within(settings: Settings, tally: _Tally, spend: float | None) -> bool:
    """Whether the night's calls, tokens and ``spend`` (its full price, batch or not) fit."""
    b = settings.budget
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
    sel: Selection, ws: Workspace, target: Backend, store: Store | None, k: int
) -> dict[str, float]:
    """Each task's pass rate under tonight's files: the passes of its kind's cached replays (a rule
    adopted for a kind shows there first), drawn towards the rate its recorded outcome suggests (a
    task the user corrected was answered wrong) by :data:`PRIOR_WEIGHT` rollouts, so four passes
    of four read as likely, not certain."""
    tasks = [*sel.train, *sel.holdout]
    seen: dict[str, tuple[int, int]] = {}  # kind -> (passes, rollouts) in the cache
    for task in tasks:
        system = system_text(ws.texts, task)
        hits = (
            [store.cache_get(cache_key(task, system, s, target)) for s in range(k)] if store else []
        )
        passed = [bool(h["passed"]) for h in hits if h is not None and h.get("score") is not None]
        n, ok = seen.get(kind_of(task) or task.id, (0, 0))
        seen[kind_of(task) or task.id] = (n + len(passed), ok + sum(passed))
    rates = {}
    for t in tasks:
        n, ok = seen[kind_of(t) or t.id]
        prior = OUTCOME_RATE.get(t.outcome, PRIOR_RATE)
        rates[t.id] = (ok + PRIOR_WEIGHT * prior) / (n + PRIOR_WEIGHT)
    return rates
