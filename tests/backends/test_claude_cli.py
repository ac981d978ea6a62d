"""The claude-code backend through the fake runner: argv, environment, parsing, errors."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Message, Request
from skillopt_sleep.backends.claude_cli import ClaudeCodeBackend
from skillopt_sleep.backends.runner import FakeRunner, RunCall, RunResult
from skillopt_sleep.errors import (
    AuthError,
    BackendUnavailable,
    BadRequestError,
    MalformedOutput,
    TransientError,
)
from skillopt_sleep.markers import REPLAY_ENV, REPLAY_MARKER
from skillopt_sleep.settings import RoleSettings


def result(text: str = "Use `pytest -q`.", **over) -> RunResult:
    body = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "api_error_status": None,
        "result": text,
        "session_id": "7a08b59c",
        "total_cost_usd": 0.0123,
        "usage": {
            "input_tokens": 11,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 5,
            "output_tokens": 7,
        },
        "modelUsage": {"claude-opus-4-8[1m]": {"inputTokens": 11, "outputTokens": 7}},
    }
    body.update(over)
    return RunResult(1 if body["is_error"] else 0, json.dumps(body) + "\n", "")


def failed(status, text: str) -> RunResult:
    return result(text, is_error=True, api_error_status=status, total_cost_usd=0)


REQUEST = Request(
    "target",
    "# Skill\nAlways run `pytest -q`.",
    (Message("user", "Run the tests"),),
    max_tokens=321,
)


def backend(runner: FakeRunner, env: dict[str, str] | None = None, model: str | None = "sonnet"):
    base = {"PATH": "/usr/bin", "HOME": "/home/u", "CLAUDECODE": "1", "KEEP": "yes"}
    return ClaudeCodeBackend("/opt/claude", {**base, **(env or {})}, model=model, runner=runner)


def complete(b, request=REQUEST):
    return asyncio.run(b.complete(request))


def test_a_replay_runs_claude_print_mode_with_no_tools_no_history_and_no_user_context():
    seen: dict[str, object] = {}

    def answer(call: RunCall) -> RunResult:
        argv = list(call.argv)
        prompt_file = Path(argv[argv.index("--system-prompt-file") + 1])
        seen["system"] = prompt_file.read_text(encoding="utf-8")
        seen["cwd_files"] = sorted(os.listdir(call.cwd))
        return result()

    runner = FakeRunner(default=answer)
    done = complete(backend(runner))
    call = runner.calls[0]
    argv = list(call.argv)
    assert argv[:4] == ["/opt/claude", "-p", "--output-format", "json"]
    for flag in ("--no-session-persistence", "--strict-mcp-config", "--disable-slash-commands"):
        assert flag in argv
    assert argv[argv.index("--setting-sources") + 1] == ""
    assert argv[argv.index("--tools") + 1] == ""
    assert argv[argv.index("--model") + 1] == "sonnet"
    assert seen["system"] == REQUEST.system
    assert seen["cwd_files"] == [".system-prompt.md"]  # an empty working dir: no project CLAUDE.md
    assert not Path(call.cwd).exists()  # removed afterwards
    assert call.stdin == f"{REPLAY_MARKER}\nRun the tests"
    env = call.env
    assert env[REPLAY_ENV] == "1"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] == "321"
    assert "CLAUDECODE" not in env and env["KEEP"] == "yes" and env["HOME"] == "/home/u"
    assert (done.text, done.input_tokens, done.output_tokens) == ("Use `pytest -q`.", 116, 7)
    assert done.cost_usd == 0.0123 and done.model == "claude-opus-4-8"


def test_a_conversation_is_rendered_into_one_prompt():
    runner = FakeRunner(default=result())
    request = Request(
        "optimizer",
        "s",
        (Message("user", "first"), Message("assistant", "reply"), Message("user", "second")),
    )
    complete(backend(runner), request)
    stdin = runner.calls[0].stdin or ""
    assert stdin.startswith(REPLAY_MARKER)
    assert "User: first\n\nAssistant: reply\n\nUser: second" in stdin


def test_base_url_and_api_key_env_reach_the_child():
    role = RoleSettings(
        backend="claude-code", base_url="http://gw.local:8080", api_key_env="MY_KEY"
    )
    bin_dir = _fake_bin("claude")
    env = {"PATH": str(bin_dir), "MY_KEY": "sk-123"}
    runner = FakeRunner(default=result())
    b = ClaudeCodeBackend.from_settings(role, env, runner=runner)
    complete(b)
    child = runner.calls[0].env
    assert (
        child["ANTHROPIC_BASE_URL"] == "http://gw.local:8080"
        and child["ANTHROPIC_API_KEY"] == "sk-123"
    )
    assert "--model" not in runner.calls[0].argv  # no model set: claude's own default


def test_a_missing_binary_names_the_install_command(tmp_path):
    with pytest.raises(BackendUnavailable) as info:
        ClaudeCodeBackend.from_settings(
            RoleSettings(backend="claude-code"), {"PATH": str(tmp_path)}
        )
    assert info.value.one_line() == (
        "claude is not installed: not found on PATH (npm install -g @anthropic-ai/claude-code)"
    )
    runner = FakeRunner(default=FileNotFoundError("claude"))
    with pytest.raises(BackendUnavailable) as info:
        complete(backend(runner))
    assert info.value.one_line() == (
        "claude is not installed: cannot run /opt/claude (npm install -g @anthropic-ai/claude-code)"
    )


def test_a_missing_key_variable_is_an_auth_error():
    bin_dir = _fake_bin("claude")
    with pytest.raises(AuthError, match="MY_KEY is not set"):
        ClaudeCodeBackend.from_settings(RoleSettings(api_key_env="MY_KEY"), {"PATH": str(bin_dir)})


@pytest.mark.parametrize(
    ("answer", "kind", "text"),
    [
        (
            failed(None, "Not logged in · Please run /login"),
            AuthError,
            "claude is not logged in (run `claude` once and log in, or set ANTHROPIC_API_KEY)",
        ),
        (
            failed(401, "Failed to authenticate. API Error: 401 invalid x-api-key"),
            AuthError,
            "claude could not authenticate",
        ),
        (
            failed(429, "API Error: Request rejected (429) · rate limited"),
            TransientError,
            "claude failed",
        ),
        (failed(529, "API Error: 529 overloaded"), TransientError, "claude failed"),
        (
            failed(None, "API Error: Unable to connect to API (ConnectionRefused)"),
            TransientError,
            "Unable to connect",
        ),
        (
            failed(404, "There's an issue with the selected model (claude-nope)."),
            BadRequestError,
            "claude cannot use model sonnet",
        ),
        (failed(400, "API Error: 400 prompt is too long"), BadRequestError, "refused (400)"),
        (RunResult(1, "", "Error: something crashed\n"), TransientError, "claude exited with 1"),
        (RunResult(0, "not json at all", ""), MalformedOutput, "no JSON result"),
        (TimeoutError(), TransientError, "did not finish within 300s"),
    ],
)
def test_failures_become_the_right_error(answer, kind, text):
    runner = FakeRunner(default=answer)
    with pytest.raises(kind) as info:
        complete(backend(runner))
    assert text in info.value.one_line()
    assert type(info.value) is kind


def test_check_reports_version_login_and_a_probe():
    runner = FakeRunner()
    runner.enqueue(
        RunResult(0, "2.1.197 (Claude Code)\n"),
        RunResult(0, json.dumps({"loggedIn": True, "authMethod": "claude.ai"})),
        result("OK"),
    )
    health = asyncio.run(backend(runner).check())
    assert health.ok and health.version == "2.1.197"
    assert health.detail == "claude 2.1.197, logged in (claude.ai), a replay answered"
    assert [c.argv[1:3] for c in runner.calls[:2]] == [("--version",), ("auth", "status")]


def test_check_names_the_fix_when_not_logged_in():
    runner = FakeRunner()
    runner.enqueue(
        RunResult(0, "2.1.197 (Claude Code)\n"),
        RunResult(1, json.dumps({"loggedIn": False, "authMethod": "none"})),
    )
    health = asyncio.run(backend(runner).check())
    assert not health.ok and health.detail == "claude is not logged in"
    assert health.fix == "run `claude` once and log in, or set ANTHROPIC_API_KEY"
    assert len(runner.calls) == 2  # no replay attempted


def test_usable_needs_the_binary_and_a_login(tmp_path):
    logged_in = FakeRunner(default=RunResult(0, json.dumps({"loggedIn": True})))
    logged_out = FakeRunner(default=RunResult(1, json.dumps({"loggedIn": False})))
    (tmp_path / ".claude").mkdir()
    env = {"HOME": str(tmp_path)}
    assert ClaudeCodeBackend.usable(env, lambda n: "/opt/claude", runner=logged_in)
    assert not ClaudeCodeBackend.usable(env, lambda n: "/opt/claude", runner=logged_out)
    assert not ClaudeCodeBackend.usable(env, lambda n: None, runner=logged_in)
    assert logged_in.calls[0].argv == ("/opt/claude", "auth", "status")


def test_a_claude_that_never_ran_here_is_not_asked(tmp_path):
    """`claude auth status` in a home where Claude Code never ran writes ~/.claude.json: with
    no home of its own and no credentials in the environment it is not logged in."""
    logged_in = FakeRunner(default=RunResult(0, json.dumps({"loggedIn": True})))
    env = {"HOME": str(tmp_path)}
    assert not ClaudeCodeBackend.usable(env, lambda n: "/opt/claude", runner=logged_in)
    assert logged_in.calls == []
    keyed = {**env, "ANTHROPIC_API_KEY": "k"}
    assert ClaudeCodeBackend.usable(keyed, lambda n: "/opt/claude", runner=logged_in)


def _fake_bin(name: str) -> Path:
    """A directory with an executable ``name`` (never run: the fake runner answers)."""
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="bin-"))
    exe = d / name
    exe.write_text("#!/bin/sh\nexit 99\n")
    exe.chmod(0o755)
    return d


def test_login_is_checked_before_any_replay_and_names_the_fix():
    from skillopt_sleep.backends.base import check_logins
    from skillopt_sleep.errors import AuthError

    runner = FakeRunner()
    runner.enqueue(RunResult(1, '{"loggedIn": false, "authMethod": "none"}', ""))
    with pytest.raises(AuthError) as info:
        check_logins([backend(runner)])
    assert (
        info.value.one_line()
        == "claude is not logged in (run `claude` once and log in, or set ANTHROPIC_API_KEY)"
    )
    assert [c.argv for c in runner.calls] == [("/opt/claude", "auth", "status")]
    runner.enqueue(RunResult(0, '{"loggedIn": true, "authMethod": "api_key"}', ""))
    check_logins([backend(runner)])
