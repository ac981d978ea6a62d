"""``train --estimate``: the calls, tokens and cost a run would spend, before spending anything.

Counted unit by unit as the loop will run them (:func:`~.loop.units`), on the very items it will
draw (each step's batch and each slow update's sample are seeded by the run's seed): the batch's K
rollouts, the reflection calls (one per analyst and minibatch), the gate's fresh rollouts as the
night's gate draws them (:func:`~skillopt_sleep.evidence.rehearse.forecast`: the gate's own
tests, with their looks and early stops, rehearsed on imagined rollouts at the gate's own levels,
with as many edits tested as the step may accept), the validation scores of the skills it
changes, the slow update and meta skill at each epoch's end, and the test report. An expected
count: what the optimizer proposes and the replays answer is not known before the run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..backends.budget import CHARS_PER_TOKEN, cost_for
from ..evidence import EvidencePolicy
from ..evidence.rehearse import Outlook, forecast
from ..models import TaskRecord
from ..settings import BudgetSettings
from .batches import stratified
from .config import TrainConfig
from .data import TaskSet
from .loop import Unit, derive, units
from .spending import gate_levels, step_budget
from .step import round_settings
from .step_gate import StepGate

OUTPUT_SHARE = 0.35  # an answer's tokens, as a share of max_tokens
CHANGED = 0.5  # the chance a gate changes the skill (a new skill is scored on validation)
HELPFUL = (
    1.0  # share of tested edits that help: a task set teaches something, a typed batch shows it all
)
SHOWN_SLOW = (
    0.5  # share of a slow update's sample that moved or still fails (shown to the optimizer)
)


@dataclass(frozen=True)
class TrainEstimate:
    calls: int
    target_calls: int
    optimizer_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    within_budget: bool
    note: str = ""  # how the replays were priced, when it is not by their text (agent rollouts)


def reflections(items: int, k: int, minibatch: int) -> int:
    """Reflection calls over ``items`` cases, one per analyst and minibatch: items of unknown pass
    rate (uniform) fall to the success and failure analysts with chance 1/(k+1) each."""
    if items == 0:
        return 0
    edge = items / (k + 1)
    shares = (items - 2 * edge, edge, edge)
    return sum(math.ceil(n / minibatch) for n in shares if n >= 0.5)


def _gate(
    c: TrainConfig,
    data: TaskSet,
    shown: Sequence[TaskRecord],
    gate: int,
    budget: int,
    step_gate: StepGate | None,
) -> float:
    """The gate's expected fresh rollouts: the evidence gate's forecast, or what a benchmark's
    gate says it draws."""
    val = len(data.val) * c.val_k
    own = step_gate.fresh_rollouts(c, val, bool(shown)) if step_gate is not None else None
    if own is not None:
        return own
    tasks = list({t.id: t for t in (*shown, *data.val)}.values())
    policy = EvidencePolicy.from_settings(round_settings(c, gate_levels(c, gate), budget))
    outlook = Outlook(proposals=budget, helpful=HELPFUL, proposals_max=budget, cases=len(shown))
    expected = forecast(
        tasks, shown, {}, policy, budget, outlook, seed=derive(c.seed, gate)
    ).expected
    return expected + val * CHANGED


def _unit(
    c: TrainConfig, data: TaskSet, index: int, unit: Unit, gate: int, step_gate: StepGate | None
) -> tuple[float, int]:
    """(target calls, optimizer calls) of one unit, expected."""
    pool = sorted(data.train, key=lambda t: t.id)
    budget = step_budget(c, unit.step)
    if unit.kind == "step":
        batch = stratified(pool, c.batch_size, random.Random(derive(c.seed, index, "batch")))
        target = len(batch) * c.k + _gate(c, data, batch, gate, budget, step_gate)
        return target, reflections(len(batch), c.k, c.minibatch)
    target, optimizer = 0.0, int(c.meta_skill)
    if c.slow_update:
        sample = random.Random(derive(c.seed, index, "slow")).sample(
            pool, min(c.slow_sample, len(pool))
        )
        shown = sample[: max(1, round(len(sample) * SHOWN_SLOW))]
        target = 2 * len(sample) * c.k + _gate(c, data, shown, gate, budget, step_gate)
        optimizer += reflections(len(shown), c.k, c.minibatch)
    return target, optimizer


def estimate_train(
    config: TrainConfig,
    data: TaskSet,
    skill: str,
    budget: BudgetSettings,
    *,
    target_model: str,
    optimizer_model: str,
    agent_tokens: tuple[int, str] | None = None,
    gate: StepGate | None = None,
) -> TrainEstimate:
    """The run's expected calls, tokens and cost. ``agent_tokens``: under ``--env agent``, the
    tokens an agent rollout spends and where that figure comes from; every replay is priced at it
    (an agent reads the project and runs tools: far more than a text reply). ``gate``: the gate
    the run is given (None: the evidence gate)."""
    c = config
    target, optimizer = float(len(data.val) * c.val_k), 0
    number = 0
    for index, unit in enumerate(units(c)):
        if unit.kind == "step" or c.slow_update:
            number += 1
        t, o = _unit(c, data, index, unit, number, gate)
        target, optimizer = target + t, optimizer + o
    target += 2 * len(data.test) * c.test_k
    items = [*data.train, *data.val, *data.test]
    rubric = sum(sum(ch.kind == "rubric" for ch in t.checks) for t in items) / max(1, len(items))
    target_calls = round(target * (1 + rubric))
    return _priced(
        c,
        items,
        skill,
        budget,
        target_calls,
        optimizer,
        target_model,
        optimizer_model,
        agent_tokens,
    )


def _priced(
    c: TrainConfig,
    items: Sequence[TaskRecord],
    skill: str,
    budget: BudgetSettings,
    target: int,
    optimizer: int,
    target_model: str,
    optimizer_model: str,
    agent_tokens: tuple[int, str] | None = None,
) -> TrainEstimate:
    """The calls' tokens and cost, and whether they fit the budget."""
    item_chars = sum(len(t.intent) + len(t.context) for t in items) / max(1, len(items))
    in_target = int((len(skill) + item_chars + 400) / CHARS_PER_TOKEN)
    note = ""
    if agent_tokens is not None:  # counted as input, as the night counts an agent rollout's
        in_target, source = agent_tokens
        note = f"every replay is an agent rollout: about {in_target:,} tokens each ({source})"
    in_opt = int((len(skill) + 6 * 1500) / CHARS_PER_TOKEN)
    out_target = int(c.max_tokens * OUTPUT_SHARE)
    out_opt = int(c.optimizer_max_tokens * OUTPUT_SHARE)
    tokens_in = target * in_target + optimizer * in_opt
    tokens_out = target * out_target + optimizer * out_opt
    cost_t = cost_for(target_model, target * in_target, target * out_target, budget.prices)
    cost_o = cost_for(optimizer_model, optimizer * in_opt, optimizer * out_opt, budget.prices)
    cost = None if cost_t is None or cost_o is None else cost_t + cost_o
    calls = target + optimizer
    within = (
        (budget.max_calls is None or calls <= budget.max_calls)
        and (budget.max_tokens is None or tokens_in + tokens_out <= budget.max_tokens)
        and (budget.max_cost_usd is None or cost is None or cost <= budget.max_cost_usd)
    )
    return TrainEstimate(calls, target, optimizer, tokens_in, tokens_out, cost, within, note)


