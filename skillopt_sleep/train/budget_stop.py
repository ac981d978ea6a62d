"""What a run stopped by its budget says: how much more the unfinished part needs, and which
limit to raise to what. A stopped run resumes from its last finished unit and counts what it spent
already, so the same command with the same budget stops again at once: it needs more budget."""

from __future__ import annotations

import math

from ..backends.budget import Budget
from .config import TrainConfig
from .data import TaskSet
from .estimate import priced, unfinished
from .rundir import RunState

ENV = "SKILLOPT_SLEEP_BUDGET__"
AGAIN = "then run the same command again to resume"
# An expected count runs under the real one about as often as over (step 2 of the sample run:
# 198 expected, 232 spent): the limit asked for leaves a quarter more.
MARGIN = 1.25


def resume_hint(
    c: TrainConfig,
    data: TaskSet,
    skill: str,
    state: RunState | None,
    budget: Budget,
    models: tuple[str, str],
) -> str:
    """``step 0002-e1-s2 needs about 198 more calls: raise budget.max_calls to at least 648
    (SKILLOPT_SLEEP_BUDGET__MAX_CALLS=648), then run ...``: each limit the unfinished part would
    go over (its expected spend and a margin on what was spent), else the advice to raise the
    budget."""
    done = state.unit if state is not None else 0
    val_scored = state is not None and state.initial_val is not None
    label, target, optimizer = unfinished(c, data, done, val_scored)
    need = priced(c, data, skill, budget.limits, (target, optimizer), models)
    spent, lim = budget.total, budget.limits
    raises = []
    calls = spent.calls + math.ceil(need.calls * MARGIN)
    if lim.max_calls is not None and calls > lim.max_calls:
        raises.append(("max_calls", f"{calls}"))
    tokens = spent.tokens + math.ceil((need.input_tokens + need.output_tokens) * MARGIN)
    if lim.max_tokens is not None and tokens > lim.max_tokens:
        raises.append(("max_tokens", f"{tokens}"))
    cost = None if need.cost_usd is None else spent.cost_usd + need.cost_usd * MARGIN
    if lim.max_cost_usd is not None and (cost is None or cost > lim.max_cost_usd):
        raises.append(
            ("max_cost_usd", "" if cost is None else f"{math.ceil(cost * 100) / 100:.2f}")
        )
    what = f"{label} needs about {need.calls} more calls"
    if not raises:
        return f"{what}: raise the budget, {AGAIN}"
    asks = [
        f"budget.{key} to at least {value} ({ENV}{key.upper()}={value})"
        if value
        else f"budget.{key} (its model has no price: the cost is not known)"
        for key, value in raises
    ]
    return f"{what}: raise {' and '.join(asks)}, {AGAIN}"
