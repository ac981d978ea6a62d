"""What ``run --estimate`` prices an agent rollout at: as the night holds it against the money cap,
not at the target model's price of its tokens. The average cost of the agent rollouts this
project's last nights recorded (Claude Code's own ``total_cost_usd``, Codex's tokens at its
model's price), or before any, the prior of the model the agent runs on
(:func:`~..envs.agent_costs.prior_usd`): the dearest of the agents that would replay tonight."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..envs.agent import ROLE
from ..envs.agent_costs import EXPECTED_TOKENS, PRIOR_OUTPUT_TOKENS, prior_usd
from ..models import NightSummary, TaskRecord
from ..rollouts.agent_dispatch import AgentReplays, ReplayMode
from ..settings import Price


def agent_models(
    agents: AgentReplays | None, mode: ReplayMode, tasks: Sequence[TaskRecord]
) -> dict[str, str]:
    """Each agent that would replay some of ``tasks`` and the model it runs on (``agents``: the
    night's; None: each agent's own default model)."""
    return (agents or AgentReplays(mode, _unprepared)).models(tasks)


def _unprepared(agent: str) -> str:
    return "the estimate prepares no agent"


def rollout_usd(
    nights: Sequence[NightSummary], models: Mapping[str, str], prices: dict[str, Price]
) -> tuple[float | None, str]:
    """USD an agent rollout is expected to cost, and where that comes from (None: unknown, the
    reason naming the model with no price). ``models``: each agent that would replay tonight and
    the model it runs on."""
    used = [
        n.usage_by_role[ROLE]
        for n in nights
        if n.usage_by_role.get(ROLE) and not n.usage_by_role[ROLE].unpriced_calls
    ]
    calls = sum(u.calls for u in used)
    if calls:
        usd = sum(u.cost_usd for u in used) / calls
        return usd, f"the average of {calls} agent rollouts of the last {len(used)} nights"
    priors = {model: prior_usd(model, prices) for model in models.values()}
    unpriced = sorted(m for m, usd in priors.items() if usd is None)
    if unpriced:
        return None, f"no price for {', '.join(unpriced)}, the model the agent runs on"
    model = max(priors, key=lambda m: priors[m] or 0.0, default="")
    return priors.get(model, 0.0), (
        f"a prior: {EXPECTED_TOKENS:,} input and {PRIOR_OUTPUT_TOKENS:,} output tokens "
        f"at the price of {model}"
    )


def with_rollouts(
    costs: Sequence[float | None], n: int, usd: float | None, why: str
) -> tuple[list[float | None], str]:
    """``costs`` with ``n`` agent rollouts of ``usd`` each added (an unknown ``usd`` makes each
    unknown), and the estimate's words on their price ("" with none)."""
    if not n:
        return list(costs), ""
    added = [None if c is None or usd is None else c + n * usd for c in costs]
    return added, f"; ${usd:.4f} a rollout ({why})" if usd is not None else f"; {why}"