def unfinished(
    c: TrainConfig, data: TaskSet, done: int, val_scored: bool, gate: StepGate | None = None
) -> tuple[str, int, int]:
    """What a run that finished ``done`` units (and scored the initial skill on validation, or
    not) does next, and its expected (target calls, optimizer calls): the next unit redone
    whole, or the test report."""
    target, optimizer = float(0 if val_scored else len(data.val) * c.val_k), 0
    plan = units(c)
    if done >= len(plan):
        label = "the test report"
        target += 2 * len(data.test) * c.test_k
    else:
        unit = plan[done]
        label = f"{'step' if unit.kind == 'step' else 'slow update'} {unit.name(done)}"
        number = sum(u.kind == "step" or c.slow_update for u in plan[: done + 1])
        t, optimizer = _unit(c, data, done, unit, number, gate)
        target += t
    if not val_scored:
        label = f"the initial skill's validation and {label}"
    items = [*data.train, *data.val, *data.test]
    rubric = sum(sum(ch.kind == "rubric" for ch in t.checks) for t in items) / max(1, len(items))
    return label, round(target * (1 + rubric)), optimizer


def priced(
    c: TrainConfig,
    data: TaskSet,
    skill: str,
    budget: BudgetSettings,
    calls: tuple[int, int],
    models: tuple[str, str],
) -> TrainEstimate:
    """The tokens and cost of ``calls`` (target, optimizer) on ``models`` (target, optimizer)."""
    items = [*data.train, *data.val, *data.test]
    return _priced(c, items, skill, budget, *calls, *models)
