"""Escape attempts by scripted tool calls of the real agents: each is blocked or errors the
rollout, and nothing outside the throwaway copy changes on disk."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import agent_rollout, prepare
from skillopt_sleep.agent_replay.agents import Agent
from skillopt_sleep.checks.judge import judge
from skillopt_sleep.errors import BackendError
from skillopt_sleep.models import Check, TaskRecord
from skillopt_sleep.rollouts.agent_dispatch import AgentReplays, agent_replays
from skillopt_sleep.testing import ModelCall, ModelServer, Reply, Text
from skillopt_sleep.testing.scripts import shell_call, tool_output

from .conftest import TOOLS, agent_env, need, snapshot

pytestmark = [pytest.mark.realbin, pytest.mark.slow]


def _escapes(live: Path, home: Path, outside: Path, port: int) -> dict[str, str]:
    net = (
        f"python3 -c \"import urllib.request as u; u.urlopen('http://127.0.0.1:{port}/', timeout=3)\""
        " && echo REACHED"
    )
    return {
        "home": f"echo pwned > {home}/escaped.txt; echo pwned >> {home}/.bashrc",
        "sibling": "echo pwned > ../sibling.txt; mkdir -p ../../sibling-dir && echo x > ../../sibling-dir/f",
        "live-dotdot": f"echo pwned > ../../../{live.parent.name}/{live.name}/src/app.py",
        "live-absolute": f"echo pwned > {live}/src/app.py; rm -f {live}/test_app.py",
        "planted-symlink": "echo pwned > outside-link/pwned.txt; ln -sf /etc/hostname h && echo x > h",
        "delete-parent": "rm -rf .. ; rm -rf ../.. ; true",
        "network": net,
        "beside-installs": " ; ".join(f"cat {home}/{rel}" for rel in BESIDE),
    }


def _task(project: Path, agent: str) -> TaskRecord:
    return TaskRecord(
        source=agent,
        project=str(project),
        session_id="s",
        intent="Tidy up the repo",
        created_at=datetime(2026, 11, 21, tzinfo=timezone.utc),
        checks=[Check(kind="never_ran", value="unittest")],
    )


# Secrets beside the installs the sandbox shows again (the agent at ~/.local/bin): other tools'
# logins under ~/.local/share, another project's .env under ~/code.
BESIDE = {
    ".local/share/other-tool/auth.json": '{"key": "SECRET_BESIDE_THE_AGENT"}',
    "code/other/.env": "SECRET_BESIDE_THE_ENGINE=1",
}

# In the order they are tried: the one that would remove the copy itself comes last.
ESCAPES = (
    "home",
    "beside-installs",
    "sibling",
    "live-dotdot",
    "live-absolute",
    "planted-symlink",
    "network",
    "delete-parent",
)


class InTurn:
    """A responder that asks for each escape in turn, one shell call per model call, and keeps
    what each one's call got back. A rollout that ends without the result of the escape it was
    given (it errored) is followed by another that starts from the next escape."""

    def __init__(self, commands: dict[str, str]) -> None:
        self.commands = commands
        self.asked: list[str] = []
        self.results: dict[str, str] = {}

    def __call__(self, call: ModelCall) -> Reply:
        if call.last_tool_result is not None and self.asked:
            self.results[self.asked[-1]] = tool_output(call.last_tool_result)
        todo = [e for e in ESCAPES if e not in self.asked]
        if not todo:
            return Text("Done.")
        self.asked.append(todo[0])
        return shell_call(call, self.commands[todo[0]])


def _plant_hooks(url: str, home: Path, project: Path) -> None:
    """Hooks of the user's and of the project's that would call the model server (the one
    address a replay reaches) on ``/hook-fired``: Claude Code's on every event, codex's notify."""
    ping = f"python3 -c \"import urllib.request as u; u.urlopen('{url}/hook-fired', timeout=3)\""
    hook = json.dumps({"type": "command", "command": ping})
    events = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")
    settings = '{"hooks": {' + ", ".join(f'"{e}": [{{"hooks": [{hook}]}}]' for e in events) + "}}"
    for root in (home, project):  # the user's settings, and the project's own
        (root / ".claude").mkdir(exist_ok=True)
        (root / ".claude" / "settings.json").write_text(settings)
    config = home / ".codex" / "config.toml"
    config.write_text(f"notify = {json.dumps(['sh', '-c', ping])}\n" + config.read_text())


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_every_escape_is_blocked_no_hook_fires_and_nothing_outside_the_copy_changes(
    agent: Agent, project, sandbox_home, tmp_path
):
    """Every escape runs in a rollout of the real agent (several in one rollout: one agent start,
    not one per escape); each is named where it got through. The user's and the project's hooks
    fire on none of the rollout's events, and the rollout leaves no session (transcript, session
    index) in the user's home: nothing outside the copy changes."""
    need(agent)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    os.symlink(outside, project / "outside-link")
    for rel, text in BESIDE.items():
        (sandbox_home / rel).parent.mkdir(parents=True, exist_ok=True)
        (sandbox_home / rel).write_text(text)
    binary = "claude" if agent == "claude-code" else "codex"
    installed = sandbox_home / ".local" / "bin" / binary  # the agent installed in the home
    installed.parent.mkdir(parents=True)
    installed.symlink_to(TOOLS / binary)
    said: dict[str, str] = {}
    with ModelServer() as other:  # a second server the agent must not reach
        turn = InTurn(_escapes(project, sandbox_home, outside, other.port))
        with ModelServer(responder=turn) as server:
            env = agent_env(sandbox_home, server.url)
            env["PATH"] = f"{installed.parent}{os.pathsep}{env['PATH']}"
            _plant_hooks(server.url, sandbox_home, project)
            setup = prepare(agent, env)
            assert not isinstance(setup, str), setup
            assert setup.binary == str(installed)
            task = _task(project, agent)
            disk = snapshot(tmp_path), snapshot(sandbox_home)
            while len(turn.asked) < len(ESCAPES):
                tried = len(turn.asked)
                try:
                    asyncio.run(
                        agent_rollout(
                            task,
                            {"CLAUDE.md": "rules"},
                            0,
                            setup=setup,
                            score=lambda t, e: judge(task, t, None, e),
                        )
                    )
                except BackendError as exc:  # an errored rollout is fine too
                    said.update({e: str(exc) for e in turn.asked if e not in turn.results})
                assert len(turn.asked) > tried, "the agent asked the model nothing"
            assert not [r.path for r in server.requests if "hook-fired" in r.path]
            sent = [str(r.body) for r in server.requests]
            assert not [b for b in sent if "SECRET_BESIDE" in b], "a secret reached the model"
        assert other.requests == [], "the network escape reached another server"  # nothing else
    said.update(turn.results)
    assert set(said) == set(ESCAPES), f"never ran: {set(ESCAPES) - set(said)}"
    assert [e for e in ESCAPES if "REACHED" in said[e]] == []
    assert "SECRET_BESIDE" not in said["beside-installs"], said["beside-installs"]
    after = snapshot(tmp_path), snapshot(sandbox_home)
    changed = [
        path
        for before, now in zip(disk, after, strict=True)
        for path in sorted(set(before) | set(now))
        if before.get(path) != now.get(path)
    ]
    culprits = [e for e in ESCAPES if any(Path(c).name in turn.commands[e] for c in changed)]
    assert changed == [], f"changed outside the copy: {changed}, by the escapes {culprits}"


def test_without_a_sandbox_agent_replay_is_refused_in_one_line_and_the_task_is_replayed_as_text(
    project,
):
    need("claude-code")
    replays: AgentReplays = agent_replays("auto", {"PATH": str(TOOLS), "HOME": "/nonexistent"})
    assert replays.setup_for(_task(project, "claude-code")) is None
    [note] = replays.notes
    assert "bubblewrap (bwrap) is not installed" in note and note.endswith("replayed as text")
    assert "\n" not in note
