"""The Claude Code plugin as a user gets it from install/install.sh, with the real `claude`: it
keeps working after the clone is moved, a `/skillopt-sleep` session is never logged as a task,
and `doctor` asks Claude Code whether the plugin loads."""

from __future__ import annotations

import json
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

pytestmark = [pytest.mark.realbin, pytest.mark.slow]


def _hook_log_says(sleep_home: Path, text: str, seconds: float = 60) -> bool:
    log = resolve_paths(str(sleep_home)).log_dir / "hook.log"
    deadline = time.monotonic() + seconds  # the logger drains in the background
    while time.monotonic() < deadline:
        if log.is_file() and text in log.read_text():
            return True
        time.sleep(0.2)
    return False


def test_the_plugin_outlives_its_clone_and_ignores_its_own_sessions(
    kit, tmp_path, empty_python, wheelhouse
):
    claude = kit.need("claude")
    home, project, sleep_home = tmp_path / "home", tmp_path / "project", tmp_path / "sleep"
    home.mkdir()
    project.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(empty_python)
    (bin_dir / "claude").symlink_to(claude)
    clone = kit.copy_checkout(tmp_path / "clone")
    env = kit.base_env(
        home, bin_dir, SKILLOPT_SLEEP_HOME=str(sleep_home), **kit.offline_pip(wheelhouse)
    )
    kit.claude_plugins("claude", env, tmp_path)  # Claude Code has run here before

    installed = kit.sh(clone / "install" / "install.sh", "--no-codex", env=env, cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    moved = tmp_path / "moved-clone"
    clone.rename(moved)
    # Claude Code is asked whether the plugin still loads by the session below (its command runs)
    # and by doctor (the same `claude plugin list --json`, its errors a failure), not a third time.

    with ModelServer(
        responder=shell_then_reply("skillopt-sleep status", "Here it is:\n{output}")
    ) as srv:
        run = run_agent(
            [claude, "-p", "/skillopt-sleep status", "--output-format", "json"],
            claude_env(home, srv.url, base=env),
            project,
            timeout=180,
        )
        calls = srv.model_calls("anthropic")
    assert run.json()["result"].startswith(f"Here it is:\nproject: {project.resolve()}"), run.out
    assert "<command-name>/skillopt-sleep:skillopt-sleep</command-name>" in "\n".join(
        calls[0].user_texts
    )

    # Its SessionEnd hook ran the engine, which read the session and kept no task from it.
    assert _hook_log_says(sleep_home, "log: 1 session(s), 0 new and 0 updated task(s)")
    store = Store.open_readonly(resolve_paths(str(sleep_home)).db)
    assert store.list_tasks() == []

    doctor = subprocess.run(
        [str(home / ".local" / "bin" / "skillopt-sleep"), "doctor", "--json"],
        check=False,
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["plugin: claude-code"]["status"] == "ok", checks["plugin: claude-code"]

    gone = kit.sh(moved / "install" / "install.sh", "--uninstall", env=env, cwd=tmp_path)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.claude_plugins("claude", env, tmp_path) == []
    assert not (home / ".local" / "share" / "skillopt-sleep").exists()


def test_doctor_fails_a_plugin_claude_cannot_load(kit, tmp_path):
    """A directory marketplace whose directory is gone: the files say installed, Claude says
    it fails to load; doctor believes Claude."""
    claude = kit.need("claude")
    home, market = tmp_path / "home", tmp_path / "market"
    (market / "plugins").mkdir(parents=True)
    shutil.copytree(kit.repo / ".claude-plugin", market / ".claude-plugin")
    shutil.copytree(kit.claude_plugin, market / "plugins" / "claude-code")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(claude)
    env = kit.base_env(home, bin_dir)
    for args in (["marketplace", "add", str(market)], ["install", "skillopt-sleep@skillopt-sleep"]):
        subprocess.run(
            [claude, "plugin", *args],
            check=True,
            env=env,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )
    shutil.rmtree(market)
    doctor = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "doctor", "--json"],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **env,
            "PYTHONPATH": str(kit.repo),
            "PYTHONDONTWRITEBYTECODE": "1",
            "SKILLOPT_SLEEP_HOME": str(tmp_path / "sleep"),
        },
    )
    finding = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}["plugin: claude-code"]
    assert finding["status"] == "fail"
    assert (
        "Claude Code cannot load it: Marketplace skillopt-sleep failed to load" in finding["detail"]
    )


def test_the_session_end_hook_exits_0_without_an_engine(kit, tmp_path):
    """No engine anywhere: Claude Code must not report a failed hook after every session."""
    claude = kit.need("claude")
    home, project, sleep_home = tmp_path / "home", tmp_path / "project", tmp_path / "sleep"
    project.mkdir()
    plugin = tmp_path / "installed-plugin"  # outside any checkout, as in Claude Code's cache
    shutil.copytree(kit.claude_plugin, plugin)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(claude)
    env = kit.base_env(home, bin_dir, SKILLOPT_SLEEP_HOME=str(sleep_home))
    debug = tmp_path / "claude-debug.log"
    with ModelServer([Text("Tests pass.")]) as srv:
        run = run_agent(
            [
                claude,
                "-p",
                "Run the tests",
                "--plugin-dir",
                str(plugin),
                "--output-format",
                "json",
                "--debug-file",
                str(debug),
            ],
            claude_env(home, srv.url, base=env),
            project,
            timeout=180,
        )
    assert run.code == 0 and run.json()["result"] == "Tests pass."
    assert "failed" not in run.err
    ends = re.findall(
        r'SessionEnd:\w+ \["\$\{CLAUDE_PLUGIN_ROOT\}/bin/skillopt-sleep" log\] '
        r"completed with status (\d+)",
        debug.read_text(),
    )
    assert ends == ["0"]
    notices = (sleep_home / "state" / "launcher-notices.txt").read_text()
    assert "the engine is not installed, so a finished session was not logged" in notices
