"""The real claude and codex CLIs complete a tool-using turn against the loopback server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from skillopt_sleep.testing import Error, ModelServer, Text
from skillopt_sleep.testing.agents import (
    AgentRun,
    claude_env,
    claude_transcripts,
    codex_rollouts,
    run_agent,
    run_claude,
    run_codex,
)
from skillopt_sleep.testing.scripts import (
    add_file_patch,
    claude_bash,
    codex_apply_patch,
    shell_then_reply,
)

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

COMMAND = "echo made > side-effect.txt && echo tool-said-hello"


def shell_turn(
    runner: Callable[..., AgentRun], dirs: tuple[Path, Path]
) -> tuple[AgentRun, ModelServer]:
    """One agent turn scripted as: run COMMAND with the shell tool, then quote its output."""
    home, work = dirs
    with ModelServer(responder=shell_then_reply(COMMAND, "Finished: {output}")) as srv:
        run = runner("Create the side-effect file", home=home, url=srv.url, cwd=work)
    assert run.code == 0, run.err
    return run, srv


def test_claude_runs_the_scripted_bash_call(dirs: tuple[Path, Path], claude_bin: str) -> None:
    home, work = dirs
    run, srv = shell_turn(run_claude, dirs)
    result = run.json()
    assert result["result"] == "Finished: tool-said-hello"
    assert result["num_turns"] == 2 and result["permission_denials"] == []
    assert (work / "side-effect.txt").read_text() == "made\n"
    assert srv.requests[0].method == "HEAD"
    calls = srv.model_calls("anthropic")
    assert len(calls) == 2 and calls[0].prompt.endswith("Create the side-effect file")
    assert "Bash" in calls[0].tools and calls[1].last_tool_result == "tool-said-hello"
    transcripts = claude_transcripts(home)
    assert [p.stem for p in transcripts] == [result["session_id"]]
    records = [json.loads(line) for line in transcripts[0].read_text().splitlines()]
    tool_uses = [
        b
        for r in records
        if r.get("type") == "assistant"
        for b in r["message"]["content"]
        if b.get("type") == "tool_use"
    ]
    assert tool_uses[0]["input"]["command"] == COMMAND


def test_claude_title_side_request_is_answered_outside_the_script(
    dirs: tuple[Path, Path], claude_bin: str
) -> None:
    home, work = dirs
    prompt = "Please run a command that creates the side-effect file and tell me what it printed"
    with ModelServer([claude_bash(COMMAND), Text("All done.")], title="Creating a file") as srv:
        env = claude_env(home, srv.url, nonessential=True)
        run = run_agent(
            [claude_bin, "-p", prompt, "--allowedTools", "Bash", "--output-format", "json"],
            env,
            work,
        )
    assert run.code == 0, run.err
    assert run.json()["result"] == "All done." and srv.pending == 0
    side = [r for r in srv.model_requests(side=True) if r.side]
    assert len(side) == 1 and side[0].call is not None and side[0].call.tools == ()
    assert side[0].reply == Text('{"title": "Creating a file"}')
    assert len(srv.model_calls()) == 2
    records = [json.loads(line) for line in claude_transcripts(home)[0].read_text().splitlines()]
    assert {"type": "ai-title", "aiTitle": "Creating a file"}.items() <= next(
        r for r in records if r["type"] == "ai-title"
    ).items()


def test_codex_runs_the_scripted_exec_command(dirs: tuple[Path, Path], codex_bin: str) -> None:
    home, work = dirs
    run, srv = shell_turn(run_codex, dirs)
    events = run.jsonl()
    thread_id = events[0]["thread_id"]
    commands = [
        e["item"]
        for e in events
        if e["type"] == "item.completed" and e["item"]["type"] == "command_execution"
    ]
    assert commands[0]["exit_code"] == 0 and commands[0]["aggregated_output"] == "tool-said-hello\n"
    messages = [
        e["item"]["text"]
        for e in events
        if e["type"] == "item.completed" and e["item"]["type"] == "agent_message"
    ]
    assert messages == ["Finished: tool-said-hello"]
    assert events[-1]["type"] == "turn.completed" and events[-1]["usage"]["output_tokens"] > 0
    assert (work / "side-effect.txt").read_text() == "made\n"
    calls = srv.model_calls("responses")
    assert len(calls) == 2 and "exec_command" in calls[0].tools
    assert calls[0].prompt == "Create the side-effect file"
    rollouts = codex_rollouts(home)
    assert len(rollouts) == 1 and rollouts[0].name.endswith(f"-{thread_id}.jsonl")


def test_codex_applies_a_scripted_patch(dirs: tuple[Path, Path], codex_bin: str) -> None:
    home, work = dirs
    patch = codex_apply_patch(add_file_patch("notes.md", "first line\nsecond line"))
    with ModelServer([patch, Text("Patched notes.md.")]) as srv:
        run = run_codex("Write the notes", home=home, url=srv.url, cwd=work)
    assert run.code == 0, run.err
    changes = [
        e["item"]
        for e in run.jsonl()
        if e["type"] == "item.completed" and e["item"]["type"] == "file_change"
    ]
    assert changes[0]["changes"] == [{"path": str(work / "notes.md"), "kind": "add"}]
    assert (work / "notes.md").read_text() == "first line\nsecond line\n"
    second = srv.model_calls()[1]
    call = second.messages[-2].tool_call
    assert call is not None and (call.name, call.input) == ("apply_patch", patch.input)
    assert "Success. Updated the following files:\nA notes.md" in (second.last_tool_result or "")


def test_codex_recovers_from_transient_errors(dirs: tuple[Path, Path], codex_bin: str) -> None:
    home, work = dirs
    with ModelServer([Error(429, headers={"retry-after": "0"}), Error(500), Text("Back.")]) as srv:
        run = run_codex("Say something", home=home, url=srv.url, cwd=work)
    assert run.code == 0, run.err
    events = run.jsonl()
    assert any(e["type"] == "error" and "429" in e["message"] for e in events)
    assert events[-2]["item"]["text"] == "Back."
    assert [r.status for r in srv.model_requests()] == [429, 500, 200]


def test_claude_reports_an_auth_error(dirs: tuple[Path, Path], claude_bin: str) -> None:
    home, work = dirs
    with ModelServer(responder=lambda call: Error(401)) as srv:
        run = run_claude("Say hi", home=home, url=srv.url, cwd=work)
    result = run.json()
    assert run.code == 1 and result["is_error"] is True and result["api_error_status"] == 401
    assert [r.status for r in srv.model_requests()] == [401]
