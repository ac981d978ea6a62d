"""A whole night learns an action rule through replays of the real agents, and stages it; the
live project, HOME and the store are byte-identical afterwards but for the night's own records."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay.agents import replay_models
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.night.project import Backends, run_project_night
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.review.ledger import entries_for_night
from skillopt_sleep.rollouts.agent_dispatch import agent_replays
from skillopt_sleep.settings import NightSettings, Settings
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.acting_world import TEST_RUNNER, VENDOR_DIR, ActingWorld
from skillopt_sleep.testing.agents import CODEX_MODEL
from skillopt_sleep.testing.replies import ModelCall, Reply

from .conftest import agent_env, need, snapshot

NOW = datetime(2026, 11, 21, 3, tzinfo=timezone.utc)
pytestmark = [pytest.mark.realbin, pytest.mark.slow]

SMALL = NightSettings(
    k=1,
    steps=1,
    concurrency=2,
    efficacy_rollouts=8,
    harm_rollouts=4,
    harm_looks=1,
    unseen_rollouts=2,
    agent_timeout_s=120,
    agent_max_turns=6,
)


@pytest.mark.parametrize(
    ("agent", "rule"),
    [("claude-code", VENDOR_DIR), ("codex", TEST_RUNNER)],
    ids=["claude-leaves-vendor-alone", "codex-never-runs-unittest"],
)
def test_a_night_learns_an_action_rule_through_agent_replays(
    agent, rule, project, sandbox_home: Path
):
    need(agent)
    # a rule that the agent obeys 95% of the time with it loaded and 5% without, drawn from
    # seed 3 (the same acts every run: 16 rollouts, one a task and then the gate's; 6 with the
    # rule loaded, all obeyed, none of the 10 without). Claude's night has the directory rule,
    # which text replay cannot see (its act a Write to the copy's absolute path); codex's the
    # command rule. The directory rule through codex is bench.agent_replay --real's test.
    world = ActingWorld([replace(rule, p_with=0.95, p_without=0.05)], seed=3)
    tasks = [t.model_copy(update={"source": agent}) for t in world.tasks(str(project), n=4)]
    paths = resolve_paths(str(sandbox_home / "sleep-home")).ensure()
    store = Store.open(paths.db)
    store.upsert_tasks(tasks, NOW)
    # the user's target model is a Claude model: Claude Code's replays run on it, Codex's on the
    # model its own config names (a Claude model is none Codex runs)
    models = replay_models("anthropic", "claude-sonnet-4-6")
    asked: list[str] = []

    def respond(call: ModelCall) -> Reply:
        if call.tools:  # the agent's own requests
            asked.append(call.model)
        return world.respond(call)

    with ModelServer(responder=respond) as server:
        env = agent_env(sandbox_home, server.url)
        before_project = snapshot(project)
        before_home = snapshot(sandbox_home, skip=("sleep-home",))
        before_tasks = [t.model_dump_json() for t in store.list_tasks()]
        result = run_project_night(
            project=project,
            settings=Settings(night=SMALL),
            store=store,
            paths=paths,
            backends=Backends(world, world, world),
            clock=FixedClock(NOW),
            agents=agent_replays("auto", env, timeout_s=120, max_turns=6, models=models),
        )
    summary = result.summary
    ran_on = "claude-sonnet-4-6" if agent == "claude-code" else CODEX_MODEL
    assert asked and set(asked) == {ran_on}
    assert summary.agent_models == {agent: ran_on}
    assert summary.decision == "accept", summary.to_json()
    staged = paths.night_dir(summary.night_id) / "candidate"
    memory = "CLAUDE.md" if agent == "claude-code" else "AGENTS.md"
    assert rule.rule in (staged / memory).read_text()
    row = store.night(summary.night_id)
    assert row is not None
    (entry,) = entries_for_night(row, tasks, NOW)  # the ledger names what the replays ran on
    assert entry.validated_on == f"acting-world:acting-world; agents: {agent}:{ran_on}"
    assert summary.usage_by_role["agent"].calls >= 16  # agent rollouts are counted, not free
    assert any(loaded for _, loaded, _ in world.acts) and any(
        not loaded for _, loaded, _ in world.acts
    )
    assert snapshot(project) == before_project
    assert snapshot(sandbox_home, skip=("sleep-home",)) == before_home
    assert [t.model_dump_json() for t in store.list_tasks()] == before_tasks  # the task log too
    assert {p.name for p in paths.nights_dir.iterdir()} == {
        summary.night_id
    }  # only its own records
