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
from skillopt_sleep.testing.scripts import shell_then_reply

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


def test_slash_skillopt_sleep_status_runs_the_cli_and_shows_its_output(kit, session):
    env_for, project, sleep_home = session
    assert not sleep_home.exists()
    with ModelServer(
        responder=shell_then_reply("skillopt-sleep status", "Here is the status:\n{output}")
    ) as srv:
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

    # The Bash call ran our CLI (found by the launcher) and its real output came back. By hand
    # against an empty store like the one it saw (the session's end has logged a task since).
    fresh = {**env, "SKILLOPT_SLEEP_HOME": str(sleep_home.parent / "fresh-sleep")}
    expected = _direct_cli("status", env=fresh, cwd=project).strip()
    assert expected.startswith(f"project: {project.resolve()}")
    assert len(calls) == 2 and calls[1].last_tool_result.strip() == expected
    [result] = [
        r for r in records if r.get("type") == "user" and isinstance(r.get("tool_use_result"), dict)
    ]
    assert result["tool_use_result"]["stdout"].strip() == expected
    final = records[-1]
    assert final["type"] == "result" and final["permission_denials"] == []
    assert final["result"] == f"Here is the status:\n{expected}"
    # Side effect of that session: its SessionEnd hook logged it into the store under
    # SKILLOPT_SLEEP_HOME (`status` itself creates no store), in the background.
    db = resolve_paths(str(sleep_home)).db
    deadline = time.monotonic() + 60
    while not db.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert db.is_file()


def test_bare_slash_skillopt_sleep_defaults_to_status(kit, session):
    env_for, project, _ = session
    with ModelServer([Text("ok")]) as srv:
        records = _claude("/skillopt-sleep", env_for(srv.url), project, kit)
        [call] = srv.model_calls("anthropic")
    text = "\n".join(call.user_texts)
    assert "<command-name>/skillopt-sleep:skillopt-sleep</command-name>" in text
    assert "With no arguments it is `skillopt-sleep status`." in text
    assert records[-1]["result"] == "ok"


def test_the_skill_permission_allows_only_the_cli(kit, session):
    """No --allowedTools: the skill's `Bash(skillopt-sleep:*)` runs the CLI, refuses the rest."""
    env_for, project, _ = session
    marker = project / "redirected.txt"
    with ModelServer(responder=shell_then_reply(f"skillopt-sleep status > {marker}")) as srv:
        records = _claude("/skillopt-sleep status", env_for(srv.url), project, kit)
    final = records[-1]
    assert [d["tool_name"] for d in final["permission_denials"]] == ["Bash"]
    assert not marker.exists()


def _warm_dependencies(kit, env: dict[str, str], copy: Path) -> None:
    shutil.copytree(
        kit.repo / "skillopt_sleep",
        copy / "skillopt_sleep",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "--help"],
        check=True,
        cwd=copy,
        env={**env, "PYTHONPATH": str(copy)},
        capture_output=True,
        timeout=120,
    )


def test_session_end_hook_runs_our_cli_and_logs_the_session_into_the_store(kit, session, tmp_path):
    """One session: its SessionEnd hook ran the plugin's launcher, which started our CLI, and
    the `log` it ran put the session's task into the store."""
    env_for, project, sleep_home = session
    debug, pycache = tmp_path / "claude-debug.log", tmp_path / "pycache"
    with ModelServer([Text("Tests pass: 12 passed.")]) as srv:
        # No tool runs in this session: bytecode of this checkout's modules written under the
        # prefix can only come from the hook starting our CLI. Claude Code cancels SessionEnd
        # hooks after 1.5 s, so the dependencies' bytecode is compiled beforehand, from a copy
        # of the package elsewhere.
        # Bytecode goes under the prefix (never into the checkout), so this run may write it.
        env = {**env_for(srv.url), "PYTHONPYCACHEPREFIX": str(pycache)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        _warm_dependencies(kit, env, tmp_path / "copy")
        records = _claude(
            "Run the test suite with pytest -q", env, project, kit, "--debug-file", str(debug)
        )
    assert records[-1]["result"] == "Tests pass: 12 passed."
    ends = re.findall(
        r'SessionEnd:\w+ \["\$\{CLAUDE_PLUGIN_ROOT\}/bin/skillopt-sleep" log\] '
        r"completed with status (\d+)",
        debug.read_text(),
    )
    assert ends, "the plugin's SessionEnd hook did not run"
    cli_bytecode = pycache / str(kit.repo).lstrip("/") / "skillopt_sleep" / "cli"
    assert list(cli_bytecode.glob("harvest_cmds.*.pyc")), "the hook did not start our CLI"
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
