"""OpenCode replays: the real ``opencode run`` offline against the loopback model server its
config names, in the same sandbox as the other agents, its session read from the SQLite store
in the temporary home into actions, and nothing outside the throwaway copy written."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import AgentLimits, agent_rollout, prepare
from skillopt_sleep.checks.judge import judge
from skillopt_sleep.errors import BackendError, TurnLimit
from skillopt_sleep.models import Check, TaskRecord
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.opencode_agent import bash, make_project, opencode_config
from skillopt_sleep.testing.replies import Text, ToolCall
from skillopt_sleep.testing.scripts import shell_call

from .conftest import agent_path, snapshot
from .escape_run import EscapeRun, watch
from .test_escapes import _escapes

PROMPT = "check that add works and note it"
OK_COMMAND = "python3 -c 'from calc import add; print(add(2, 3))'"
NOTES, NOTES_TEXT = "NOTES.md", "# Notes\nadd() works.\n"
FINAL = "Done: add(2, 3) is 5, and NOTES.md records it."


def _configure(home: Path, url: str) -> None:
    """The user's OpenCode config: a provider of their own at the loopback server."""
    config = home / ".config" / "opencode"
    config.mkdir(parents=True, exist_ok=True)
    (config / "opencode.json").write_text(json.dumps(opencode_config(url)), encoding="utf-8")


def _env(home: Path) -> dict[str, str]:
    return {"PATH": agent_path(), "HOME": str(home)}


def _need(home: Path) -> None:
    if shutil.which("opencode", path=agent_path()) is None:
        pytest.skip("opencode is not installed (put it in .tools/node_modules/.bin)")
    _configure(home, "http://127.0.0.1:9")
    found = prepare("opencode", _env(home))
    if isinstance(found, str):
        pytest.skip(found)


def _task(project: Path, intent: str, checks: list[Check]) -> TaskRecord:
    return TaskRecord(
        source="opencode",
        project=str(project),
        session_id="s",
        intent=intent,
        created_at=datetime(2026, 11, 26, tzinfo=timezone.utc),
        checks=checks,
    )


def _write(path: str, content: str) -> ToolCall:
    """OpenCode's ``write`` call with a path relative to its directory (the copy)."""
    return ToolCall("write", {"filePath": path, "content": content})


def _rollout(task: TaskRecord, files: dict[str, str], setup: object) -> object:
    return asyncio.run(
        agent_rollout(task, files, 0, setup=setup, score=lambda t, e: judge(task, t, None, e))  # type: ignore[arg-type]
    )


def test_without_a_model_endpoint_in_its_config_opencode_is_not_replayed_and_says_why(tmp_path):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "opencode").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "opencode").chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    config = tmp_path / ".config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.json").write_text('{"model": "anthropic/claude-sonnet-4"}')
    found = prepare("opencode", env)
    assert isinstance(found, str) and "\n" not in found
    assert found.startswith("opencode replays run offline against a model endpoint of your own")
    assert f"in {config / 'opencode.json'} set" in found
    assert "options.baseURL" in found


def test_a_commented_config_whose_key_is_an_env_reference_is_replayed_with_that_key_only(
    tmp_path,
):
    from skillopt_sleep.agent_replay.agents import replay_agent

    config = tmp_path / ".config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.jsonc").write_text(
        """{
  // the endpoint of my own
  "model": "mine/coder", "mcp": {"web": {"type": "remote", "url": "https://x.example"}},
  "plugin": ["some-plugin"],
  "provider": {"mine": {"npm": "@ai-sdk/openai-compatible",
    "options": {"baseURL": "http://127.0.0.1:8080/v1", "apiKey": "{env:MY_KEY}"}, /* key */
    "models": {"coder": {}},},
   "other": {"options": {"baseURL": "http://127.0.0.1:9/v1"}}},
}"""
    )
    env = {"HOME": str(tmp_path), "MY_KEY": "k", "OTHER_KEY": "o", "PATH": "/usr/bin"}
    spec = replay_agent("opencode")
    assert spec.login(env) == ""
    temp = tmp_path / "temp"
    inner = spec.home(temp, env)
    assert inner["MY_KEY"] == "k" and "OTHER_KEY" not in inner
    written = json.loads((temp / ".config" / "opencode" / "opencode.json").read_text())
    assert written["model"] == "mine/coder" and list(written["provider"]) == ["mine"]
    assert "mcp" not in written and "plugin" not in written
    assert spec.api_url(env, temp) == "http://127.0.0.1:8080/v1"
    assert inner["XDG_CACHE_HOME"] == str(temp / ".cache")  # never the user's cache


