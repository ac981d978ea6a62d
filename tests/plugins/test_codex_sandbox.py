"""Reading commands inside Codex's default `read-only` sandbox, with the store outside every
writable root: the real `codex exec` runs `$skillopt-sleep status` and it answers."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from skillopt_sleep.cli import main
from skillopt_sleep.testing import ModelCall, ModelServer, Text
from skillopt_sleep.testing.agents import codex_home, run_agent
from skillopt_sleep.testing.scripts import codex_exec, shell_then_reply, tool_output

pytestmark = pytest.mark.realbin


@pytest.fixture
def outside_store():
    """A store directory Codex's sandbox cannot write: not the workspace and not /tmp (which
    the Linux sandbox leaves writable)."""
    root = Path(tempfile.mkdtemp(prefix="sleep-store-", dir="/var/tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _engine_script(home: Path, repo: Path) -> Path:
    script = home / ".local" / "bin" / "skillopt-sleep"
    script.parent.mkdir(parents=True)
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(repo)!r})\n"
        "sys.dont_write_bytecode = True\n"
        "from skillopt_sleep.cli import entry\nentry()\n"
    )
    script.chmod(0o755)
    return script


READING = ("tasks list", "doctor --backend simulated", "config show", "review", "status")


def _by_hand(argv: list[str], env: dict[str, str], cwd: Path) -> str:
    """What ``skillopt-sleep COMMAND 2>&1; echo exit=$?`` prints outside any sandbox, from the
    CLI run in this process (the same ``main`` the script runs, its environment and directory
    given): the reference the sandboxed runs are held to, not itself under test."""
    out = io.StringIO()
    code = main(argv, env=env, stdout=out, stderr=out, cwd=cwd)
    return f"{out.getvalue()}exit={code}".strip()


def _seen_per_command(calls: list[ModelCall]) -> list[str]:
    """What each scripted command printed inside the sandbox, in order: the tool result the
    model got back after each call (the first call carries none)."""
    return [tool_output(c.last_tool_result or "") for c in calls[1:]]


def test_reading_commands_work_in_the_default_read_only_sandbox(
    kit, tmp_path, clean_bin, outside_store
):
    """One `codex exec` session runs every reading command in turn (one codex start, not one per
    command); each command's output and exit code are checked on their own."""
    codex = kit.need("codex")
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    skill_dir = home / ".agents" / "skills" / "skillopt-sleep"
    shutil.copytree(kit.codex_plugin / "skills" / "skillopt-sleep", skill_dir)
    script = _engine_script(home, kit.repo)
    base = kit.base_env(home, clean_bin, SKILLOPT_SLEEP_HOME=str(outside_store))
    # One write from a normal shell first: the store exists, in WAL mode, with a task (its
    # process ends, so the store is closed as a user's would be).
    added = subprocess.run(
        [str(script), "tasks", "add", "--intent", "Run the tests", "--project", str(project)],
        check=False,
        env=base,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr
    launcher = skill_dir / "scripts" / "skillopt-sleep"
    # Report the exit code too: the sandboxed command's own status is what the user sees.
    shells = {command: f"{launcher} {command} 2>&1; echo exit=$?" for command in READING}
    direct = {command: _by_hand(command.split(), base, project) for command in READING}
    store_files = sorted(p.name for p in outside_store.rglob("*"))
    replies = [codex_exec(shell) for shell in shells.values()] + [Text("done")]
    with ModelServer(replies) as srv:
        env = codex_home(home, srv.url, base=base, sandbox="read-only")
        argv = [codex, "exec", "--json", "--skip-git-repo-check", "$skillopt-sleep status"]
        run = run_agent(argv, env, project, timeout=180)
        calls = srv.model_calls("responses")
    assert run.code == 0, run.err
    sandbox = next(t for t in (m.text for m in calls[0].messages) if "sandbox" in t.lower())
    assert "read-only" in sandbox
    seen = dict(zip(READING, _seen_per_command(calls), strict=False))
    assert list(seen) == list(READING), f"codex ran only {list(seen)}"
    for command in READING:
        if command != "doctor --backend simulated":  # doctor also reports what the sandbox stops
            assert seen[command] == direct[command], command
        else:
            assert "warn  store writes:" in seen[command], command
            assert "is not writable here" in seen[command], command
        # review: no proposal is pending, and it says so the same way inside the sandbox
        assert seen[command].endswith("exit=8" if command == "review" else "exit=0"), command
    assert "(1 tasks logged)" in seen["status"]
    assert sorted(p.name for p in outside_store.rglob("*")) == store_files  # nothing written
    # The session is on disk now; harvesting it adds no task.
    harvest, problems = io.StringIO(), io.StringIO()
    argv = ["harvest", "--all-projects", "--source", "codex", "--json"]
    assert main(argv, env=env, stdout=harvest, stderr=problems, cwd=project) == 0, (
        problems.getvalue()
    )
    stats = json.loads(harvest.getvalue())
    codex_stats = stats["sources"]["codex"]
    assert codex_stats["files_read"] == 1 and codex_stats["tasks_new"] == 0, stats


def test_a_writing_command_names_the_sandbox_and_never_says_move_the_store(
    kit, tmp_path, clean_bin, outside_store
):
    codex = kit.need("codex")
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    script = _engine_script(home, kit.repo)
    base = kit.base_env(home, clean_bin, SKILLOPT_SLEEP_HOME=str(outside_store))
    assert _by_hand(["status"], base, project).endswith("exit=0")
    shell = f"{script} tasks add --intent 'Say hi' 2>&1; echo exit=$?"
    with ModelServer(responder=shell_then_reply(shell, "{output}")) as srv:
        env = codex_home(home, srv.url, base=base, sandbox="read-only")
        run_agent(
            [codex, "exec", "--json", "--skip-git-repo-check", "add a task"],
            env,
            project,
            timeout=180,
        )
        calls = srv.model_calls("responses")
    seen = tool_output(calls[-1].last_tool_result)
    assert seen.endswith("exit=5"), seen
    [line] = [ln for ln in seen.splitlines() if ln.startswith("skillopt-sleep: error:")]
    assert line.startswith(f"skillopt-sleep: error: cannot create {outside_store}/")
    assert (
        f"(Codex runs commands in a sandbox that may not write to {outside_store}; approve running "
        "this command outside the sandbox; reading commands (status, review, tasks list, "
        "doctor) work without it)"
    ) in line
    assert "aside" not in seen
