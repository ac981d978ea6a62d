"""The agent environment on the seam: an agent rollout is scored on what it did, its actions reach
the replay's rollouts, the cache, the optimizer's cases and the budget, and a training run over a
task set with action checks learns action rules through it. The agent stands in by
SimAgentRunner (same argv, same copy, same event output as the real CLIs)."""

from __future__ import annotations

import asyncio
import io
import random
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import AgentLimits, AgentSetup
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.retry import RetryPolicy
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.envs import Environment, load_env
from skillopt_sleep.envs.agent import AgentEnv
from skillopt_sleep.envs.base import CalledBackend
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.optimize.reflect import Case, reflection_prompt
from skillopt_sleep.rollouts.agent_dispatch import AgentReplays
from skillopt_sleep.rollouts.replay import Calls, Replayer, system_text
from skillopt_sleep.sample.train_sets import SKILL
from skillopt_sleep.settings import BudgetSettings
from skillopt_sleep.store import Store
from skillopt_sleep.testing.acting_world import (
    RULES,
    TEST_RUNNER,
    VENDOR_DIR,
    ActingWorld,
    write_project,
)
from skillopt_sleep.testing.sim_agent import SimAgentRunner
from skillopt_sleep.train import TrainConfig
from skillopt_sleep.train.api import train
from skillopt_sleep.train.data import TaskSet

UNLIMITED = BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None)


def _setups(runner: SimAgentRunner):  # type: ignore[no-untyped-def]
    def prep(agent):  # type: ignore[no-untyped-def]
        binary = "claude" if agent == "claude-code" else "codex"
        return AgentSetup(agent, binary, {}, Sandbox("bwrap"), AgentLimits(), None, runner)

    return prep


def _calls() -> Calls:
    return Calls(Budget(UNLIMITED), RetryPolicy(max_retries=0), random.Random(0))


def test_an_agent_rollout_is_scored_on_what_it_did_and_counted_under_the_agent_role(tmp_path):
    world = ActingWorld([VENDOR_DIR], seed=2)
    runner = SimAgentRunner(world)
    task = world.tasks(str(write_project(tmp_path / "p")), n=1)[0]
    env = AgentEnv(_setups(runner)(task.source))
    assert isinstance(env, Environment) and env.name == "agent"
    calls = _calls()
    files = {"SKILL.md": "", "CLAUDE.md": "# Notes\n", "AGENTS.md": "# Notes\n"}
    results = [
        asyncio.run(
            env.rollout(
                task, system_text(files, task), CalledBackend(world, calls, calls.budget), seed=s
            )
        )
        for s in range(6)
    ]
    for result in results:
        (touched,) = [a.path for a in result.actions]
        assert result.hard == (0.0 if touched.startswith("vendor/") else 1.0)
    assert {r.hard for r in results} == {0.0, 1.0}  # the agent without the rule breaks it, mostly
    assert calls.budget.by_role["agent"].calls == 6 and calls.budget.by_role["agent"].tokens > 0


def test_an_agent_that_cannot_run_is_an_errored_rollout_and_a_failed_call(tmp_path):
    world = ActingWorld([VENDOR_DIR])
    task = world.tasks(str(tmp_path / "gone"), n=1)[0]
    calls = _calls()
    env = AgentEnv(_setups(SimAgentRunner(world))(task.source))
    result = asyncio.run(env.rollout(task, "", CalledBackend(world, calls, calls.budget), seed=1))
    assert result.hard is None and "not on this machine" in (result.error or "")
    assert calls.budget.failed_calls == {"agent": 1}


def test_a_replay_keeps_the_actions_in_its_rollouts_its_cache_and_the_optimizers_cases(tmp_path):
    world = ActingWorld([TEST_RUNNER], seed=1)
    runner = SimAgentRunner(world)
    task = world.tasks(str(write_project(tmp_path / "p")), n=1)[0]
    store = Store.open(tmp_path / "db.sqlite")

    def replayer() -> Replayer:
        return Replayer(
            world,
            _calls(),
            k=3,
            concurrency=2,
            rubric=None,
            store=store,
            clock=FixedClock(datetime(2026, 11, 21, tzinfo=timezone.utc)),
            agents=AgentReplays("auto", _setups(runner)),
        )

    files = {"SKILL.md": "", "CLAUDE.md": "# Notes\n"}
    first = asyncio.run(replayer().replay([task], files))[task.id]
    again = asyncio.run(replayer().replay([task], files))[task.id]
    assert runner.runs == 3 and all(r.cached for r in again)
    assert [r.actions for r in again] == [r.actions for r in first]
    assert all(r.actions[0].kind == "command" for r in first)
    bad = next(r for r in first if not r.passed)
    prompt = reflection_prompt([Case("failure", task, None, bad)], [], [])
    assert "what it did: ran `python3 -m unittest" in prompt


