"""`skillopt-sleep doctor` on the agent shells: which agents have them, and version mismatches."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from skillopt_sleep import __version__


def _claude_install(home: Path, version: str, *, enabled: bool = True) -> Path:
    """The files `claude plugin install` writes (layout observed with claude 2.1.197)."""
    root = home / ".claude" / "plugins" / "cache" / "skillopt-sleep" / "skillopt-sleep" / version
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "skillopt-sleep", "version": version})
    )
    key = "skillopt-sleep@skillopt-sleep"
    (home / ".claude" / "plugins" / "installed_plugins.json").write_text(
        json.dumps(
            {
                "version": 2,
                "plugins": {key: [{"scope": "user", "installPath": str(root), "version": version}]},
            }
        )
    )
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {key: enabled}}))
    return root


def _codex_skill(kit, home: Path, version: str) -> Path:
    dest = home / ".agents" / "skills" / "skillopt-sleep"
    shutil.copytree(kit.codex_plugin / "skills" / "skillopt-sleep", dest)
    skill = dest / "SKILL.md"
    text = skill.read_text().replace(f'version: "{__version__}"', f'version: "{version}"')
    skill.write_text(text)
    return skill


def _findings(cli, tmp_path, **env: str) -> dict[str, dict]:
    r = cli("doctor", "--json", env=env, cwd=tmp_path)
    return {c["name"]: c for c in r.json()["checks"]}


@pytest.fixture
def no_agents_on_path(monkeypatch, tmp_path):
    """PATH without claude or codex: doctor reads their files and does not ask them (the files
    here are written by hand; the agents themselves would not load such a plugin)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_no_agents_means_skipped_checks(cli, tmp_path, no_agents_on_path):
    found = _findings(cli, tmp_path)
    assert found["plugin: claude-code"]["status"] == "skip"
    assert found["skill: codex"]["status"] == "skip"


def test_agent_present_without_the_shell_says_how_to_install(
    cli, tmp_path, sandbox_home, no_agents_on_path
):
    (sandbox_home / ".claude").mkdir()
    (sandbox_home / ".codex").mkdir()
    found = _findings(cli, tmp_path)
    claude = found["plugin: claude-code"]
    assert claude["status"] == "warn"
    assert "claude plugin install skillopt-sleep@skillopt-sleep" in claude["fix"]
    assert claude["data"] == {"agent": "claude-code", "installed": "no"}
    codex = found["skill: codex"]
    assert codex["status"] == "warn" and "~/.agents/skills/" in codex["fix"]


def test_matching_versions_are_ok_and_say_where(
    cli, tmp_path, sandbox_home, kit, no_agents_on_path
):
    root = _claude_install(sandbox_home, __version__)
    skill = _codex_skill(kit, sandbox_home, __version__)
    found = _findings(cli, tmp_path)
    assert found["plugin: claude-code"]["status"] == "ok"
    assert found["plugin: claude-code"]["data"]["path"] == str(root)
    assert found["skill: codex"] == {
        "name": "skill: codex",
        "status": "ok",
        "detail": f"version {__version__} at {skill}",
        "fix": "",
        "data": {"agent": "codex", "installed": "yes", "path": str(skill), "version": __version__},
    }


def test_an_older_claude_plugin_is_flagged_with_the_update_command(
    cli, tmp_path, sandbox_home, no_agents_on_path
):
    _claude_install(sandbox_home, "0.0.9")
    r = cli("doctor", cwd=tmp_path)
    assert f"warn  plugin: claude-code: version 0.0.9 at {sandbox_home}" in r.out
    assert f"but the engine is {__version__}" in r.out
    assert (
        "fix: run `claude plugin marketplace update skillopt-sleep` then "
        "`claude plugin update skillopt-sleep@skillopt-sleep`"
    ) in r.out


def test_a_newer_plugin_asks_to_upgrade_the_engine(cli, tmp_path, sandbox_home, no_agents_on_path):
    _claude_install(sandbox_home, "99.0.0")
    claude = _findings(cli, tmp_path)["plugin: claude-code"]
    assert claude["status"] == "warn"
    assert claude["fix"] == (
        "upgrade the engine to 99.0.0: run install/install.sh from a checkout "
        "of skillopt-sleep 99.0.0"
    )


def test_a_disabled_plugin_says_how_to_enable_it(cli, tmp_path, sandbox_home, no_agents_on_path):
    _claude_install(sandbox_home, __version__, enabled=False)
    claude = _findings(cli, tmp_path)["plugin: claude-code"]
    assert claude["status"] == "warn"
    assert claude["fix"] == "run `claude plugin enable skillopt-sleep@skillopt-sleep`"


def test_a_stale_codex_skill_is_flagged(cli, tmp_path, sandbox_home, kit, no_agents_on_path):
    skill = _codex_skill(kit, sandbox_home, "0.0.1")
    codex = _findings(cli, tmp_path)["skill: codex"]
    assert codex["status"] == "warn"
    assert codex["detail"] == f"version 0.0.1 at {skill}, but the engine is {__version__}"
    assert str(skill.parent) in codex["fix"]


def test_a_repo_skill_is_found_from_a_subdirectory(cli, tmp_path, kit, no_agents_on_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    shutil.copytree(
        kit.codex_plugin / "skills" / "skillopt-sleep",
        repo / ".agents" / "skills" / "skillopt-sleep",
    )
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    r = cli("doctor", "--json", "--project", str(sub), cwd=tmp_path)
    codex = {c["name"]: c for c in r.json()["checks"]}["skill: codex"]
    assert codex["status"] == "ok"
    assert codex["data"]["path"] == str(repo / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md")


def test_a_codex_plugin_copy_says_its_namespaced_name(
    cli, tmp_path, sandbox_home, kit, no_agents_on_path
):
    """Codex lists a plugin's skill as `skillopt-sleep:skillopt-sleep` (seen with codex 0.169)."""
    cached = sandbox_home / ".codex" / "plugins" / "cache" / "skillopt-sleep" / "skillopt-sleep"
    shutil.copytree(kit.codex_plugin, cached / __version__)
    codex = _findings(cli, tmp_path)["skill: codex"]
    assert codex["status"] == "ok"
    assert codex["detail"] == (
        f"version {__version__} at {cached / __version__} (as $skillopt-sleep:skillopt-sleep)"
    )


@pytest.mark.realbin
@pytest.mark.parametrize("route", ["copy", "plugin"])
def test_doctor_asks_codex_under_which_name_it_lists_the_skill(
    cli, tmp_path, sandbox_home, kit, route
):
    codex = kit.need("codex")
    if route == "copy":
        _codex_skill(kit, sandbox_home, __version__)
        expected = "(Codex lists it as $skillopt-sleep)"
    else:
        env = {"HOME": str(sandbox_home), "PATH": f"{Path(codex).parent}:/usr/bin:/bin"}
        for args in (
            ["marketplace", "add", str(kit.repo)],
            ["add", "skillopt-sleep@skillopt-sleep"],
        ):
            subprocess.run(
                [codex, "plugin", *args],
                check=True,
                env=env,
                cwd=tmp_path,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=120,
            )
        expected = "(Codex lists it as $skillopt-sleep:skillopt-sleep)"
    (sandbox_home / ".codex").mkdir(exist_ok=True)
    codex_finding = _findings(cli, tmp_path)["skill: codex"]
    assert codex_finding["status"] == "ok", codex_finding
    assert codex_finding["detail"].endswith(expected)
