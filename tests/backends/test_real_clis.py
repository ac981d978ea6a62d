"""The real ``claude`` and ``codex`` binaries as backends, against the loopback model server.

The user's home holds a memory file, skills and (for Claude) a SessionEnd hook, each carrying a
sentinel. A replay must return the model's text and usage, must not show the model any
sentinel, and must leave no session file behind for the harvester. A plain run of the same
CLI in the same home shows that the checks would catch it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Message, Request
from skillopt_sleep.backends.claude_cli import ClaudeCodeBackend
from skillopt_sleep.backends.codex_cli import CodexBackend
from skillopt_sleep.errors import AuthError
from skillopt_sleep.markers import REPLAY_MARKER
from skillopt_sleep.settings import RoleSettings
from skillopt_sleep.testing import Error, ModelServer, Text
from skillopt_sleep.testing.agents import (
    claude_env,
    claude_transcripts,
    codex_home,
    codex_rollouts,
    run_claude,
    run_codex,
    which_claude,
    which_codex,
)

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

SYSTEM = "# Skill under test\nAlways run the tests with `pytest -q`."
REQUEST = Request(
    "target", SYSTEM, (Message("user", "/review how do I run the tests?"),), max_tokens=200
)
SENTINELS = ("USER-MEMORY-SENTINEL", "USER-SKILL-SENTINEL", "AGENTS-SKILL-SENTINEL")


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def skill(dir: Path, name: str, description: str) -> None:
    (dir / name).mkdir(parents=True)
    (dir / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\nbody\n"
    )


def sent_text(srv: ModelServer) -> str:
    return json.dumps([r.body for r in srv.model_requests()])


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    if which_claude() is None:
        pytest.skip("claude is not installed (npm i -g @anthropic-ai/claude-code)")
    home = tmp_path / "user"
    dot = home / ".claude"
    dot.mkdir(parents=True)
    (dot / "CLAUDE.md").write_text("USER-MEMORY-SENTINEL: always say banana\n")
    skill(dot / "skills", "userskill", "USER-SKILL-SENTINEL")
    hook = f"echo fired >> {home / 'hook-fired.txt'}"
    (dot / "settings.json").write_text(
        json.dumps({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": hook}]}]}})
    )
    return home


def test_a_claude_replay_answers_and_leaves_no_trace(claude_home: Path):
    with ModelServer([Text("Run `pytest -q`."), Text("again")]) as srv:
        env = claude_env(claude_home, srv.url)
        backend = ClaudeCodeBackend.from_settings(RoleSettings(backend="claude-code"), env)
        done = asyncio.run(backend.complete(REQUEST))
        # The first run of claude in a fresh home writes its install state (~/.claude.json);
        # a user's home has it already. From then on a replay changes nothing at all.
        before = snapshot(claude_home)
        assert asyncio.run(backend.complete(REQUEST)).text == "again"
    assert done.text == "Run `pytest -q`."
    assert done.input_tokens > 0 and done.output_tokens > 0 and (done.cost_usd or 0) > 0
    call = srv.model_calls("anthropic")[0]
    assert SYSTEM in call.system and call.tools == ()
    assert call.last is not None and call.last.text.endswith(
        f"{REPLAY_MARKER}\n/review how do I run the tests?"
    )
    assert not any(s in sent_text(srv) for s in SENTINELS)
    assert claude_transcripts(claude_home) == []
    assert not (claude_home / "hook-fired.txt").exists()
    assert snapshot(claude_home) == before


def test_a_plain_claude_run_in_the_same_home_would_be_caught(claude_home: Path, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    with ModelServer([Text("hi")]) as srv:
        run = run_claude("hello", home=claude_home, url=srv.url, cwd=work, allowed_tools="")
    assert run.code == 0, run.err
    assert len(claude_transcripts(claude_home)) == 1
    assert (claude_home / "hook-fired.txt").exists()
    assert "USER-MEMORY-SENTINEL" in sent_text(srv)


def test_claude_errors_reach_us_as_our_errors(claude_home: Path):
    with ModelServer([Error(401)]) as srv:
        env = claude_env(claude_home, srv.url)
        backend = ClaudeCodeBackend.from_settings(RoleSettings(backend="claude-code"), env)
        with pytest.raises(AuthError, match="claude could not authenticate"):
            asyncio.run(backend.complete(REQUEST))
        logged_out = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
        backend = ClaudeCodeBackend.from_settings(RoleSettings(backend="claude-code"), logged_out)
        with pytest.raises(AuthError) as info:
            asyncio.run(backend.complete(REQUEST))
    assert info.value.one_line() == (
        "claude is not logged in (run `claude` once and log in, or set ANTHROPIC_API_KEY)"
    )
    assert ClaudeCodeBackend.usable(env) and not ClaudeCodeBackend.usable(logged_out)


@pytest.fixture
def codex_user(tmp_path: Path):
    if which_codex() is None:
        pytest.skip("codex is not installed (npm i -g @openai/codex)")
    home = tmp_path / "user"
    home.mkdir()
    (home / ".codex").mkdir()
    (home / ".codex" / "AGENTS.md").write_text("USER-MEMORY-SENTINEL\n")
    skill(home / ".codex" / "skills", "userskill", "USER-SKILL-SENTINEL")
    skill(home / ".agents" / "skills", "agentskill", "AGENTS-SKILL-SENTINEL")
    return home


def test_a_codex_replay_answers_and_leaves_no_rollout(codex_user: Path):
    with ModelServer([Text("Run `pytest -q`.")]) as srv:
        env = codex_home(codex_user, srv.url)
        backend = CodexBackend.from_settings(RoleSettings(backend="codex"), env)
        done = asyncio.run(backend.complete(REQUEST))
        backend.home.remove()
    assert done.text == "Run `pytest -q`."
    assert done.input_tokens > 0 and done.output_tokens > 0 and done.model == "gpt-5.5"
    call = srv.model_calls("responses")[0]
    developer = [m.text for m in call.messages if m.role == "developer"]
    assert developer[0] == SYSTEM  # our instructions replace Codex's base prompt
    assert not any(s in sent_text(srv) for s in SENTINELS)
    assert codex_rollouts(codex_user) == []
    assert not (codex_user / ".codex" / "sessions").exists()


def test_a_plain_codex_run_in_the_same_home_would_be_caught(codex_user: Path, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    with ModelServer([Text("hi")]) as srv:
        run = run_codex("hello", home=codex_user, url=srv.url, cwd=work)
    assert run.code == 0, run.err
    assert len(codex_rollouts(codex_user)) == 1
    assert "USER-MEMORY-SENTINEL" in sent_text(srv)


def test_codex_through_base_url_and_its_failures(codex_user: Path):
    with ModelServer([Text("via base url"), Error(401)]) as srv:
        env = codex_home(codex_user, "http://127.0.0.1:9")  # the user's provider is unreachable
        role = RoleSettings(backend="codex", model="gpt-5.5", base_url=srv.v1)
        backend = CodexBackend.from_settings(role, env)
        assert asyncio.run(backend.complete(REQUEST)).text == "via base url"
        with pytest.raises(AuthError, match="codex could not authenticate"):
            asyncio.run(backend.complete(REQUEST))
        backend.home.remove()
    assert len(srv.model_calls("responses")) == 2  # no retries inside codex: ours decide
    assert codex_rollouts(codex_user) == []
