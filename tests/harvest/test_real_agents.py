"""End to end with the real CLIs: a Claude Code session logged by its SessionEnd hook, a Codex
session picked up by the next harvest; both corrected on resume, against a loopback model server."""

from __future__ import annotations

import json
import shlex
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.agents import (
    claude_transcripts,
    codex_home,
    codex_rollouts,
    run_agent,
    run_claude,
    run_codex,
    which_claude,
    which_codex,
)
from skillopt_sleep.testing.scripts import claude_bash, codex_exec

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
FIRST, FIX = "Run the test suite", "No, that's wrong: always use pytest -q"


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, work = tmp_path / "agent-home", tmp_path / "work"
    work.mkdir()
    return home, work


def _store(sandbox_home: Path) -> Store:
    return Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")


def _wait_for(sandbox_home: Path, ready, timeout: float = 90):
    """Poll the store until ``ready(tasks)`` holds (the hook reads in the background)."""
    deadline = time.monotonic() + timeout
    tasks = []
    while time.monotonic() < deadline:
        tasks = _store(sandbox_home).list_tasks()
        if ready(tasks):
            return tasks
        time.sleep(0.25)
    raise AssertionError(f"the store never got there: {[t.model_dump() for t in tasks]}")


def _settings_with_session_end_hook(home: Path) -> None:
    """``~/.claude/settings.json``: on SessionEnd run ``python -m skillopt_sleep log`` from here."""
    command = (
        f"PYTHONPATH={shlex.quote(str(REPO))} PYTHONDONTWRITEBYTECODE=1 "
        f"{shlex.quote(sys.executable)} -m skillopt_sleep log"
    )
    settings = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": command}]}]}}
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def test_claude_session_end_hook_logs_the_task_and_its_correction(dirs, sandbox_home):
    if which_claude() is None:
        pytest.skip("claude is not installed (npm i -g @anthropic-ai/claude-code)")
    home, work = dirs
    _settings_with_session_end_hook(home)
    with ModelServer(
        [
            claude_bash("python3 -m unittest 2>&1 | tail -1"),
            Text("All tests pass (ran with python -m unittest)."),
        ]
    ) as srv:
        first = run_claude(FIRST, home=home, url=srv.url, cwd=work, timeout=120)
    assert first.code == 0, first.err
    session = first.json()["session_id"]
    [task] = _wait_for(sandbox_home, lambda ts: len(ts) == 1)
    assert (task.source, task.session_id, task.intent) == ("claude-code", session, FIRST)
    assert task.project == str(work.resolve()) and task.outcome == "unknown"
    assert "python3 -m unittest" in task.attempt and task.tools_used == ["Bash"]

    with ModelServer(
        [
            claude_bash("python3 -m pytest -q 2>&1 | tail -1 || true"),
            Text("Understood: pytest -q from now on."),
        ]
    ) as srv:
        second = run_claude(
            FIX, home=home, url=srv.url, cwd=work, timeout=120, extra=["--resume", session]
        )
    assert second.code == 0, second.err
    [task] = _wait_for(sandbox_home, lambda ts: len(ts) == 1 and ts[0].feedback)
    assert task.feedback == FIX and task.outcome == "failure"
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    assert _store(sandbox_home).notices() == []


def test_codex_session_is_picked_up_by_the_next_harvest(cli, dirs, sandbox_home):
    if which_codex() is None:
        pytest.skip("codex is not installed (npm i -g @openai/codex)")
    home, work = dirs
    with ModelServer(
        [
            codex_exec("python3 -m unittest 2>&1 | tail -1"),
            Text("All tests pass (ran with python -m unittest)."),
        ]
    ) as srv:
        first = run_codex(FIRST, home=home, url=srv.url, cwd=work, timeout=120)
    assert first.code == 0, first.err
    thread = next(e["thread_id"] for e in first.jsonl() if e.get("type") == "thread.started")
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}

    r = cli("harvest", "--project", str(work), "--json", env=env)
    assert r.code == 0, r.err
    assert r.json()["sources"]["codex"]["tasks_new"] == 1
    [task] = _store(sandbox_home).list_tasks()
    assert (task.source, task.session_id, task.intent) == ("codex", thread, FIRST)
    assert task.project == str(work.resolve()) and "python3 -m unittest" in task.attempt

    with ModelServer([codex_exec("echo '1 passed'"), Text("Understood: pytest -q.")]) as srv:
        agent_env = codex_home(home, srv.url)
        resumed = run_agent(
            [which_codex(), "exec", "--skip-git-repo-check", "resume", thread, FIX],
            agent_env,
            work,
            timeout=120,
        )
    assert resumed.code == 0, resumed.err
    out = cli("harvest", "--project", str(work), "--json", env=env).json()["sources"]["codex"]
    [rollout] = (home / ".codex" / "sessions").rglob("rollout-*.jsonl")
    assert (out["tasks_new"], out["tasks_updated"]) == (0, 1)
    assert 0 < out["bytes_read"] < rollout.stat().st_size  # from the last task on, not the top
    [task] = _store(sandbox_home).list_tasks()
    assert task.feedback == FIX and task.outcome == "failure" and task.occurrences == 1
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]


ENV_FIRST, ENV_FIX = "Show me how the app is configured", "don't cat .env"


def _mined(path: Path):
    from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
    from skillopt_sleep.harvest.codex import CodexParser
    from skillopt_sleep.harvest.jsonl import read_chunk
    from skillopt_sleep.harvest.mine import mine_chunk

    parser = CodexParser() if path.name.startswith("rollout-") else ClaudeCodeParser()
    chunk, _ = read_chunk(parser, path, 0)
    return mine_chunk(chunk, datetime.now(timezone.utc))


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_a_recorded_action_correction_attaches_and_yields_a_check_failing_on_the_corrected_attempt(
    agent, dirs
):
    from skillopt_sleep.checks.action_judge import action_check, recorded

    if (which_claude() if agent == "claude" else which_codex()) is None:
        pytest.skip(f"{agent} is not installed")
    home, work = dirs
    (work / ".env").write_text("API_URL=http://localhost:8080\n")
    (work / "config.example").write_text("API_URL=\n")
    call = claude_bash if agent == "claude" else codex_exec
    with ModelServer([call("cat .env"), Text("It reads API_URL from .env.")]) as srv:
        first = (run_claude if agent == "claude" else run_codex)(
            ENV_FIRST, home=home, url=srv.url, cwd=work, timeout=120
        )
    assert first.code == 0, first.err
    with ModelServer([call("cat config.example"), Text("API_URL, see config.example.")]) as srv:
        if agent == "claude":
            again = run_claude(
                ENV_FIX,
                home=home,
                url=srv.url,
                cwd=work,
                timeout=120,
                extra=["--resume", first.json()["session_id"]],
            )
        else:
            thread = next(
                e["thread_id"] for e in first.jsonl() if e.get("type") == "thread.started"
            )
            again = run_agent(
                [which_codex(), "exec", "--skip-git-repo-check", "resume", thread, ENV_FIX],
                codex_home(home, srv.url),
                work,
                timeout=120,
            )
    assert again.code == 0, again.err
    [path] = claude_transcripts(home) if agent == "claude" else codex_rollouts(home)
    [task] = _mined(path)
    assert task.intent == ENV_FIRST and task.feedback == ENV_FIX and task.outcome == "failure"
    assert ("never_read", ".env") in [(c.kind, c.value) for c in task.checks]
    for check in task.checks:
        assert (
            action_check(check, recorded(task.actions))[0] is False
        )  # fails on the corrected attempt
