"""The codex backend through the fake runner: argv, private home, login write-back, parsing."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Message, Request
from skillopt_sleep.backends.codex_cli import CodexBackend
from skillopt_sleep.backends.runner import FakeRunner, RunCall, RunResult
from skillopt_sleep.errors import AuthError, BadRequestError, MalformedOutput, TransientError
from skillopt_sleep.markers import REPLAY_ENV, REPLAY_MARKER
from skillopt_sleep.settings import RoleSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

USER_CONFIG = """
model = "gpt-5.5"
model_provider = "corp"
approval_policy = "never"
notify = ["say", "done"]
[model_providers.corp]
name = "Corp"
base_url = "https://llm.corp.example/v1"
env_key = "CORP_KEY"
wire_api = "responses"
[model_providers.other]
name = "Other"
base_url = "https://other.example/v1"
[mcp_servers.files]
command = "npx"
args = ["files-mcp"]
"""

EVENTS = [
    {"type": "thread.started", "thread_id": "01a1fec3"},
    {"type": "turn.started"},
    {"type": "error", "message": "Reconnecting... 2/5"},
    {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "draft"}},
    {
        "type": "item.completed",
        "item": {"id": "item_1", "type": "agent_message", "text": "Run `pytest -q`."},
    },
    {
        "type": "turn.completed",
        "usage": {
            "input_tokens": 21,
            "cached_input_tokens": 3,
            "output_tokens": 7,
            "reasoning_output_tokens": 2,
        },
    },
]

REQUEST = Request(
    "target", "# Skill\nAlways run `pytest -q`.", (Message("user", "-v run the tests"),)
)


def jsonl(events) -> RunResult:
    return RunResult(
        0,
        "\n".join(json.dumps(e) for e in events) + "\n",
        "Reading additional input from stdin...\n",
    )


def failed(message: str) -> RunResult:
    events = [
        {"type": "thread.started", "thread_id": "x"},
        {"type": "turn.started"},
        {"type": "error", "message": message},
        {"type": "turn.failed", "error": {"message": message}},
    ]
    return RunResult(1, jsonl(events).stdout, "")


@pytest.fixture
def user_home(sandbox_home: Path) -> Path:
    home = sandbox_home / ".codex"
    home.mkdir()
    (home / "config.toml").write_text(USER_CONFIG)
    (home / "AGENTS.md").write_text("USER MEMORY")
    (home / "auth.json").write_text('{"auth_mode": "chatgpt", "tokens": {"refresh_token": "r1"}}')
    return home


def make(
    runner: FakeRunner, role: RoleSettings | None = None, env: dict | None = None
) -> CodexBackend:
    bin_dir = Path(__import__("tempfile").mkdtemp(prefix="bin-"))
    (bin_dir / "codex").write_text("#!/bin/sh\nexit 99\n")
    (bin_dir / "codex").chmod(0o755)
    base = {"PATH": str(bin_dir), "HOME": str(Path.home()), "CORP_KEY": "k"}
    return CodexBackend.from_settings(
        role or RoleSettings(backend="codex"), {**base, **(env or {})}, runner=runner
    )


def test_a_replay_runs_codex_exec_ephemeral_read_only_in_a_private_home(user_home):
    seen: dict[str, object] = {}

    def answer(call: RunCall) -> RunResult:
        private = Path(call.env["CODEX_HOME"])
        seen["config"] = tomllib.loads((private / "config.toml").read_text())
        seen["files"] = sorted(p.name for p in private.iterdir())
        seen["auth is a link"] = (private / "auth.json").is_symlink()
        argv = list(call.argv)
        setting = argv[argv.index("-c") + 1]
        seen["instructions"] = Path(json.loads(setting.split("=", 1)[1])).read_text()
        return jsonl(EVENTS)

    runner = FakeRunner(default=answer)
    backend = make(runner)
    done = asyncio.run(backend.complete(REQUEST))
    call = runner.calls[0]
    argv = list(call.argv)
    assert argv[1:7] == [
        "exec",
        "--json",
        "--ephemeral",
        "--skip-git-repo-check",
        "-s",
        "read-only",
    ]
    assert argv[argv.index("-C") + 1] == call.cwd
    assert argv[-2:] == ["--", f"{REPLAY_MARKER}\n-v run the tests"]  # a leading '-' is not a flag
    assert call.stdin is None  # stdin closed
    assert call.env[REPLAY_ENV] == "1" and call.env["CORP_KEY"] == "k"
    assert Path(call.env["CODEX_HOME"]) != user_home
    assert seen["instructions"] == REQUEST.system
    assert seen["files"] == ["auth.json", "config.toml", "owner.pid"]  # no AGENTS.md, skills, hooks
    assert seen["auth is a link"]  # the login is reached, never copied
    assert seen["config"] == {
        "model": "gpt-5.5",
        "model_provider": "corp",
        "model_providers": {
            "corp": {
                "name": "Corp",
                "base_url": "https://llm.corp.example/v1",
                "env_key": "CORP_KEY",
                "wire_api": "responses",
            }
        },
        "project_doc_max_bytes": 0,
        "skills": {"include_instructions": False, "bundled": {"enabled": False}},
    }
    assert (done.text, done.input_tokens, done.output_tokens, done.model) == (
        "Run `pytest -q`.",
        21,
        7,
        "gpt-5.5",
    )
    assert done.cost_usd is None  # priced from the table by the budget


def test_base_url_defines_our_own_provider_with_no_retries(user_home):
    runner = FakeRunner(default=jsonl(EVENTS))
    role = RoleSettings(backend="codex", model="gpt-6-sol", base_url="http://127.0.0.1:9/v1")
    backend = make(runner, role)
    asyncio.run(backend.complete(REQUEST))
    config = tomllib.loads((backend.home.path / "config.toml").read_text())
    assert config["model"] == "gpt-6-sol" and config["model_provider"] == "skillopt"
    assert config["model_providers"] == {
        "skillopt": {
            "name": "skillopt",
            "base_url": "http://127.0.0.1:9/v1",
            "wire_api": "responses",
            "request_max_retries": 0,
            "stream_max_retries": 0,
        }
    }
    assert backend.model == "gpt-6-sol"


def test_a_login_refreshed_in_the_copy_is_written_back(user_home):
    def refresh(call: RunCall) -> RunResult:
        Path(call.env["CODEX_HOME"], "auth.json").write_text('{"tokens": {"refresh_token": "r2"}}')
        return jsonl(EVENTS)

    asyncio.run(make(FakeRunner(default=refresh)).complete(REQUEST))
    assert (user_home / "auth.json").read_text() == '{"tokens": {"refresh_token": "r2"}}'


def test_a_login_the_user_changed_meanwhile_is_left_alone(user_home):
    def both_change(call: RunCall) -> RunResult:
        Path(call.env["CODEX_HOME"], "auth.json").write_text('{"tokens": {"refresh_token": "r2"}}')
        (user_home / "auth.json").write_text('{"tokens": {"refresh_token": "user-new"}}')
        return jsonl(EVENTS)

    asyncio.run(make(FakeRunner(default=both_change)).complete(REQUEST))
    assert (user_home / "auth.json").read_text() == '{"tokens": {"refresh_token": "user-new"}}'


@pytest.mark.parametrize(
    ("answer", "kind", "text"),
    [
        (
            failed("Missing environment variable: `CORP_KEY`."),
            AuthError,
            "CORP_KEY is not set (codex needs it) (export CORP_KEY=...)",
        ),
        (
            failed("unexpected status 401 Unauthorized: bad key, url: http://x/v1/responses"),
            AuthError,
            "run `codex login`",
        ),
        (failed("exceeded retry limit, last status: 429 Too Many Requests"), TransientError, "429"),
        (
            failed("We're currently experiencing high demand, which may cause temporary errors."),
            TransientError,
            "high demand",
        ),
        (
            failed("unexpected status 404 Not Found: no such model"),
            BadRequestError,
            "codex cannot use model gpt-5.5",
        ),
        (failed("unexpected status 400 Bad Request: bad input"), BadRequestError, "refused (400)"),
        (RunResult(0, '{"type":"thread.started"}\n', ""), MalformedOutput, "no final message"),
        (
            RunResult(2, "", "error: unexpected argument '--bogus' found\n"),
            TransientError,
            "--bogus",
        ),
        (TimeoutError(), TransientError, "did not finish within"),
    ],
)
def test_failures_become_the_right_error(user_home, answer, kind, text):
    with pytest.raises(kind) as info:
        asyncio.run(make(FakeRunner(default=answer)).complete(REQUEST))
    assert type(info.value) is kind and text in info.value.one_line()


def test_usable_when_logged_in_or_a_keyed_provider_is_configured(user_home):
    yes, no = (
        FakeRunner(default=RunResult(0, "Logged in using ChatGPT")),
        FakeRunner(default=RunResult(1, "Not logged in")),
    )
    env = {"HOME": str(user_home.parent)}
    assert CodexBackend.usable(env, lambda n: "/opt/codex", runner=yes)
    assert not CodexBackend.usable(env, lambda n: None, runner=yes)
    assert not CodexBackend.usable(env, lambda n: "/opt/codex", runner=no)  # CORP_KEY unset
    assert CodexBackend.usable({**env, "CORP_KEY": "k"}, lambda n: "/opt/codex", runner=no)


def test_a_codex_without_its_home_is_not_asked(tmp_path):
    """`codex login status` creates ~/.codex (its tmp and system skills) where there is none;
    with no home Codex has neither a login nor a config."""
    yes = FakeRunner(default=RunResult(0, "Logged in using ChatGPT"))
    assert not CodexBackend.usable({"HOME": str(tmp_path)}, lambda n: "/opt/codex", runner=yes)
    assert yes.calls == []


def test_check_reports_version_and_probe(user_home):
    runner = FakeRunner()
    runner.enqueue(
        RunResult(0, "codex-cli 0.169.0\n"),
        RunResult(0, "Logged in using ChatGPT\n"),
        jsonl(EVENTS),
    )
    health = asyncio.run(make(runner).check())
    assert health.ok and health.version == "0.169.0"
    assert health.detail == "codex 0.169.0, model gpt-5.5, a replay answered"


def test_the_private_home_is_removed(user_home):
    backend = make(FakeRunner(default=jsonl(EVENTS)))
    asyncio.run(backend.complete(REQUEST))
    path = backend.home.path
    assert path.exists()
    backend.home.remove()
    assert not path.exists()


def test_a_private_home_left_by_a_killed_night_is_removed_by_the_next(tmp_path):
    import os
    import subprocess
    import sys

    from skillopt_sleep.backends.codex_cli import OWNER_FILE, PRIVATE_PREFIX, sweep_private_homes

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    killed, running, foreign = (
        tmp_path / f"{PRIVATE_PREFIX}{n}" for n in ("killed", "running", "foreign")
    )
    for path, owner in ((killed, dead), (running, str(os.getppid()))):
        path.mkdir()
        (path / OWNER_FILE).write_text(owner)
        (path / "auth.json").write_text('{"OPENAI_API_KEY": "sk-left-behind"}')
    foreign.mkdir()  # not ours to judge: no owner file
    assert sweep_private_homes(tmp_path) == [killed]
    assert not killed.exists() and running.exists() and foreign.exists()


def test_login_is_checked_before_any_replay_and_names_the_fix(sandbox_home):
    from skillopt_sleep.backends.base import check_logins

    (sandbox_home / ".codex").mkdir()  # installed, never logged in, no provider of its own
    runner = FakeRunner()
    runner.enqueue(RunResult(1, "", "Not logged in\n"))
    backend = make(
        runner, env={"HOME": str(sandbox_home), "CODEX_HOME": str(sandbox_home / ".codex")}
    )
    with pytest.raises(AuthError) as info:
        check_logins([backend, backend])  # one backend serving two roles is asked once
    assert info.value.one_line() == (
        "codex is not logged in (run `codex login` (or set the key the configured provider needs))"
    )
    assert [c.argv[1:] for c in runner.calls] == [("login", "status")]


def test_a_configured_provider_with_its_key_needs_no_codex_login(user_home):
    from skillopt_sleep.backends.base import check_logins

    runner = FakeRunner()
    runner.enqueue(RunResult(1, "", "Not logged in\n"))
    check_logins([make(runner)])  # the user's provider "corp" and its CORP_KEY are set
    assert len(runner.calls) == 1
