"""The Claude Code plugin end to end: the real `claude -p` with `--plugin-dir`, against a
loopback Anthropic Messages server that answers the turn with a Bash tool call."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.agents import claude_env, run_agent
from skillopt_sleep.testing.replies import ModelCall, Reply, Responder
from skillopt_sleep.testing.scripts import claude_bash, tool_output

pytestmark = pytest.mark.realbin


@pytest.fixture
def session(kit, tmp_path, clean_bin):
    """(env, project dir, sleep home) for a claude run whose PATH has no skillopt-sleep."""
    kit.link(clean_bin, "claude")
    home, project, sleep_home = tmp_path / "home", tmp_path / "project", tmp_path / "sleep"
    project.mkdir()
    base = kit.base_env(home, clean_bin, SKILLOPT_SLEEP_HOME=str(sleep_home))
    assert shutil.which("skillopt-sleep", path=base["PATH"]) is None  # only the plugin's launcher

    def env(url: str) -> dict[str, str]:
        return claude_env(home, url, base=base)

    return env, project, sleep_home


def _claude(prompt: str, env: dict[str, str], project: Path, kit, *extra: str):
    argv = [
        str(Path(env["PATH"].split(":")[0]) / "claude"),
        "-p",
        prompt,
        "--plugin-dir",
        str(kit.claude_plugin),
        "--output-format",
        "stream-json",
        "--verbose",
        *extra,
    ]
    return run_agent(argv, env, project, timeout=120).jsonl()


def _direct_cli(*args: str, env: dict[str, str], cwd: Path) -> str:
    """What the CLI of this checkout prints when run by hand, for comparison."""
    proc = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", *args],
        check=False,
        cwd=cwd,
        env={
            **env,
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            "PYTHONDONTWRITEBYTECODE": "1",
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.stdout + proc.stderr


def _redirect_then_status(marker: Path) -> Responder:
    """The model first asks for `skillopt-sleep status > marker` (not the CLI alone: refused),
    then for `skillopt-sleep status`, then answers with what that printed."""

    def respond(call: ModelCall) -> Reply:
        results = call.tool_results
        if not results:
            return claude_bash(f"skillopt-sleep status > {marker}")
        if len(results) == 1:
            return claude_bash("skillopt-sleep status")
        return Text(f"Here is the status:\n{tool_output(results[-1])}")

    return respond


def test_slash_skillopt_sleep_status_runs_the_cli_and_shows_its_output(kit, session):
    """One session: the skill's expanded instructions reach the model; with no --allowedTools
    the skill's `Bash(skillopt-sleep:*)` refuses a command that is more than the CLI (a
    redirect) and runs the CLI, whose real output comes back."""
    env_for, project, sleep_home = session
    assert not sleep_home.exists()
    marker = project / "redirected.txt"
    with ModelServer(responder=_redirect_then_status(marker)) as srv:
        env = env_for(srv.url)
        records = _claude("/skillopt-sleep status", env, project, kit)
        calls = srv.model_calls("anthropic")

    init = next(r for r in records if r.get("subtype") == "init")
    assert "skillopt-sleep:skillopt-sleep" in init["slash_commands"]
    assert [p["name"] for p in init["plugins"]] == ["skillopt-sleep"]

    # The bare name reached the model as the plugin skill's expanded instructions.
    first = "\n".join(calls[0].user_texts)
    assert "<command-name>/skillopt-sleep:skillopt-sleep</command-name>" in first
    assert "<command-args>status</command-args>" in first
    assert f"Base directory for this skill: {kit.claude_plugin}/skills/skillopt-sleep" in first
    assert "1. The command is `skillopt-sleep status`." in first  # $ARGUMENTS substituted
    assert "Never edit `CLAUDE.md`" in first

    # The redirect was refused and never ran.
    final = records[-1]
    assert final["type"] == "result"
    assert [d["tool_name"] for d in final["permission_denials"]] == ["Bash"]
    assert final["permission_denials"][0]["tool_input"]["command"].endswith(str(marker))
    assert not marker.exists()

    # The Bash call ran our CLI (found by the launcher) and its real output came back. By hand
    # against an empty store like the one it saw (the session's end has logged a task since).
    fresh = {**env, "SKILLOPT_SLEEP_HOME": str(sleep_home.parent / "fresh-sleep")}
    expected = _direct_cli("status", env=fresh, cwd=project).strip()
    assert expected.startswith(f"project: {project.resolve()}")
    assert len(calls) == 3 and calls[2].last_tool_result.strip() == expected
    [result] = [
        r for r in records if r.get("type") == "user" and isinstance(r.get("tool_use_result"), dict)
    ]
    assert result["tool_use_result"]["stdout"].strip() == expected
    assert final["result"] == f"Here is the status:\n{expected}"
    # Side effect of that session: its SessionEnd hook logged it into the store under
    # SKILLOPT_SLEEP_HOME (`status` itself creates no store), in the background.
    db = resolve_paths(str(sleep_home)).db
    deadline = time.monotonic() + 60
    while not db.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert db.is_file()


def test_session_end_hook_runs_our_cli_and_logs_the_session_into_the_store(kit, session, tmp_path):
    """One session: its SessionEnd hook ran the plugin's launcher, which started our CLI, and
    the `log` it ran put the session's task into the store (only our CLI writes that store)."""
    env_for, project, sleep_home = session
    debug = tmp_path / "claude-debug.log"
    with ModelServer([Text("Tests pass: 12 passed.")]) as srv:
        records = _claude(
            "Run the test suite with pytest -q",
            env_for(srv.url),
            project,
            kit,
            "--debug-file",
            str(debug),
        )
    assert records[-1]["result"] == "Tests pass: 12 passed."
    ends = re.findall(
        r'SessionEnd:\w+ \["\$\{CLAUDE_PLUGIN_ROOT\}/bin/skillopt-sleep" log\] '
        r"completed with status (\d+)",
        debug.read_text(),
    )
    assert ends, "the plugin's SessionEnd hook did not run"
    assert int(ends[0]) == 0
    session_id = records[-1]["session_id"]
    db = resolve_paths(str(sleep_home)).db
    deadline = time.monotonic() + 20  # the logger may finish in the background
    tasks = []
    while time.monotonic() < deadline:
        if db.is_file():
            store = Store.open(db)
            tasks = [t for t in store.list_tasks() if t.session_id == session_id]
            store.close()
            if tasks:
                break
        time.sleep(0.2)
    assert tasks, f"no task of session {session_id} in {db}"
    assert tasks[0].source == "claude-code"
    assert "pytest -q" in tasks[0].intent
    assert Path(tasks[0].project) == project.resolve()
