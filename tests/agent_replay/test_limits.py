"""The bounds of an agent replay: Claude Code's own settings, codex's turn limit, the login
check of ``replay = auto`` and the breaker that stops an agent that keeps failing."""

from __future__ import annotations

import asyncio
import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import AgentLimits, AgentSetup, agent_rollout, prepare
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.runner import FakeRunner, RunResult
from skillopt_sleep.checks.judge import judge
from skillopt_sleep.errors import MalformedOutput, TurnLimit
from skillopt_sleep.models import Check, TaskRecord
from skillopt_sleep.rollouts.agent_dispatch import AgentReplays, agent_replays
from skillopt_sleep.settings import BudgetSettings
from skillopt_sleep.testing import ModelServer, shell_then_reply
from skillopt_sleep.testing.scripts import shell_call

from .conftest import agent_env, agent_path, need


def _task(project: Path, agent: str) -> TaskRecord:
    return TaskRecord(
        source=agent,
        project=str(project),
        session_id="s",
        intent="Tidy up the repo",
        created_at=datetime(2026, 11, 21, tzinfo=timezone.utc),
        checks=[Check(kind="never_ran", value="unittest")],
    )


@pytest.mark.realbin
@pytest.mark.slow
def test_claude_runs_under_its_own_replay_settings_which_deny_network_tools(project, sandbox_home):
    need("claude-code")
    with ModelServer(
        responder=shell_then_reply("curl -s http://127.0.0.1:9/; echo $((40+2))")
    ) as server:
        setup = prepare("claude-code", agent_env(sandbox_home, server.url))
        assert not isinstance(setup, str), setup
        task = _task(project, "claude-code")
        result = asyncio.run(
            agent_rollout(task, {}, 0, setup=setup, score=lambda t, e: judge(task, t, None, e))
        )
    [curl] = result.output.actions
    assert curl.command.startswith("curl") and curl.failed  # denied by the settings, not run
    assert "has been denied" in result.output.text and "42" not in result.output.text


def _endless(call):
    return shell_call(call, "echo again")


@pytest.mark.realbin
@pytest.mark.slow
def test_codex_is_stopped_past_its_turn_limit_as_an_errored_rollout(project, sandbox_home):
    need("codex")
    with ModelServer(responder=_endless) as server:
        setup = prepare(
            "codex",
            agent_env(sandbox_home, server.url),
            limits=AgentLimits(timeout_s=120, max_turns=3),
        )
        assert not isinstance(setup, str), setup
        task = _task(project, "codex")
        with pytest.raises(TurnLimit, match="turn limit: it began more than 3 tool calls"):
            asyncio.run(
                agent_rollout(task, {}, 0, setup=setup, score=lambda t, e: judge(task, t, None, e))
            )
        assert len(server.model_requests()) == 4  # three tool calls answered, the fourth stopped


@pytest.mark.realbin
@pytest.mark.parametrize(
    ("agent", "missing"),
    [("claude-code", "claude is not logged in"), ("codex", "codex is not logged in")],
)
def test_auto_replays_as_text_with_a_note_when_the_agent_has_no_login(
    agent, missing, project, sandbox_home
):
    need(agent)
    replays = agent_replays("auto", {"PATH": agent_path(), "HOME": str(sandbox_home)})
    assert replays.setup_for(_task(project, agent)) is None
    [note] = replays.notes
    assert note.startswith(missing) and note.endswith(f"{agent} tasks were replayed as text")
    assert "\n" not in note


@pytest.mark.realbin
@pytest.mark.parametrize(
    ("agent", "login"),
    [
        ("claude-code", {"ANTHROPIC_API_KEY": "k"}),
        ("claude-code", {"file": ".claude/.credentials.json"}),
        ("codex", {"OPENAI_API_KEY": "k"}),
        ("codex", {"file": ".codex/auth.json"}),
    ],
)
def test_auto_replays_with_the_agent_when_it_has_a_key_or_a_login_file(
    agent, login, project, sandbox_home
):
    need(agent)
    env = {"PATH": agent_path(), "HOME": str(sandbox_home)}
    if "file" in login:
        (sandbox_home / login["file"]).parent.mkdir(parents=True, exist_ok=True)
        (sandbox_home / login["file"]).write_text("{}")
    else:
        env.update(login)
    replays = agent_replays("auto", env)
    assert replays.setup_for(_task(project, agent)) is not None
    assert not [n for n in replays.notes if "replayed as text" in n]


def _replays(runner: FakeRunner) -> AgentReplays:
    def prep(agent):
        return AgentSetup(agent, "claude", {"PATH": "/usr/bin"}, Sandbox("bwrap"), runner=runner)

    return AgentReplays("auto", prep, breaker_threshold=3)


async def _night(replays: AgentReplays, task: TaskRecord, n: int) -> list[str]:
    """``n`` rollouts of ``task`` through its agent environment: "ok" or the errored reason."""
    from skillopt_sleep.envs.base import CalledBackend
    from skillopt_sleep.testing.acting_world import ActingWorld

    env = replays.env_for(task, None)
    assert env is not None
    world = ActingWorld()
    backend = CalledBackend(world, lambda b, r: b.complete(r), Budget(BudgetSettings()))
    out = []
    for sample in range(n):
        result = await env.rollout(task, "", backend, seed=sample)
        out.append("ok" if result.error is None else result.error)
    return out


