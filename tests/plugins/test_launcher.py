"""The launcher the plugins call: it finds the engine however it was installed, or says the one
command that installs it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep import __version__

TOOLS = ("dirname", "grep")  # what the launcher needs besides the shell's builtins


def _tools_only(tmp_path: Path, *extra: tuple[str, str]) -> Path:
    """A bin dir with just the tools the launcher uses, plus ``(name, script)`` executables."""
    bin_dir = tmp_path / "tools"
    bin_dir.mkdir(exist_ok=True)
    for tool in TOOLS:
        if not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(shutil.which(tool))
    for name, body in extra:
        _script(bin_dir / name, body)
    return bin_dir


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def _detached_launcher(kit, where: Path) -> Path:
    """A copy of the launcher outside any checkout, as in an installed plugin's cache."""
    where.mkdir(parents=True, exist_ok=True)
    copy = where / "skillopt-sleep"
    shutil.copy2(kit.launcher, copy)
    return copy


def _run(launcher: Path, *args: str, env: dict[str, str]):
    # A neutral cwd: `python -c` would otherwise import a checkout found in the cwd.
    return subprocess.run(
        ["/bin/sh", str(launcher), *args],
        check=False,
        env=env,
        cwd=launcher.parent,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_runs_the_checkout_it_sits_in(kit, tmp_path, clean_bin):
    checkout = tmp_path / "checkout"
    shutil.copytree(
        kit.repo / "skillopt_sleep",
        checkout / "skillopt_sleep",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy2(kit.repo / "pyproject.toml", checkout / "pyproject.toml")
    init = checkout / "skillopt_sleep" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{__version__}"', '"9.9.9"'))
    launcher = checkout / "plugins" / "claude-code" / "bin" / "skillopt-sleep"
    launcher.parent.mkdir(parents=True)
    shutil.copy2(kit.launcher, launcher)
    r = _run(launcher, "--version", env=kit.base_env(tmp_path, clean_bin))
    assert (r.returncode, r.stdout.strip()) == (0, "skillopt-sleep 9.9.9"), r.stderr


def test_runs_this_checkout_from_the_codex_skill_scripts_dir(kit, tmp_path, clean_bin):
    launcher = kit.codex_plugin / "skills" / "skillopt-sleep" / "scripts" / "skillopt-sleep"
    r = _run(launcher, "--version", env=kit.base_env(tmp_path, clean_bin))
    assert (r.returncode, r.stdout.strip()) == (0, f"skillopt-sleep {__version__}"), r.stderr


def test_env_override_names_the_python(kit, tmp_path):
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    env = kit.base_env(
        tmp_path,
        _tools_only(tmp_path),
        SKILLOPT_SLEEP_PYTHON=sys.executable,
        PYTHONPATH=str(kit.repo),
        PYTHONDONTWRITEBYTECODE="1",
    )
    r = _run(launcher, "--version", env=env)
    assert (r.returncode, r.stdout.strip()) == (0, f"skillopt-sleep {__version__}"), r.stderr


@pytest.mark.parametrize(
    "install",
    [
        "path",
        "pipx-venv",
        "pipx-home-env",
        "uv-tool",
        "pip-user",
    ],
)
def test_finds_an_installed_engine_and_passes_the_arguments(kit, tmp_path, install):
    home = tmp_path / "home"
    tools = _tools_only(tmp_path)
    env = kit.base_env(home, tools)
    where = {
        "path": tmp_path / "elsewhere" / "bin",
        "pipx-venv": home / ".local/share/pipx/venvs/skillopt-sleep/bin",
        "pipx-home-env": tmp_path / "pipx-home/venvs/skillopt-sleep/bin",
        "uv-tool": home / ".local/share/uv/tools/skillopt-sleep/bin",
        "pip-user": home / ".local/bin",
    }[install]
    if install == "path":
        env["PATH"] = f"{where}:{env['PATH']}"
    if install == "pipx-home-env":
        env["PIPX_HOME"] = str(tmp_path / "pipx-home")
    _script(where / "skillopt-sleep", 'printf "engine:%s\\n" "$@"')
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    r = _run(launcher, "adopt", "--project", "my dir", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["engine:adopt", "engine:--project", "engine:my dir"]


def test_an_importable_package_is_run_with_python(kit, tmp_path, clean_bin):
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    env = kit.base_env(tmp_path, clean_bin, PYTHONPATH=str(kit.repo), PYTHONDONTWRITEBYTECODE="1")
    r = _run(launcher, "--version", env=env)
    assert (r.returncode, r.stdout.strip()) == (0, f"skillopt-sleep {__version__}"), r.stderr


@pytest.mark.parametrize("present", [(), ("uv",), ("uv", "pipx")])
def test_not_found_names_the_installer_and_no_package_index(kit, tmp_path, present):
    """The package is not on an index: `pipx install skillopt-sleep` could never work."""
    tools = _tools_only(tmp_path, *[(name, "exit 0") for name in present])
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    r = _run(launcher, "status", env=kit.base_env(tmp_path / "home", tools))
    assert r.returncode == 127
    assert r.stdout == ""
    assert r.stderr == (
        "skillopt-sleep: error: the engine is not installed (install it with: "
        "sh install/install.sh in a skillopt-sleep checkout)\n"
    )


def test_a_checkout_without_its_dependencies_names_its_installer(kit, tmp_path):
    tools = _tools_only(tmp_path, ("python3", "exit 1"))  # a Python that lacks pydantic
    r = _run(kit.launcher, "status", env=kit.base_env(tmp_path / "home", tools))
    assert r.returncode == 127
    assert f"(install it with: sh {kit.repo.resolve()}/install/install.sh)" in r.stderr


def test_the_hook_exits_0_without_an_engine_and_status_shows_why(kit, tmp_path, clean_bin):
    tools = _tools_only(tmp_path)
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    home = tmp_path / "home"
    env = kit.base_env(home, tools, SKILLOPT_SLEEP_HOME=str(tmp_path / "sleep"))
    payload = (
        '{"session_id": "s1", "transcript_path": "/nowhere.jsonl", "cwd": "/", '
        '"hook_event_name": "SessionEnd", "reason": "other"}'
    )
    r = subprocess.run(
        ["/bin/sh", str(launcher), "log"],
        input=payload,
        check=False,
        env=env,
        cwd=launcher.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    # Once an engine runs, `status` shows the notice, once.
    env = kit.base_env(
        home,
        clean_bin,
        SKILLOPT_SLEEP_HOME=str(tmp_path / "sleep"),
        PYTHONPATH=str(kit.repo),
        PYTHONDONTWRITEBYTECODE="1",
    )
    status = _run(launcher, "status", env=env)
    line = next(ln for ln in status.stdout.splitlines() if ln.startswith("! "))
    assert "launcher: the engine is not installed, so a finished session was not logged." in line
    assert "Install it with: sh install/install.sh in a skillopt-sleep checkout" in line
    assert not [
        ln for ln in _run(launcher, "status", env=env).stdout.splitlines() if ln.startswith("! ")
    ]


def test_the_hook_exits_0_when_the_engine_fails(kit, tmp_path):
    where = tmp_path / "elsewhere" / "bin"
    _script(where / "skillopt-sleep", "exit 3")
    tools = _tools_only(tmp_path)
    env = kit.base_env(tmp_path / "home", tools, SKILLOPT_SLEEP_HOME=str(tmp_path / "sleep"))
    env["PATH"] = f"{where}:{env['PATH']}"
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    r = _run(launcher, "log", env=env)
    assert r.returncode == 0
    notices = (tmp_path / "sleep" / "state" / "launcher-notices.txt").read_text()
    assert "the session-end logger exited with status 3" in notices


def test_the_installers_private_environment_is_found_first(kit, tmp_path):
    home = tmp_path / "home"
    tools = _tools_only(tmp_path)
    engine = home / ".local" / "share" / "skillopt-sleep" / "engine" / "bin" / "python"
    _script(engine, 'printf "private:%s\n" "$@"')
    _script(home / ".local" / "bin" / "skillopt-sleep", 'echo "user-bin"')
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    r = _run(launcher, "status", env=kit.base_env(home, tools))
    assert r.stdout.splitlines() == ["private:-m", "private:skillopt_sleep", "private:status"]


def test_two_launcher_copies_on_path_do_not_call_each_other(kit, tmp_path):
    first = _detached_launcher(kit, tmp_path / "a")
    _detached_launcher(kit, tmp_path / "b")
    tools = _tools_only(tmp_path)
    env = kit.base_env(tmp_path / "home", tools)
    env["PATH"] = f"{tmp_path / 'a'}:{tmp_path / 'b'}:{env['PATH']}"
    r = _run(first, "status", env=env)
    assert r.returncode == 127
    assert "not installed" in r.stderr


def test_the_engine_setup_recorded_is_run_first(kit, tmp_path):
    """`skillopt-sleep setup` writes where it installed the engine; the launcher runs exactly
    that, before looking anywhere else."""
    home = tmp_path / "home"
    tools = _tools_only(tmp_path)
    engine = _script(
        tmp_path / "pipx-venv" / "bin" / "skillopt-sleep", 'printf "recorded:%s\n" "$@"'
    )
    _script(
        home / ".local" / "share" / "skillopt-sleep" / "engine" / "bin" / "python", "echo private"
    )
    record = home / ".local" / "share" / "skillopt-sleep" / "engine-command"
    record.write_text(f"{engine}\n")
    launcher = _detached_launcher(kit, tmp_path / "cache" / "bin")
    r = _run(launcher, "adopt", "--project", "my dir", env=kit.base_env(home, tools))
    assert r.stdout.splitlines() == ["recorded:adopt", "recorded:--project", "recorded:my dir"]
    record.write_text(f"{tmp_path / 'gone' / 'skillopt-sleep'}\n")  # removed since: fall back
    assert _run(launcher, "status", env=kit.base_env(home, tools)).stdout == "private\n"