def test_training_over_a_task_set_with_action_checks_learns_the_action_rules(tmp_path):
    world = ActingWorld(RULES, seed=0)
    runner = SimAgentRunner(world)
    tasks = world.tasks(str(write_project(tmp_path / "project")), n=6)
    split = TaskSet(
        [t for i, t in enumerate(tasks) if i % 6 < 2],
        [t for i, t in enumerate(tasks) if i % 6 == 2],
        [t for i, t in enumerate(tasks) if i % 6 > 2],
    )
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    result = train(
        split,
        tmp_path / "SKILL.md",
        tmp_path / "run",
        target=world,
        config=TrainConfig(epochs=1, steps_per_epoch=2, batch_size=4, k=2, seed=1, env="agent"),
        agents=AgentReplays("agent", _setups(runner)),
        budget=UNLIMITED,
    )
    s = result.summary
    assert {e.content for e in s.accepted_edits} == {TEST_RUNNER.rule, VENDOR_DIR.rule}
    assert s.best.test_hard is not None and s.baseline.test_hard is not None
    assert s.best.test_hard - s.baseline.test_hard >= 0.5
    assert runner.runs > 0 and s.usage.calls >= runner.runs  # agent rollouts are counted


def test_the_agent_environment_needs_the_agents_it_replays_with(tmp_path):
    with pytest.raises(ConfigError) as raised:
        load_env("agent")
    assert "train --env agent" in raised.value.one_line()
    world = ActingWorld(RULES)
    tasks = world.tasks(str(tmp_path), n=3)
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        train(
            TaskSet(tasks[:2], tasks[2:3], tasks[3:]),
            tmp_path / "SKILL.md",
            tmp_path / "run",
            target=world,
            config=TrainConfig(env="agent"),
        )
    assert "agents=agent_replays" in raised.value.one_line()


def test_train_env_agent_without_an_agent_here_is_a_one_line_error(tmp_path: Path):
    from skillopt_sleep.cli import main

    world = ActingWorld(RULES)
    data = tmp_path / "tasks.jsonl"
    data.write_text(
        "\n".join(
            t.model_copy(update={"project": str(tmp_path)}).model_dump_json(
                include={"intent", "checks", "source"}
            )
            for t in world.tasks(str(tmp_path), n=5)
        ),
        encoding="utf-8",
    )
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    env = {"PATH": str(tmp_path / "nothing"), "HOME": str(tmp_path / "home")}
    env["SKILLOPT_SLEEP_HOME"] = str(tmp_path / "sleep")
    err = io.StringIO()
    code = main(
        [
            "train",
            str(data),
            "--skill",
            str(tmp_path / "SKILL.md"),
            "--out",
            str(tmp_path / "run"),
            "--env",
            "agent",
            "--backend",
            "simulated",
        ],
        env=env,
        cwd=tmp_path,
        stdout=io.StringIO(),
        stderr=err,
    )
    assert code == ConfigError.exit_code
    (line,) = err.getvalue().strip().splitlines()[:1]
    assert "--env agent: no agent can be replayed here" in line
    assert not (tmp_path / "run").exists()  # nothing ran


def test_the_reports_example_shows_what_the_agent_did_before_and_after(tmp_path):
    from skillopt_sleep.evidence.examples import example_of
    from skillopt_sleep.models import Action
    from skillopt_sleep.rollouts.replay import Rollout

    task = ActingWorld([VENDOR_DIR]).tasks(str(tmp_path), n=1)[0]
    bad = Rollout(
        task.id, 0, "Done.", 0.0, False, actions=(Action(kind="write", path="vendor/lib.py"),)
    )
    good = Rollout(
        task.id, 1, "Done.", 1.0, True, actions=(Action(kind="write", path="src/fix.py"),)
    )
    example = example_of([task], {task.id: [bad]}, {task.id: [good]})
    assert example is not None
    assert example.before == "Done.\n[what it did: write vendor/lib.py]"
    assert example.after == "Done.\n[what it did: write src/fix.py]"
