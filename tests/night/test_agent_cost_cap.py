"""The money cap holds agent rollouts at what they cost: each is reserved, before it starts, at
the most an agent rollout has cost tonight (the first one runs alone, at its model's prior), so a
night stops at max_cost_usd where it used to reserve $0 and run past it. The agent is Claude Code
as SimAgentRunner plays it, reporting the total_cost_usd a real `claude -p` run reported."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from skillopt_sleep.agent_replay import AgentLimits, AgentSetup
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.envs.agent_costs import prior_usd
from skillopt_sleep.night.root import run_night
from skillopt_sleep.rollouts.agent_dispatch import AgentReplays
from skillopt_sleep.settings import BudgetSettings, NightSettings, Price, Settings
from skillopt_sleep.testing.acting_world import RULES, ActingWorld, write_project
from skillopt_sleep.testing.sim_agent import SimAgentRunner

ROLLOUT_USD = 0.197375  # a real `claude -p` run's total_cost_usd (real-transcripts/cli-stdout)
CONCURRENCY = 4
FREE = {"acting-world": Price(input=0.0, output=0.0)}  # the text replays cost nothing here


def _run(tmp_path: Path, world: ActingWorld, runner: SimAgentRunner, settings: Settings):
    """A night of ``world``'s Claude Code tasks, every agent rollout played by ``runner``."""

    def sim(agent):
        return AgentSetup(agent, "claude", {}, Sandbox("bwrap"), AgentLimits(), None, runner)

    project = write_project(tmp_path / "project")
    tasks = [t for t in world.tasks(str(project), n=4) if t.source == "claude-code"]
    result = run_night(
        tasks, project, target=world, settings=settings, seed=1, agents=AgentReplays("agent", sim)
    )
    return result.summary


def _capped(max_cost_usd: float) -> Settings:
    return Settings(
        night=NightSettings(concurrency=CONCURRENCY, efficacy_rollouts=24, efficacy_looks=1),
        budget=BudgetSettings(max_cost_usd=max_cost_usd, prices=FREE),
    )


def _night(tmp_path: Path, max_cost_usd: float, cost_usd: float = ROLLOUT_USD):
    world = ActingWorld(RULES, seed=1)
    runner = SimAgentRunner(world, cost_usd=cost_usd)
    return _run(tmp_path, world, runner, _capped(max_cost_usd)), runner


def test_a_night_of_agent_rollouts_stops_at_the_money_cap_not_past_it(tmp_path):
    summary, runner = _night(tmp_path, max_cost_usd=1.0)
    agent = summary.usage_by_role["agent"]
    assert agent.calls == runner.runs
    assert summary.cost_usd is not None and summary.cost_usd <= 1.0  # was $1.7764: 9 rollouts
    assert runner.runs == 5  # $0.9869: the sixth would have passed the cap
    assert summary.cost_usd == round(5 * ROLLOUT_USD, 6)
    assert summary.decision == "budget_exhausted"
    assert "cost budget reached ($0." in summary.reason
    assert "held by the calls in flight, " in summary.reason
    assert f"the next call may cost ${ROLLOUT_USD:.4f})" in summary.reason  # what one costs


def test_the_overshoot_is_bounded_by_the_rollouts_in_flight_beyond_their_holds(tmp_path):
    """Each rollout costs $0.05 more than the one started before it: the holds lag, and the night
    passes the cap only by what the rollouts in flight cost above their holds. One starts when a
    slot of CONCURRENCY frees, so the rollouts finished then include one started CONCURRENCY
    before it: each in flight is over its hold by at most CONCURRENCY * $0.05."""
    costs = iter([0.10 + 0.05 * i for i in range(200)])

    class Dearer(SimAgentRunner):
        async def run(self, argv, **kw):
            self.cost_usd = next(costs)
            return await super().run(argv, **kw)

    world = ActingWorld(RULES, seed=1)
    runner = Dearer(world)
    summary = _run(tmp_path, world, runner, _capped(2.0))
    spent = [0.10 + 0.05 * i for i in range(runner.runs)]
    assert summary.cost_usd == round(sum(spent), 6)
    assert 2.0 < summary.cost_usd <= 2.0 + CONCURRENCY * (CONCURRENCY * 0.05)


def test_the_first_rollout_runs_alone_held_at_its_model_prior(tmp_path):
    prior = prior_usd("claude-code-default", {})
    assert prior == 0.75  # 40,000 input tokens and 2,000 output at the Opus price
    summary, runner = _night(tmp_path, max_cost_usd=0.70)  # less than the prior: none starts
    assert runner.runs == 0 and "agent" not in summary.usage_by_role
    assert summary.decision == "budget_exhausted"
    assert "cost budget reached ($0.0000/$0.70, the next call may cost $0.7500)" in summary.reason


def test_a_known_agent_spend_beside_an_unpriced_model_reads_as_a_floor(tmp_path):
    """The agent reported its cost, the target model has no price: every view says the known part
    as a floor, as the stop line quotes it, never a bare $?."""
    from skillopt_sleep.cli.render import night_text
    from skillopt_sleep.review.report import spend_rows

    class Unpriced(ActingWorld):  # a model of no price: its calls report no cost
        async def complete(self, request):
            return dataclasses.replace(await super().complete(request), cost_usd=None)

    world = Unpriced(RULES, seed=1)
    runner = SimAgentRunner(world, cost_usd=ROLLOUT_USD)
    settings = Settings(night=NightSettings(concurrency=CONCURRENCY, efficacy_rollouts=24))
    summary = _run(tmp_path, world, runner, settings)
    assert runner.runs > 0 and summary.cost_usd is None
    known = f"${runner.runs * ROLLOUT_USD:.4f}"
    assert summary.spent_usd() == f"at least {known}; no price for acting-world"
    assert f"spent: {summary.calls} calls, {summary.tokens} tokens, at least {known}; " in (
        night_text(summary)
    )
    rows = {row[0]: row[3] for row in spend_rows(summary)}
    assert rows["agent"] == known and rows["optimizer"] == "$?"  # its model has no price
    assert rows["total"] == f"at least {known}; no price for acting-world"
