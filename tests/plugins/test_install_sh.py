"""install/install.sh in a temporary HOME: installs, is a no-op the second time, and
`--uninstall` leaves the file tree exactly as it was."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep import __version__

# Stand-in for pipx/uv (neither can be installed offline here): keeps a marker file for the
# installed package and a command that says its version, as the installer checks, and logs every
# call, so a test sees which tool the installer chose.
FAKE_TOOL = r"""#!/bin/sh
echo "$(basename "$0") $*" >> "$FAKE_LOG"
marker="$FAKE_STATE/$(basename "$0").installed"
command="$HOME/.local/bin/skillopt-sleep"
case "$1 $2" in
  "list --short") [ -f "$marker" ] && echo "skillopt-sleep {version}" ;;
  "tool list") [ -f "$marker" ] && echo "skillopt-sleep v{version}" ;;
  "install "*|"tool install") touch "$marker"; mkdir -p "$HOME/.local/bin"
      printf '#!/bin/sh\necho "skillopt-sleep {version}"\n' > "$command"; chmod +x "$command" ;;
  "uninstall "*|"tool uninstall") rm -f "$marker" "$command" ;;
esac
exit 0
""".replace("{version}", __version__)
SPEC = "/some/where/skillopt_sleep-0.1.0-py3-none-any.whl"  # --package: no wheel build here


def _fake_tools(bin_dir: Path, state: Path, *names: str) -> dict[str, str]:
    state.mkdir(parents=True, exist_ok=True)
    for name in names:
        (bin_dir / name).write_text(FAKE_TOOL)
        (bin_dir / name).chmod(0o755)
    return {"FAKE_LOG": str(state / "calls.log"), "FAKE_STATE": str(state)}


def _calls(env: dict[str, str]) -> list[str]:
    log = Path(env["FAKE_LOG"])
    return log.read_text().splitlines() if log.exists() else []


def _manifest(home: Path) -> Path:
    return home / ".local" / "state" / "skillopt-sleep" / "install-manifest.txt"


def test_dry_run_changes_nothing_and_says_what_it_would_do(kit, home, clean_bin):
    (home / ".codex").mkdir()
    if shutil.which("claude"):
        kit.link(clean_bin, "claude")  # its probe must not run: `claude` creates ~/.claude*
    before = kit.listing(home)
    r = kit.sh(kit.install_sh, "--dry-run", "--schedule", env=kit.base_env(home, clean_bin))
    assert r.returncode == 0, r.stderr
    assert kit.listing(home) == before
    out = r.stdout
    assert out.startswith("dry run: nothing will change\n")
    engine = home / ".local" / "share" / "skillopt-sleep" / "engine"
    assert (
        f"would install the engine skillopt-sleep {__version__} with venv from a wheel built "
        f"from {kit.repo} into {engine}"
    ) in out
    skill = "skills/skillopt-sleep"
    assert f"would copy: {kit.codex_plugin}/{skill} -> {home}/.agents/{skill}" in out
    if shutil.which("claude"):
        market = home / ".local" / "share" / "skillopt-sleep" / "claude-marketplace"
        assert f"would run: claude plugin marketplace add {market}" in out
    assert "would run: skillopt-sleep schedule\n" in out
    # A dry run says so at the end: it never claims to be done.
    assert out.endswith("dry run: nothing was changed\n") and "done" not in out


def _claude_home(kit, home, clean_bin, tmp_path) -> tuple[dict[str, str], str]:
    """(env, the `claude` to run) for a home where Claude Code has run once and a
    stand-in pipx installs the engine. Claude Code runs in the test's own home (a copy of a home
    made earlier in the run is not the same: Claude Code backs up its `.claude.json` on the next
    write once its cached state has aged, leaving a file no uninstall should touch)."""
    kit.link(clean_bin, "claude")
    env = kit.base_env(home, clean_bin, **_fake_tools(clean_bin, tmp_path / "fake", "pipx"))
    claude = str(clean_bin / "claude")
    subprocess.run(
        [claude, "plugin", "list", "--json"],
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    return env, claude


@pytest.mark.realbin
@pytest.mark.slow
def test_claude_plugin_install_noop_upgrade_uninstall(kit, home, clean_bin, tmp_path, cli):
    """One home through the plugin's life: installed, a second install that changes nothing, a
    new plugin version upgraded in place, then uninstalled to the file tree it started from (one
    cycle: installing and uninstalling were paid twice when the upgrade had a test of its own)."""
    env, claude = _claude_home(kit, home, clean_bin, tmp_path)
    before = kit.listing(home)  # a home where Claude Code has run once
    clone = kit.copy_checkout(tmp_path / "clone")
    installer = clone / "install" / "install.sh"

    first = kit.sh(installer, "--package", SPEC, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    [plugin] = [
        p for p in kit.claude_plugins(claude, env) if p["id"] == "skillopt-sleep@skillopt-sleep"
    ]
    assert plugin["version"] == __version__ and plugin["enabled"] is True
    assert not plugin.get("errors")
    # Installed from a copy the installation owns, not from the checkout.
    known = json.loads((home / ".claude" / "plugins" / "known_marketplaces.json").read_text())
    market = home / ".local" / "share" / "skillopt-sleep" / "claude-marketplace"
    assert str(market) in json.dumps(known["skillopt-sleep"]) and str(clone) not in json.dumps(
        known
    )
    # In this process: a new one spent most of this test importing the model SDKs.
    doctor = cli("doctor", "--json", env={**env, "SKILLOPT_SLEEP_HOME": str(tmp_path / "sleep")})
    checks = {c["name"]: c for c in doctor.json()["checks"]}
    assert checks["plugin: claude-code"]["status"] == "ok"
    assert checks["plugin: claude-code"]["data"]["version"] == __version__
    installed = kit.listing(home)

    second = kit.sh(installer, "--package", SPEC, env=env)
    assert "claude code: plugin skillopt-sleep@skillopt-sleep already installed" in second.stdout
    assert kit.listing(home) == installed

    for manifest in (
        clone / "plugins" / "claude-code" / ".claude-plugin" / "plugin.json",
        clone / ".claude-plugin" / "marketplace.json",
    ):
        manifest.write_text(
            manifest.read_text().replace(f'"version": "{__version__}"', '"version": "9.9.9"')
        )
    again = kit.sh(installer, "--package", SPEC, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "+ claude plugin update skillopt-sleep@skillopt-sleep" in again.stdout
    [plugin] = kit.claude_plugins(claude, env)
    assert plugin["version"] == "9.9.9" and not plugin.get("errors")

    gone = kit.sh(installer, "--uninstall", env=env)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.listing(home) == before
    assert kit.claude_plugins(claude, env) == []


@pytest.mark.parametrize(
    ("tools", "chosen", "install_call", "uninstall_call"),
    [
        (("pipx", "uv"), "pipx", "pipx install --force", "pipx uninstall skillopt-sleep"),
        (("uv",), "uv", "uv tool install --force", "uv tool uninstall skillopt-sleep"),
    ],
)
def test_prefers_pipx_then_uv(
    kit, home, clean_bin, tmp_path, tools, chosen, install_call, uninstall_call
):
    env = kit.base_env(home, clean_bin, **_fake_tools(clean_bin, tmp_path / "fake", *tools))
    before = kit.listing(home)
    first = kit.sh(kit.install_sh, "--no-codex", "--no-claude", "--package", SPEC, env=env)
    assert first.returncode == 0, first.stderr
    installs = [c for c in _calls(env) if " install " in f" {c} "]
    assert installs == [f"{install_call} {SPEC}"]
    assert f"package\t{chosen}\t" in _manifest(home).read_text()

    second = kit.sh(kit.install_sh, "--no-codex", "--no-claude", "--package", SPEC, env=env)
    assert f"already installed with {chosen}" in second.stdout
    assert len([c for c in _calls(env) if " install " in f" {c} "]) == 1

    kit.sh(kit.install_sh, "--uninstall", env=env)
    assert [c for c in _calls(env) if "uninstall" in c] == [uninstall_call]
    assert kit.listing(home) == before


def test_an_engine_the_user_installed_is_left_alone(kit, home, clean_bin, tmp_path):
    fake = _fake_tools(clean_bin, tmp_path / "fake", "pipx")
    (tmp_path / "fake" / "pipx.installed").touch()  # installed before, by the user
    env = kit.base_env(home, clean_bin, **fake)
    r = kit.sh(kit.install_sh, "--no-codex", "--no-claude", env=env)
    assert "already installed with pipx (not by this script); leaving it" in r.stdout
    kit.sh(kit.install_sh, "--uninstall", env=env)
    assert not [c for c in _calls(env) if c.startswith(("pipx install", "pipx uninstall"))]
    assert (tmp_path / "fake" / "pipx.installed").exists()


def test_a_changed_skill_is_not_deleted_and_a_foreign_one_not_touched(
    kit, home, clean_bin, tmp_path
):
    env = kit.base_env(home, clean_bin, **_fake_tools(clean_bin, tmp_path / "fake", "pipx"))
    r = kit.sh(kit.install_sh, "--codex", "--no-claude", "--package", SPEC, env=env)
    assert r.returncode == 0, r.stderr
    skill = home / ".agents" / "skills" / "skillopt-sleep" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nMy own note.\n")
    gone = kit.sh(kit.install_sh, "--uninstall", env=env)
    assert "changed since it was installed; leaving it" in gone.stdout
    assert skill.read_text().endswith("My own note.\n")

    again = kit.sh(kit.install_sh, "--codex", "--no-claude", "--package", SPEC, env=env)
    assert "was not installed by this script; leaving it" in again.stdout
    assert skill.read_text().endswith("My own note.\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--bogus"],
            "install.sh: error: unrecognized arguments: --bogus (see `install.sh --help`)\n",
        ),
        (
            ["--with", "conda"],
            (
                "install.sh: error: argument --with: invalid choice: 'conda' (choose "
                "from 'pipx', 'uv', 'venv', 'pip') (see `install.sh --help`)\n"
            ),
        ),
    ],
)
def test_bad_options_are_one_line_usage_errors(kit, home, clean_bin, args, message):
    r = kit.sh(kit.install_sh, *args, env=kit.base_env(home, clean_bin))
    assert (r.returncode, r.stderr) == (2, message)
    assert kit.listing(home) == []


def test_uninstall_without_an_install_is_a_clear_no_op(kit, home, clean_bin):
    r = kit.sh(kit.install_sh, "--uninstall", env=kit.base_env(home, clean_bin))
    assert r.returncode == 0
    assert r.stdout == f"nothing to uninstall: no manifest at {_manifest(home)}\n"


def test_help_shows_the_options(kit, home, clean_bin):
    r = kit.sh(kit.install_sh, "--help", env=kit.base_env(home, clean_bin))
    assert r.returncode == 0
    assert r.stdout.startswith("Install skillopt-sleep from this checkout")
    assert r.stdout.rstrip().endswith("[--package SPEC]")
    assert "[--agents copilot,opencode,gemini,qwen,pi|none]" in r.stdout
    assert kit.listing(home) == []


@pytest.mark.realbin
@pytest.mark.slow
def test_a_home_where_claude_never_ran_is_left_exactly_as_it_was(kit, home, clean_bin, tmp_path):
    """The installer's own `claude plugin` calls create ~/.claude.json, a backup of it and the
    plugin registry: on a home where Claude Code never ran, uninstall takes them all away."""
    kit.link(clean_bin, "claude")
    env = kit.base_env(home, clean_bin, **_fake_tools(clean_bin, tmp_path / "fake", "pipx"))
    # Telemetry on, as a user has it: the calls may write more of Claude Code's own files.
    env.pop("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")
    before = kit.listing(home)
    first = kit.sh(kit.install_sh, "--claude", "--no-codex", "--package", SPEC, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert (home / ".claude.json").exists()
    gone = kit.sh(kit.install_sh, "--uninstall", env=env)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.listing(home) == before


@pytest.mark.realbin
@pytest.mark.slow
def test_claude_code_used_since_the_install_keeps_its_files(kit, home, clean_bin, tmp_path):
    kit.link(clean_bin, "claude")
    env = kit.base_env(home, clean_bin, **_fake_tools(clean_bin, tmp_path / "fake", "pipx"))
    assert (
        kit.sh(kit.install_sh, "--claude", "--no-codex", "--package", SPEC, env=env).returncode == 0
    )
    history = home / ".claude" / "history.jsonl"  # the user's own Claude Code session since
    history.write_text('{"display": "fix the build"}\n')
    gone = kit.sh(kit.install_sh, "--uninstall", env=env)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert history.read_text() == '{"display": "fix the build"}\n'
    assert (home / ".claude.json").exists()
    assert not (home / ".claude" / "plugins" / "cache" / "skillopt-sleep").exists()


ENGINE_PIPX = r"""#!/bin/sh
case "$1" in
  install) mkdir -p "$HOME/.local/bin"
           printf '#!/bin/sh\nPYTHONPATH="{repo}" PYTHONDONTWRITEBYTECODE=1 exec "{python}" -m skillopt_sleep "$@"\n' \
               > "$HOME/.local/bin/skillopt-sleep"
           chmod +x "$HOME/.local/bin/skillopt-sleep" ;;
  uninstall) rm -f "$HOME/.local/bin/skillopt-sleep" ;;
esac
exit 0
"""


def test_schedule_without_a_backend_is_skipped_and_leaves_nothing(kit, home, clean_bin):
    """The real engine's `schedule` refuses (no backend here): the install succeeds, says why the
    schedule was skipped, and the directories that refusal created are gone again."""
    pipx = clean_bin / "pipx"
    pipx.write_text(
        ENGINE_PIPX.replace("{repo}", str(kit.repo)).replace("{python}", sys.executable)
    )
    pipx.chmod(0o755)
    env = kit.base_env(home, clean_bin)
    before = kit.listing(home)
    r = kit.sh(
        kit.install_sh, "--schedule", "--no-claude", "--no-codex", "--package", SPEC, env=env
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "schedule: skipped: skillopt-sleep: error: no model backend is configured" in r.stdout
    assert "  the rest is installed; run 'skillopt-sleep schedule' once that is fixed\n" in r.stdout
    assert not (home / ".config").exists()
    assert not (home / ".local" / "state" / "skillopt-sleep" / "log").exists()
    gone = kit.sh(kit.install_sh, "--uninstall", env=env)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.listing(home) == before
