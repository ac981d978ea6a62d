"""The Codex skill end to end: the real `codex exec` against a loopback Responses server."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.cli import main
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.agents import codex_home, run_agent
from skillopt_sleep.testing.scripts import shell_then_reply, tool_output

pytestmark = pytest.mark.realbin


@pytest.mark.parametrize("where", ["user", "repo"])
def test_dollar_skillopt_sleep_loads_the_skill_and_runs_the_cli(kit, tmp_path, clean_bin, where):
    codex = kit.need("codex")
    git = kit.need("git")
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    subprocess.run([git, "init", "-q", str(project)], check=True)
    root = home if where == "user" else project
    skill_dir = root / ".agents" / "skills" / "skillopt-sleep"
    shutil.copytree(kit.codex_plugin / "skills" / "skillopt-sleep", skill_dir)  # as the installer
    sleep_home = project / ".sleep"  # inside the workspace the sandbox lets it write
    # The engine as `pip install --user` leaves it: a console script in ~/.local/bin, which is
    # not on PATH; the skill's own launcher finds it there.
    script = home / ".local" / "bin" / "skillopt-sleep"
    script.parent.mkdir(parents=True)
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(kit.repo)!r})\n"
        "from skillopt_sleep.cli import entry\nentry()\n"
    )
    script.chmod(0o755)
    base = kit.base_env(home, clean_bin, SKILLOPT_SLEEP_HOME=str(sleep_home))
    launcher = skill_dir / "scripts" / "skillopt-sleep"
    with ModelServer(responder=shell_then_reply(f"{launcher} status", "{output}")) as srv:
        env = codex_home(home, srv.url, base=base)
        argv = [codex, "exec", "--json", "--skip-git-repo-check", "$skillopt-sleep status"]
        run = run_agent(argv, env, project, timeout=180)
        calls = srv.model_calls("responses")
    assert calls, run.err

    texts = [m.text for m in calls[0].messages]
    listing = next(t for t in texts if "<skills_instructions>" in t)
    assert "- skillopt-sleep: Show what skillopt-sleep learned overnight" in listing
    assert "skillopt-sleep/SKILL.md)" in listing
    injected = next(t for t in texts if t.startswith("<skill>\n<name>skillopt-sleep</name>"))
    assert f"<path>{skill_dir.resolve() / 'SKILL.md'}</path>" in injected
    assert (skill_dir / "SKILL.md").read_text().strip() in injected
    assert "Never edit `AGENTS.md`" in injected

    # By hand, for comparison: the CLI the script runs, in this process (not under test here).
    direct, problems = io.StringIO(), io.StringIO()
    assert main(["status"], env=env, stdout=direct, stderr=problems, cwd=project) == 0, (
        problems.getvalue()
    )
    expected = direct.getvalue()
    assert expected.startswith(f"project: {project.resolve()}")
    assert tool_output(calls[-1].last_tool_result) == expected.strip()
    assert not resolve_paths(str(sleep_home)).db.exists()  # a reading command creates nothing
    messages = [
        e["item"]["text"]
        for e in run.jsonl()
        if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
    ]
    assert messages == [expected.strip()]


def test_the_codex_plugin_is_accepted_by_the_real_codex(kit, tmp_path):
    """`codex plugin marketplace add <checkout>` then `codex plugin add` install the plugin."""
    codex = kit.need("codex")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": f"{Path(codex).parent}:/usr/bin:/bin"}

    def run(*args: str):
        return subprocess.run(
            [codex, "plugin", *args],
            check=False,
            env=env,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert run("marketplace", "add", str(kit.repo)).returncode == 0
    added = run("add", "skillopt-sleep@skillopt-sleep")
    assert added.returncode == 0, added.stderr
    listed = run("list").stdout
    assert "skillopt-sleep@skillopt-sleep" in listed and "installed, enabled" in listed
    cached = home / ".codex" / "plugins" / "cache" / "skillopt-sleep" / "skillopt-sleep"
    assert (cached / "0.1.0" / "skills" / "skillopt-sleep" / "SKILL.md").is_file()
    # Codex drops symlinks when it copies a plugin: the launcher must be a file in the skill.
    launcher = cached / "0.1.0" / "skills" / "skillopt-sleep" / "scripts" / "skillopt-sleep"
    assert launcher.is_file() and launcher.read_text().startswith("#!/bin/sh")
