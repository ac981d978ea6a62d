"""Agent replay reads the agent registry: an agent is replayable when its registry entry names a
replay module, so a sixth agent with replay is its registry entry plus that module, registered
from outside the package (here, from this test module) with no other file changed."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import AGENTS, agent_rollout, prepare
from skillopt_sleep.agent_replay.agents import replay_agent, replay_models
from skillopt_sleep.agent_replay.environment import base_env
from skillopt_sleep.agent_replay.events import AgentOutput
from skillopt_sleep.agent_replay.spec import Launch, ReplayAgent
from skillopt_sleep.checks.judge import judge
from skillopt_sleep.errors import UsageError
from skillopt_sleep.harvest import agents
from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
from skillopt_sleep.harvest.scan import Problem
from skillopt_sleep.models import Action, Check, TaskRecord
from skillopt_sleep.testing import ModelServer

from .conftest import snapshot

TOY_AGENT = """#!/bin/sh
# the toy agent: reads its instructions, does what they say, reports it as one JSON line
printf 'noted\\n' > NOTES.md
printf '{"said": "%s", "wrote": "NOTES.md"}\\n' "$(head -1 TOY.md)"
"""


def _toy_argv(run: Launch) -> list[str]:
    return [run.binary, run.prompt]


def _toy_parse(stdout: str, copy: str, home: Path) -> AgentOutput:
    report = json.loads(stdout.strip().splitlines()[-1])
    return AgentOutput(report["said"], (Action(kind="write", path=report["wrote"]),), turns=1)


def _toy_url(env: Mapping[str, str], home: Path) -> str:
    return env.get("TOY_BASE_URL") or ""


def _toy_login(env: Mapping[str, str]) -> str:
    return "" if env.get("TOY_BASE_URL") else "toy has no endpoint: set TOY_BASE_URL"


REPLAY = ReplayAgent(
    name="toy",
    binary="toy-agent",
    argv=_toy_argv,
    home=base_env,
    api_url=_toy_url,
    login=_toy_login,
    parse=_toy_parse,
)


def _no_files(
    root: Path, projects: frozenset[str] | None, problems: list[Problem]
) -> Iterator[str]:
    return iter(())


def _entry(name: str, replay: str) -> agents.Agent:
    return agents.Agent(
        name=name,
        label=name.title(),
        root=lambda env: Path("/nonexistent"),
        files=_no_files,
        parser=ClaudeCodeParser,
        instructions=("TOY.md",),
        replay=replay,
    )


@pytest.fixture
def toy() -> Iterator[agents.Agent]:
    yield agents.register(_entry("toy", __name__))
    agents.unregister("toy")


def test_the_built_in_replays_are_the_registry_entries_that_name_a_replay_module():
    assert tuple(AGENTS) == ("claude-code", "codex", "copilot", "opencode")
    for name in AGENTS:
        assert replay_agent(name).name == name == agents.get(name).name
    assert "gemini" not in AGENTS


def test_an_agent_registered_from_outside_is_replayable_while_it_is_registered(toy):
    assert "toy" in AGENTS and tuple(AGENTS)[-1] == "toy"
    assert replay_agent("toy") is REPLAY
    agents.unregister("toy")
    assert "toy" not in AGENTS
    with pytest.raises(UsageError, match="agent 'toy' cannot be replayed") as err:
        replay_agent("toy")
    assert "opencode" in (err.value.hint or "")
    agents.register(toy)  # for the fixture's unregister


def test_a_registry_entry_naming_a_module_without_its_replay_is_one_clear_error():
    agents.register(_entry("ghost", "skillopt_sleep.agent_replay.codex"))
    try:
        with pytest.raises(UsageError, match="holds no REPLAY of agent 'ghost'"):
            replay_agent("ghost")
    finally:
        agents.unregister("ghost")
    agents.register(_entry("lost", "no_such_package.replay"))
    try:
        with pytest.raises(UsageError, match=r"'no_such_package\.replay' of agent 'lost'"):
            replay_agent("lost")
    finally:
        agents.unregister("lost")


@pytest.mark.slow
def test_a_toy_sixth_agent_is_replayed_in_the_sandbox_and_nothing_outside_the_copy_changes(
    toy, tmp_path, sandbox_home
):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "toy-agent").write_text(TOY_AGENT)
    (bin_dir / "toy-agent").chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    (project / "TOY.md").write_text("live rules\n")
    task = TaskRecord(
        source="toy",
        project=str(project),
        session_id="s",
        intent="note it",
        created_at=datetime(2026, 11, 26, tzinfo=timezone.utc),
        checks=[Check(kind="changed", value="NOTES.md"), Check(kind="contains", value="new")],
    )
    with ModelServer() as server:
        env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(sandbox_home),
            "TOY_BASE_URL": server.url,
        }
        setup = prepare("toy", env)
        if isinstance(setup, str) and setup.startswith("agent replay refused"):
            pytest.skip(setup)
        assert not isinstance(setup, str), setup
        before = snapshot(tmp_path), snapshot(sandbox_home)
        result = asyncio.run(
            agent_rollout(
                task,
                {"TOY.md": "new rules\n"},
                0,
                setup=setup,
                score=lambda t, e: judge(task, t, None, e),
            )
        )
    assert result.output.text == "new rules"  # it read the candidate file, in the copy
    assert result.verdict.passed, result.verdict  # type: ignore[attr-defined]
    assert (snapshot(tmp_path), snapshot(sandbox_home)) == before
    assert prepare("toy", {**env, "TOY_BASE_URL": ""}) == "toy has no endpoint: set TOY_BASE_URL"


def test_a_replay_runs_on_the_users_model_where_the_agent_runs_that_backends_models():
    claude = replay_models("anthropic", "claude-sonnet-4-6")
    assert claude["claude-code"] == "claude-sonnet-4-6"
    assert claude["codex"] is None  # a Claude model is none Codex runs: its own config's model
    assert replay_models("claude-code", "claude-haiku-4-5")["claude-code"] == "claude-haiku-4-5"
    openai = replay_models("openai", "gpt-5.5")
    assert (openai["codex"], openai["claude-code"]) == ("gpt-5.5", None)
    assert replay_models("codex", "gpt-5.5")["codex"] == "gpt-5.5"
    assert set(replay_models("anthropic", None).values()) == {None}  # no model chosen
    # agents that run the model of an endpoint of their own take none of the night's
    assert replay_models("openai", "gpt-5.5")["copilot"] is None
    assert replay_models("openai", "gpt-5.5")["opencode"] is None