@pytest.mark.realbin
@pytest.mark.slow
def test_opencode_replays_a_recorded_task_and_its_actions_come_from_its_store(
    sandbox_home, tmp_path
):
    """One replay proves two things: the replay runs and reads its actions from its own store,
    and a user cache directory that does not exist stays absent (the rollout has its own)."""
    _need(sandbox_home)
    project = make_project(tmp_path / "project")
    # outside the home and /tmp, where the sandbox shows the machine read-only
    absent = Path(__file__).resolve().parent / "absent-opencode-cache"
    assert not absent.exists()
    replies = [bash(OK_COMMAND, "Running the check."), _write(NOTES, NOTES_TEXT), Text(FINAL)]
    checks = [Check(kind="ran", value="from calc import add"), Check(kind="changed", value=NOTES)]
    task = _task(project, PROMPT, checks)
    with ModelServer(replies) as server:
        _configure(sandbox_home, server.url)
        before = snapshot(tmp_path), snapshot(sandbox_home)
        setup = prepare("opencode", {**_env(sandbox_home), "XDG_CACHE_HOME": str(absent)})
        assert not isinstance(setup, str), setup
        result = _rollout(task, {"AGENTS.md": "Always note what you checked.\n"}, setup)
        requests = server.model_requests()
    assert len(requests) == 3  # no title request: the replay names its session
    first = json.dumps(requests[0].body)
    assert json.dumps(PROMPT) in first  # the prompt as it is, not wrapped in quotes
    assert "Always note what you checked." in first  # the candidate AGENTS.md, where it reads
    test, notes = result.output.actions  # type: ignore[attr-defined]
    assert (test.kind, test.command, test.exit_code) == ("command", OK_COMMAND, 0)
    assert (notes.kind, notes.path) == ("write", NOTES)
    assert result.output.text == FINAL and result.output.turns == 3  # type: ignore[attr-defined]
    assert result.output.input_tokens > 0  # type: ignore[attr-defined]
    assert result.verdict.passed, result.verdict  # type: ignore[attr-defined]
    assert (snapshot(tmp_path), snapshot(sandbox_home)) == before  # no store in the user's home
    assert not absent.exists(), "the user's absent cache directory was made"


def _through_sh(call: object, command: str) -> ToolCall:
    """An escape as OpenCode's ``bash`` call, given to ``sh -c``: OpenCode reads a command's own
    words for a path outside its directory and refuses an ``rm`` or ``mkdir`` there, ending the
    run; inside ``sh -c`` it runs, and keeping it in is the sandbox's work alone."""
    return bash(f"sh -c {shlex.quote(command)}")


@pytest.mark.realbin
@pytest.mark.slow
def test_every_opencode_escape_is_blocked_and_nothing_outside_the_copy_changes(
    project, sandbox_home, tmp_path
):
    """One replay attempts every escape in turn (delete-parent last), each judged on its own and
    named; one OpenCode refused would end the run, and the escapes after it would be named as
    never attempted."""
    _need(sandbox_home)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    os.symlink(outside, project / "outside-link")
    task = _task(project, "Tidy up the repo", [Check(kind="never_ran", value="unittest")])
    with ModelServer() as other:  # a second server the agent must not reach
        commands = _escapes(project, sandbox_home, outside, other.port)
        run = EscapeRun(commands, watch(tmp_path, sandbox_home, snapshot=snapshot), _through_sh)
        with ModelServer(responder=run) as server:
            _configure(sandbox_home, server.url)
            setup = prepare("opencode", _env(sandbox_home))
            assert not isinstance(setup, str), setup
            run.start()
            try:
                said = _rollout(task, {"AGENTS.md": "rules"}, setup).output.text  # type: ignore[attr-defined]
            except BackendError as exc:  # an errored rollout is fine too
                said = str(exc)
            assert len(server.model_requests()) >= len(commands)  # each at the model's word
        assert other.requests == []  # and nothing else
    assert run.finish(said) == {}


@pytest.mark.realbin
@pytest.mark.slow
def test_opencode_is_stopped_past_its_turn_limit_as_an_errored_rollout(project, sandbox_home):
    _need(sandbox_home)
    task = _task(project, "Tidy up the repo", [Check(kind="never_ran", value="unittest")])
    with ModelServer(responder=lambda call: shell_call(call, "echo again")) as server:
        _configure(sandbox_home, server.url)
        limits = AgentLimits(timeout_s=180, max_turns=3)
        setup = prepare("opencode", _env(sandbox_home), limits=limits)
        assert not isinstance(setup, str), setup
        with pytest.raises(TurnLimit, match="opencode stopped at the turn limit"):
            _rollout(task, {}, setup)
        assert len(server.model_requests()) <= 5  # stopped, not left to run to the timeout