_DONE = json.dumps(
    {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "num_turns": 1}
)
_MAX_TURNS = json.dumps({"type": "result", "subtype": "error_max_turns", "is_error": True})


def test_three_failed_agent_rollouts_in_a_row_stop_the_agent_for_the_night(project):
    runner = FakeRunner()
    runner.enqueue(
        RunResult(0, _DONE),
        RunResult(139, "", "Segmentation fault"),  # a crash
        TimeoutError("ran too long"),
        RunResult(1, "", "bwrap: No permissions to create new namespace"),
    )
    replays = _replays(runner)
    task = _task(project, "claude-code")
    outcome = asyncio.run(_night(replays, task, 6))
    assert outcome[0] == "ok" and "ran longer than" in outcome[2]
    assert all(o != "ok" for o in outcome[1:])  # errored rollouts, no evidence, never a 0
    assert len(runner.calls) == 4  # the last two were refused before anything ran
    [note] = replays.notes
    assert outcome[4:] == [note, note]
    assert note.startswith("agent replay of claude-code stopped: 3 rollouts in a row failed")
    assert "bwrap: No permissions" in note and "\n" not in note


def test_a_success_or_a_turn_limit_between_failures_keeps_the_agent_running(project):
    runner = FakeRunner()
    crash = RunResult(139, "", "Segmentation fault")
    runner.enqueue(
        crash, crash, RunResult(0, _DONE), crash, crash, RunResult(1, _MAX_TURNS), crash, crash
    )
    replays = _replays(runner)
    outcome = asyncio.run(_night(replays, _task(project, "claude-code"), 8))
    assert outcome.count("ok") == 1 and outcome[5] != "ok"  # the turn limit: errored, not a crash
    assert len(runner.calls) == 8 and replays.notes == []


def test_a_refused_rollout_after_the_breaker_trips_is_an_errored_rollout_not_a_night_stop():
    assert issubclass(TurnLimit, MalformedOutput)  # the replay scores both as errored rollouts


def test_a_night_whose_agent_keeps_crashing_runs_three_agent_rollouts_and_says_why_it_stopped(
    project, sandbox_home
):
    from skillopt_sleep.clock import FixedClock
    from skillopt_sleep.night.project import Backends, run_project_night
    from skillopt_sleep.paths import resolve_paths
    from skillopt_sleep.settings import NightSettings, Settings
    from skillopt_sleep.store import Store
    from skillopt_sleep.testing.acting_world import TEST_RUNNER, ActingWorld

    now = datetime(2026, 11, 21, 3, tzinfo=timezone.utc)
    world = ActingWorld([TEST_RUNNER], seed=3)
    tasks = [t.model_copy(update={"source": "claude-code"}) for t in world.tasks(str(project), n=4)]
    paths = resolve_paths(str(sandbox_home / "sleep-home")).ensure()
    store = Store.open(paths.db)
    store.upsert_tasks(tasks, now)
    runner = FakeRunner(default=RunResult(139, "", "Segmentation fault"))
    result = run_project_night(
        project=project,
        settings=Settings(night=NightSettings(k=2, steps=1, concurrency=1)),
        store=store,
        paths=paths,
        backends=Backends(world, world, world),
        clock=FixedClock(now),
        agents=_replays(runner),
    )
    summary = result.summary
    assert len(runner.calls) == 3  # then no agent ran again tonight
    [note] = [n for n in summary.skipped if "stopped" in n]
    assert note.startswith("agent replay of claude-code stopped: 3 rollouts in a row failed")
    assert summary.usage_by_role["agent"].calls == 3  # the failed ones are counted, no more
    assert summary.errored_rollouts >= 8


@pytest.mark.realbin
@pytest.mark.slow
def test_claude_code_s_own_sandbox_starts_inside_the_outer_one(project, sandbox_home):
    """The outer sandbox lets the agent write its temporary home and ``/tmp``; Claude Code's own
    sandbox (on in the replay's settings) lets a command write only in its working directory.
    A refused write there shows that the inner sandbox really runs, not just its settings."""
    need("claude-code")
    if shutil.which("socat") is None:
        pytest.skip("Claude Code's own sandbox needs socat, which is not installed")
    script = (
        'echo x > "$HOME/outside.txt" && echo WROTE-HOME; '
        "echo x > /tmp/outside.txt && echo WROTE-TMP; "
        "echo y > ./inside.txt && echo WROTE-CWD"
    )
    with ModelServer(responder=shell_then_reply(script)) as server:
        setup = prepare("claude-code", agent_env(sandbox_home, server.url))
        assert not isinstance(setup, str), setup
        task = _task(project, "claude-code")
        asyncio.run(
            agent_rollout(task, {}, 0, setup=setup, score=lambda t, e: judge(task, t, None, e))
        )
        messages = server.model_requests()[-1].body["messages"]
    seen = " ".join(
        str(part.get("content"))
        for message in messages
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "tool_result"
    )
    assert "WROTE-CWD" in seen
    assert "WROTE-HOME" not in seen and "WROTE-TMP" not in seen
    assert "Read-only file system" in seen
