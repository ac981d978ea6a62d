"""`setup` installs the plugin of each newer agent found (Copilot CLI, OpenCode, Gemini CLI,
Qwen Code, Pi), and `--uninstall` gives the home back byte for byte, on a scripted machine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillopt_sleep.setup.commands import Done
from skillopt_sleep.setup.context import SetupFailed

NONE_ELSE = {"claude": "no", "codex": "no", "schedule": "no"}
REPO = Path(__file__).resolve().parents[2]


def _bytes(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its content (None: a directory)."""
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes() for p in root.rglob("*")
    }


def _on_path(machine, name: str) -> None:
    exe = Path(machine.env["PATH"]) / name
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)


def _fake_copilot(machine):
    """`copilot plugin install DIR`: what copilot 1.0.102 writes (a copy, its config list)."""
    home = machine.home / ".copilot"

    def install(argv):
        # Any first run unpacks the CLI into ~/.cache/copilot (235 MB in 1.0.102).
        unpacked = machine.home / ".cache" / "copilot" / "pkg" / "linux-x64" / "1.0.102"
        unpacked.mkdir(parents=True, exist_ok=True)
        (unpacked / "index.js").write_text("// copilot\n")
        cache = home / "installed-plugins" / "_direct" / Path(argv[3]).name
        cache.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(argv[3], cache)
        config = home / "config.json"
        entry = {"name": "skillopt-sleep", "cache_path": str(cache), "enabled": True}
        old = json.loads(config.read_text().split("\n", 1)[1]) if config.exists() else {}
        old.setdefault("installedPlugins", []).append(entry)
        config.write_text("// managed\n" + json.dumps(old, indent=2))
        (home / "logs").mkdir(exist_ok=True)
        (home / "logs" / "process-1.log").write_text("installed\n")
        return Done(0, 'Plugin "skillopt-sleep" installed successfully.\n')

    machine.on(lambda a: list(a[:3]) == ["copilot", "plugin", "install"], install)
    _on_path(machine, "copilot")
    return home


def test_qwen_and_opencode_found_here_get_their_plugin_and_uninstall_restores_home(machine):
    (machine.home / ".qwen").mkdir()
    (machine.home / ".qwen" / "settings.json").write_text('{"mine": 1}\n')
    (machine.home / ".config" / "opencode").mkdir(parents=True)
    before = _bytes(machine.home)

    out = machine.install(**NONE_ELSE)
    copy = machine.layout.own_dir / "plugins" / "qwen"
    meta = machine.home / ".qwen" / "extensions" / "skillopt-sleep" / ".qwen-extension-install.json"
    assert json.loads(meta.read_text()) == {
        "source": str(copy),
        "type": "link",
        "originSource": "QwenCode",
    }
    # The launcher is a file in the installation's own copy: the checkout may move.
    launcher = copy / "bin" / "skillopt-sleep"
    assert launcher.is_file() and not launcher.is_symlink()
    js = machine.home / ".config" / "opencode" / "plugins" / "skillopt-sleep.js"
    assert js.read_bytes() == (REPO / "plugins/opencode/plugins/skillopt-sleep.js").read_bytes()
    assert "copilot cli: not found; skipped\n" in out and "pi: not found; skipped\n" in out
    assert not machine.commands.calls or all("qwen" not in c for c in machine.commands.calls)

    machine.install(uninstall=True)
    assert _bytes(machine.home) == before


def test_copilot_is_installed_through_its_cli_and_its_changed_config_is_put_back(machine):
    home = _fake_copilot(machine)
    home.mkdir()
    mine = '// managed\n{\n  "installedPlugins": [{"name": "other"}]\n}'
    (home / "config.json").write_text(mine)
    before = _bytes(machine.home)

    machine.install(**NONE_ELSE, agents=("copilot",))
    [call] = machine.calls("plugin install")
    assert call == ("copilot", "plugin", "install", str(machine.layout.own_dir / "plugins/copilot"))
    assert '"skillopt-sleep"' in (home / "config.json").read_text()

    machine.install(uninstall=True)
    assert _bytes(machine.home) == before
    assert not machine.calls("uninstall")  # reverted offline, the CLI not needed


def test_a_copilot_cache_that_was_there_before_the_install_is_left_alone(machine):
    _fake_copilot(machine)
    mine = machine.home / ".cache" / "copilot" / "pkg" / "linux-x64" / "1.0.90" / "index.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("// the user's own copilot\n")
    machine.install(**NONE_ELSE, agents=("copilot",))
    machine.install(uninstall=True)
    unpacked = machine.home / ".cache" / "copilot" / "pkg" / "linux-x64"
    assert sorted(p.name for p in unpacked.iterdir()) == ["1.0.102", "1.0.90"]
    assert mine.read_text() == "// the user's own copilot\n"


def test_a_config_the_user_changed_since_is_left_to_copilots_own_uninstall(machine):
    home = _fake_copilot(machine)
    machine.install(**NONE_ELSE, agents=("copilot",))
    config = home / "config.json"
    config.write_text(config.read_text() + "\n")  # copilot rewrote it since
    out = machine.install(uninstall=True)
    assert "copilot: its files changed since the install; asking copilot to remove it\n" in out
    assert machine.calls("uninstall") == [("copilot", "plugin", "uninstall", "skillopt-sleep")]
    assert config.exists()  # changed since: not ours to delete


def test_agents_none_installs_no_newer_agent(machine):
    (machine.home / ".qwen").mkdir()
    machine.install(**NONE_ELSE, agents=())
    assert not (machine.home / ".qwen" / "extensions").exists()


