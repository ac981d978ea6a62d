"""`skillopt-sleep doctor` on the newer agents' hooks: installed or not, and whether the hook
would reach the engine, with the one thing to do when not."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    """The sandbox HOME, with a PATH that holds no agent and no engine."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return Path(os.environ["HOME"])


def _findings(cli, tmp_path) -> dict[str, dict]:
    r = cli("doctor", "--json", cwd=tmp_path)
    return {c["name"]: c for c in r.json()["checks"]}


def _linked_qwen(home: Path) -> Path:
    """What `setup` leaves for Qwen Code: our copy, and the link file naming it."""
    copy = home / ".local" / "share" / "skillopt-sleep" / "plugins" / "qwen"
    (copy / "bin").mkdir(parents=True)
    (copy / "qwen-extension.json").write_text('{"name": "skillopt-sleep"}')
    launcher = copy / "bin" / "skillopt-sleep"
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    meta = home / ".qwen" / "extensions" / "skillopt-sleep" / ".qwen-extension-install.json"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"source": str(copy), "type": "link"}))
    return copy


def _engine(home: Path) -> None:
    engine = home / ".local" / "share" / "skillopt-sleep" / "engine" / "bin" / "skillopt-sleep"
    engine.parent.mkdir(parents=True)
    engine.write_text("#!/bin/sh\n")
    engine.chmod(0o755)
    (home / ".local" / "share" / "skillopt-sleep" / "engine-command").write_text(f"{engine}\n")


def test_agents_not_on_this_machine_are_skipped(cli, tmp_path, home):
    found = _findings(cli, tmp_path)
    for name, label in [("copilot", "Copilot CLI"), ("gemini", "Gemini CLI"), ("pi", "Pi")]:
        assert found[f"plugin: {name}"]["status"] == "skip"
        assert found[f"plugin: {name}"]["detail"] == f"{label} not found"


def test_an_agent_here_without_the_hook_gets_the_setup_line(cli, tmp_path, home):
    (home / ".gemini").mkdir()
    check = _findings(cli, tmp_path)["plugin: gemini"]
    assert (check["status"], check["detail"]) == (
        "warn",
        "Gemini CLI is here but its skillopt-sleep hook is not installed",
    )
    assert check["fix"] == (
        "run sh install/install.sh --agents gemini from a skillopt-sleep checkout"
    )


def test_a_linked_hook_whose_launcher_finds_the_engine_is_ok(cli, tmp_path, home):
    copy = _linked_qwen(home)
    _engine(home)
    check = _findings(cli, tmp_path)["plugin: qwen"]
    assert check["status"] == "ok"
    assert check["detail"] == (
        f"hook installed at {copy}; it runs {copy / 'bin' / 'skillopt-sleep'}"
    )


def test_a_hook_whose_launcher_finds_no_engine_fails_with_the_fix(cli, tmp_path, home):
    copy = _linked_qwen(home)
    check = _findings(cli, tmp_path)["plugin: qwen"]
    assert check["status"] == "fail"
    assert check["detail"] == (
        f"hook installed at {copy}, but its launcher {copy / 'bin' / 'skillopt-sleep'} "
        "finds no installed engine"
    )
    assert check["fix"] == "run sh install/install.sh --agents qwen from a skillopt-sleep checkout"


def test_the_installed_opencode_plugin_runs_its_launcher_without_the_command_on_path(
    cli, tmp_path, home
):
    """What `setup` leaves for OpenCode: the plugin file, and our copy holding the launcher it
    runs (the engine setup recorded), so no `skillopt-sleep` on PATH is needed."""
    js = home / ".config" / "opencode" / "plugins" / "skillopt-sleep.js"
    js.parent.mkdir(parents=True)
    js.write_bytes((REPO / "plugins/opencode/plugins/skillopt-sleep.js").read_bytes())
    launcher = home / ".local/share/skillopt-sleep/plugins/opencode/bin/skillopt-sleep"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    _engine(home)
    check = _findings(cli, tmp_path)["plugin: opencode"]
    assert (check["status"], check["detail"]) == (
        "ok",
        f"hook installed at {js}; it runs {launcher}",
    )


def test_a_copied_opencode_plugin_needs_the_command_on_path(cli, tmp_path, home):
    js = home / ".config" / "opencode" / "plugins" / "skillopt-sleep.js"
    js.parent.mkdir(parents=True)
    js.write_bytes((REPO / "plugins/opencode/plugins/skillopt-sleep.js").read_bytes())
    check = _findings(cli, tmp_path)["plugin: opencode"]
    assert (check["status"], check["detail"]) == (
        "fail",
        f"hook installed at {js}, but it runs `skillopt-sleep` from PATH, and there is none",
    )
