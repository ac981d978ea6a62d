"""``train --estimate``: the calls, tokens and cost a run would spend, before spending anything.

Counted per unit as the loop will run it, every comparison at its full course: the batch's K
rollouts, the reflection calls (one per analyst and minibatch, at most), each tested edit's
efficacy and harm rollouts (the night's own plan, :meth:`EvidencePolicy.planned_rollouts`), the
validation scores of the skills it accepts, the slow update and meta skill at each boundary,
and the test report. An upper-bound-ish estimate: early stops and refused edits cost less.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..backends.budget import CHARS_PER_TOKEN, cost_for
from ..night.evidence import EvidencePolicy
from ..settings import BudgetSettings, NightSettings
from .config import TrainConfig
from .data import TaskSet

OUTPUT_SHARE = 0.35  # an answer's tokens, as a share of max_tokens


@dataclass(frozen=True)
class TrainEstimate:
    calls: int
    target_calls: int
    optimizer_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    within_budget: bool


def estimate_train(
    config: TrainConfig,
    data: TaskSet,
    skill: str,
    budget: BudgetSettings,
    *,
    target_model: str,
    optimizer_model: str,
) -> TrainEstimate:
    c = config
    batch = min(c.batch_size, len(data.train))
    gate_tasks = batch + len(data.val)
    policy = EvidencePolicy.from_settings(
        NightSettings(efficacy_rollouts=c.efficacy_rollouts, harm_rollouts=c.harm_rollouts, steps=1)
    )
    per_gate = policy.planned_rollouts(gate_tasks, c.edit_budget, c.edit_budget)
    val = len(data.val) * c.val_k * (1 + (c.edit_budget if c.gate == "mean" else 1))
    step_target = batch * c.k + per_gate + val
    reflections = 3 * max(1, -(-batch // c.minibatch))
    slow = (2 * min(c.slow_sample, len(data.train)) * c.k + per_gate + val) if c.slow_update else 0
    target = (
        c.total_steps * step_target
        + c.epochs * slow
        + 2 * len(data.test) * c.test_k
        + len(data.val) * c.val_k
    )
    optimizer = c.total_steps * reflections + c.epochs * (
        reflections * c.slow_update + c.meta_skill
    )
    items = [*data.train, *data.val, *data.test]
    item_chars = sum(len(t.intent) + len(t.context) for t in items) / max(1, len(items))
    in_target = int((len(skill) + item_chars + 400) / CHARS_PER_TOKEN)
    in_opt = int((len(skill) + 6 * 1500) / CHARS_PER_TOKEN)
    out_target = int(c.max_tokens * OUTPUT_SHARE)
    out_opt = int(c.optimizer_max_tokens * OUTPUT_SHARE)
    tokens_in, tokens_out = (
        target * in_target + optimizer * in_opt,
        target * out_target + optimizer * out_opt,
    )
    cost_t = cost_for(target_model, target * in_target, target * out_target, budget.prices)
    cost_o = cost_for(optimizer_model, optimizer * in_opt, optimizer * out_opt, budget.prices)
    cost = None if cost_t is None or cost_o is None else cost_t + cost_o
    calls = target + optimizer
    within = (
        (budget.max_calls is None or calls <= budget.max_calls)
        and (budget.max_tokens is None or tokens_in + tokens_out <= budget.max_tokens)
        and (budget.max_cost_usd is None or cost is None or cost <= budget.max_cost_usd)
    )
    return TrainEstimate(calls, target, optimizer, tokens_in, tokens_out, cost, within)