def test_an_unknown_agent_is_one_line_naming_the_choices(cli, tmp_path):
    r = cli("setup", "--agents", "copilot,cursor", env={"HOME": str(tmp_path)})
    assert r.code == 2 and r.out == ""
    assert r.err == (
        "skillopt-sleep: error: --agents: unknown agent cursor (name some of copilot, "
        "opencode, gemini, qwen, pi, comma-separated, or none)\n"
    )


def test_an_agent_asked_for_whose_cli_is_missing_fails_with_the_fix(machine):
    with pytest.raises(SetupFailed, match="--agents gemini: the gemini CLI is not on PATH"):
        machine.install(**NONE_ELSE, agents=("gemini",))


def test_a_failed_agent_install_keeps_what_it_wrote_in_the_manifest(machine, tree):
    before = tree(machine.home)
    home = machine.home / ".copilot"

    def half(argv):  # it wrote its config, then failed
        home.mkdir()
        (home / "config.json").write_text("{}")
        return Done(1, stderr="Error: plugin.json is invalid\n")

    machine.on(lambda a: list(a[:3]) == ["copilot", "plugin", "install"], half)
    _on_path(machine, "copilot")
    with pytest.raises(SetupFailed, match=r"copilot plugin install failed: Error: plugin\.json is"):
        machine.install(**NONE_ELSE, agents=("copilot",))
    machine.install(uninstall=True)
    assert tree(machine.home) == before


def test_gemini_installs_with_its_source_trusted_and_a_wait_on_a_question_ends_with_the_fix(
    machine, tree
):
    """gemini 0.61 asks whether to trust the folder it installs from, and --consent does not
    answer that: the installer trusts our own copy for that one command, and a gemini still
    waiting after a minute is stopped, the error naming what to run."""
    before = tree(machine.home)
    _on_path(machine, "gemini")
    machine.commands.enqueue("gemini", TimeoutError("gemini ran longer than 60s"))
    with pytest.raises(SetupFailed) as failed:
        machine.install(**NONE_ELSE, agents=("gemini",))
    [run] = [r for r in machine.commands.runs if r.argv[:3] == ("gemini", "extensions", "install")]
    assert run.env["GEMINI_CLI_TRUST_WORKSPACE"] == "true" and run.timeout <= 60
    copy = machine.layout.own_dir / "plugins" / "gemini"
    assert failed.value.one_line() == (
        "gemini extensions install failed: gemini ran longer than 60s (gemini waited on a "
        f"question; run `GEMINI_CLI_TRUST_WORKSPACE=true gemini extensions install {copy} "
        "--consent` in a terminal, then the installer again (or leave gemini out of --agents))"
    )
    machine.install(uninstall=True)
    assert tree(machine.home) == before


def test_a_gemini_install_that_ends_without_the_extension_fails(machine):
    """Started once with no terminal, an unanswered gemini 0.61 ends at once, exit 0, nothing
    installed: that is no success."""
    _on_path(machine, "gemini")
    with pytest.raises(SetupFailed) as failed:
        machine.install(**NONE_ELSE, agents=("gemini",))
    extensions = machine.home / ".gemini" / "extensions"
    assert failed.value.one_line().startswith(
        "gemini extensions install ended, but no skillopt-sleep extension is in "
        f"{extensions} (run `GEMINI_CLI_TRUST_WORKSPACE=true gemini extensions install "
    )


def test_a_dry_run_names_each_step_and_changes_nothing(machine, tree):
    (machine.home / ".qwen").mkdir()
    before = tree(machine.home)
    out = machine.install(**NONE_ELSE, dry_run=True, agents=("qwen", "copilot"))
    own = machine.layout.own_dir / "plugins"
    assert f"would run: copilot plugin install {own / 'copilot'}\n" in out
    meta = machine.home / ".qwen/extensions/skillopt-sleep/.qwen-extension-install.json"
    assert f"would write: {meta}\n" in out
    assert tree(machine.home) == before


def _checkout(tmp_path: Path) -> Path:
    """A copy of this checkout's installable parts, to change a plugin in."""
    src = tmp_path / "checkout"
    (src / "skillopt_sleep").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src)
    shutil.copy(REPO / "skillopt_sleep" / "__init__.py", src / "skillopt_sleep")
    shutil.copytree(REPO / "plugins", src / "plugins")  # links followed
    return src


def test_a_changed_plugin_is_reinstalled_and_uninstall_still_restores_home(machine, tmp_path):
    src = _checkout(tmp_path)
    (machine.home / ".qwen").mkdir()
    (machine.home / ".config" / "opencode").mkdir(parents=True)
    before = _bytes(machine.home)
    machine.install(**NONE_ELSE, source=src)
    again = machine.install(**NONE_ELSE, source=src)
    assert "qwen code: plugin already installed\n" in again

    (src / "plugins/qwen/qwen-extension.json").write_text('{"name": "skillopt-sleep", "v": 2}')
    js = src / "plugins/opencode/plugins/skillopt-sleep.js"
    js.write_text(js.read_text() + "// v2\n")
    out = machine.install(**NONE_ELSE, source=src)
    assert "qwen code: the plugin changed in this checkout; reinstalling it\n" in out
    assert "opencode: the plugin changed in this checkout; reinstalling it\n" in out
    copy = machine.layout.own_dir / "plugins" / "qwen" / "qwen-extension.json"
    assert copy.read_text() == '{"name": "skillopt-sleep", "v": 2}'
    installed = machine.home / ".config/opencode/plugins/skillopt-sleep.js"
    assert installed.read_text().endswith("// v2\n")

    machine.install(uninstall=True)
    assert _bytes(machine.home) == before
