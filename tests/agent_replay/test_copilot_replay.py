"""GitHub Copilot CLI replays: the real ``copilot`` offline against the loopback model server, in
the same sandbox as the other agents, its session read from the temporary home into actions, and
nothing outside the throwaway copy written."""

from __future__ import annotations

import asyncio
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import AgentLimits, agent_rollout, prepare
from skillopt_sleep.checks.judge import judge
from skillopt_sleep.errors import BackendError, TurnLimit
from skillopt_sleep.models import Check, TaskRecord
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.copilot_agent import (
    FINAL,
    NOTES,
    NOTES_TEXT,
    OK_COMMAND,
    PROMPT,
    copilot_create,
    copilot_shell,
    make_project,
    shared_cache,
)
from skillopt_sleep.testing.replies import Text
from skillopt_sleep.testing.scripts import shell_call

from .conftest import agent_path, snapshot
from .escape_run import EscapeRun, watch
from .test_escapes import _escapes


def _env(home: Path, url: str) -> dict[str, str]:
    """The user's environment as a night sees it: copilot's BYOK settings at the loopback server."""
    return {
        "PATH": agent_path(),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(shared_cache(home)),  # the unpacked CLI, read-only in the sandbox
        "COPILOT_PROVIDER_BASE_URL": url + "/v1",
        # copilot masks a secret's value everywhere in its output: a key of "x" would mask
        # every x (tool.e******ecution_start), so the key is one no event contains
        "COPILOT_PROVIDER_API_KEY": "loopback-test-key",
        "COPILOT_MODEL": "gpt-5",
    }


def _need(home: Path) -> None:
    if shutil.which("copilot", path=agent_path()) is None:
        pytest.skip("copilot is not installed (put it in .tools/node_modules/.bin)")
    found = prepare("copilot", _env(home, "http://127.0.0.1:9"))
    if isinstance(found, str):
        pytest.skip(found)


def _task(project: Path, intent: str, checks: list[Check]) -> TaskRecord:
    return TaskRecord(
        source="copilot",
        project=str(project),
        session_id="s",
        intent=intent,
        created_at=datetime(2026, 11, 26, tzinfo=timezone.utc),
        checks=checks,
    )


def test_without_a_model_endpoint_of_its_own_copilot_is_not_replayed_and_says_why(tmp_path):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "copilot").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "copilot").chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    found = prepare("copilot", env)
    assert isinstance(found, str) and "\n" not in found
    assert found.startswith("copilot replays run offline against a model endpoint of your own")
    assert "set COPILOT_PROVIDER_BASE_URL" in found


@pytest.mark.realbin
@pytest.mark.slow
def test_copilot_replays_a_recorded_task_and_its_actions_come_from_its_session(
    sandbox_home, tmp_path
):
    """One replay proves two things: the replay runs and reads its actions from its own session,
    and a user cache copilot never unpacked into still replays and stays absent (copilot unpacks
    itself in the rollout's own home). The escape and turn-limit replays below run from the
    shared cache, where the package is unpacked already."""
    _need(sandbox_home)
    project = make_project(tmp_path / "project")
    # outside the home and /tmp, where the sandbox shows the machine read-only
    absent = Path(__file__).resolve().parent / "absent-copilot-cache"
    assert not absent.exists()
    replies = [
        copilot_shell(OK_COMMAND, text="Running the check."),
        copilot_create(NOTES, NOTES_TEXT),
        Text(FINAL),
    ]
    checks = [Check(kind="ran", value="unittest"), Check(kind="changed", value=NOTES)]
    task = _task(project, PROMPT, checks)
    before = snapshot(tmp_path), snapshot(sandbox_home)
    with ModelServer(replies) as server:
        env = {**_env(sandbox_home, server.url), "XDG_CACHE_HOME": str(absent)}
        setup = prepare("copilot", env)
        assert not isinstance(setup, str), setup
        result = asyncio.run(
            agent_rollout(task, {}, 0, setup=setup, score=lambda t, e: judge(task, t, None, e))
        )
        assert len(server.model_requests()) == 3
    test, notes = result.output.actions
    assert (test.kind, test.command, test.exit_code) == ("command", OK_COMMAND, 0)
    assert (notes.kind, notes.path) == ("write", NOTES)
    assert result.output.text == FINAL and result.output.turns >= 1
    assert result.output.input_tokens > 0
    assert result.verdict.passed, result.verdict  # type: ignore[attr-defined]
    assert (snapshot(tmp_path), snapshot(sandbox_home)) == before  # no session in the user's home
    assert not absent.exists(), "the user's absent cache directory was made"


@pytest.mark.realbin
@pytest.mark.slow
def test_every_copilot_escape_is_blocked_and_nothing_outside_the_copy_changes(
    project, sandbox_home, tmp_path
):
    """One replay attempts every escape in turn (home, sibling, live-dotdot, live-absolute,
    planted-symlink, network, delete-parent last); each is judged on its own."""
    _need(sandbox_home)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    os.symlink(outside, project / "outside-link")
    task = _task(project, "Tidy up the repo", [Check(kind="never_ran", value="unittest")])
    with ModelServer() as other:  # a second server the agent must not reach
        commands = _escapes(project, sandbox_home, outside, other.port)
        run = EscapeRun(commands, watch(tmp_path, sandbox_home, snapshot=snapshot))
        with ModelServer(responder=run) as server:
            setup = prepare("copilot", _env(sandbox_home, server.url))
            assert not isinstance(setup, str), setup
            run.start()
            try:
                result = asyncio.run(
                    agent_rollout(
                        task,
                        {"AGENTS.md": "rules"},
                        0,
                        setup=setup,
                        score=lambda t, e: judge(task, t, None, e),
                    )
                )
                said = result.output.text
            except BackendError as exc:  # an errored rollout is fine too
                said = str(exc)
            assert len(server.model_requests()) >= len(commands)  # each at the model's word
        assert other.requests == []  # and nothing else
    assert run.finish(said) == {}


@pytest.mark.realbin
@pytest.mark.slow
def test_copilot_is_stopped_past_its_turn_limit_as_an_errored_rollout(project, sandbox_home):
    _need(sandbox_home)
    task = _task(project, "Tidy up the repo", [Check(kind="never_ran", value="unittest")])
    with ModelServer(responder=lambda call: shell_call(call, "echo again")) as server:
        env = _env(sandbox_home, server.url)
        setup = prepare("copilot", env, limits=AgentLimits(timeout_s=120, max_turns=3))
        assert not isinstance(setup, str), setup
        with pytest.raises(TurnLimit, match="copilot stopped at the turn limit"):
            asyncio.run(
                agent_rollout(task, {}, 0, setup=setup, score=lambda t, e: judge(task, t, None, e))
            )
        assert len(server.model_requests()) <= 5  # stopped, not left to run to the timeout
