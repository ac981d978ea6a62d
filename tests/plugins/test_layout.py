"""The plugin files: versions agree with the package, the real `claude` accepts them, the
skill says what the agent must and must not do."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from skillopt_sleep import __version__
from skillopt_sleep.doctor.plugins import skill_version


def _json(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_shell_reports_the_package_version(kit):
    assert _json(kit.claude_plugin / ".claude-plugin" / "plugin.json")["version"] == __version__
    assert _json(kit.codex_plugin / ".codex-plugin" / "plugin.json")["version"] == __version__
    market = _json(kit.repo / ".claude-plugin" / "marketplace.json")
    assert [p["version"] for p in market["plugins"]] == [__version__]
    skill = kit.codex_plugin / "skills" / "skillopt-sleep" / "SKILL.md"
    assert skill_version(skill.read_text("utf-8")) == __version__


def test_marketplaces_point_at_the_plugin_dirs(kit):
    claude = _json(kit.repo / ".claude-plugin" / "marketplace.json")
    assert claude["name"] == "skillopt-sleep"
    [entry] = claude["plugins"]
    assert (kit.repo / entry["source"] / ".claude-plugin" / "plugin.json").is_file()
    codex = _json(kit.repo / ".agents" / "plugins" / "marketplace.json")
    [entry] = codex["plugins"]
    assert (kit.repo / entry["source"]["path"] / ".codex-plugin" / "plugin.json").is_file()


def test_one_launcher_is_shipped_in_both_plugins(kit):
    """Written once, in the Codex skill (Codex drops symlinks when it installs a plugin); the
    Claude Code plugin links to it (Claude Code copies the file the link points to)."""
    launcher = kit.codex_plugin / "skills" / "skillopt-sleep" / "scripts" / "skillopt-sleep"
    assert not launcher.is_symlink() and launcher.stat().st_mode & 0o111
    claude_bin = kit.claude_plugin / "bin" / "skillopt-sleep"
    assert claude_bin.is_symlink() and claude_bin.resolve() == launcher.resolve()


def test_session_end_hook_runs_the_log_command_through_the_launcher(kit):
    hooks = _json(kit.claude_plugin / "hooks" / "hooks.json")["hooks"]
    assert sorted(hooks) == ["SessionEnd", "SessionStart"]  # the start: tests/plugins/test_nudge
    [group] = hooks["SessionEnd"]
    [hook] = group["hooks"]
    assert hook["type"] == "command"
    assert hook["command"] == '"${CLAUDE_PLUGIN_ROOT}/bin/skillopt-sleep" log'


def _frontmatter(text: str) -> dict[str, str]:
    block = re.match(r"\A---\n(.*?)\n---\n", text, re.DOTALL)
    assert block, "SKILL.md has no frontmatter"
    return dict(line.split(": ", 1) for line in block.group(1).splitlines() if ": " in line)


def test_claude_skill_asks_only_for_the_cli_and_forbids_hand_edits(kit):
    text = (kit.claude_plugin / "skills" / "skillopt-sleep" / "SKILL.md").read_text("utf-8")
    front = _frontmatter(text)
    assert front["name"] == "skillopt-sleep"
    assert front["allowed-tools"] == "Bash(skillopt-sleep:*)"
    body = text.split("---\n", 2)[2]
    assert "skillopt-sleep $ARGUMENTS" in body
    assert "`skillopt-sleep status`" in body  # no action: status
    assert "skillopt-sleep review" in body and "/skillopt-sleep adopt" in body
    assert "Never edit `CLAUDE.md`" in body and "`SKILL.md`" in body
    assert "no output redirection" in body  # the permission rule would refuse it


def test_codex_skill_names_agents_md_and_the_nightly_harvest(kit):
    text = (kit.codex_plugin / "skills" / "skillopt-sleep" / "SKILL.md").read_text("utf-8")
    assert _frontmatter(text)["name"] == "skillopt-sleep"
    assert "Never edit `AGENTS.md`" in text
    assert "no session-end hook" in text and "skillopt-sleep harvest" in text
    assert "prompts" not in text  # custom prompts are not loaded by codex 0.169


@pytest.mark.realbin
@pytest.mark.parametrize("target", ["plugins/claude-code", "."])
def test_real_claude_validates_the_plugin_and_the_marketplace(kit, target):
    claude = kit.need("claude")
    r = subprocess.run(
        [claude, "plugin", "validate", "--strict", str(kit.repo / target)],
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Validation passed" in r.stdout
    assert "warning" not in r.stdout.lower()


@pytest.mark.realbin
def test_real_claude_rejects_a_broken_hooks_file(kit, tmp_path):
    """The validation above can fail: a hooks.json that would break the plugin load is refused."""
    claude = kit.need("claude")
    broken = tmp_path / "plugin"
    shutil.copytree(kit.claude_plugin, broken)
    (broken / "hooks" / "hooks.json").write_text('{"hooks": {"SessionEnd": "log"}}')
    r = subprocess.run(
        [claude, "plugin", "validate", str(broken)],
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0
