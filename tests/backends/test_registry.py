"""Auto-detection order, and loud failure when nothing is usable."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.backends.registry import (
    AUTO_ORDER,
    create_backend,
    detect_backend,
    resolve_name,
)
from skillopt_sleep.errors import BackendUnavailable, ConfigError
from skillopt_sleep.settings import RoleSettings


def fake_cli(bin_dir: Path, name: str, *, logged_in: bool) -> None:
    """A stand-in ``claude``/``codex`` that only answers the login-status question."""
    bin_dir.mkdir(exist_ok=True)
    if name == "claude":
        body = (
            '{"loggedIn": true, "authMethod": "claude.ai"}' if logged_in else '{"loggedIn": false}'
        )
        script = f"#!/bin/sh\necho '{body}'\nexit {0 if logged_in else 1}\n"
    else:
        script = f"#!/bin/sh\necho '{'Logged in' if logged_in else 'Not logged in'}'\nexit {0 if logged_in else 1}\n"
    exe = bin_dir / name
    exe.write_text(script)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)


def ran_here(home: Path, *dirs: str) -> str:
    """A HOME where each agent has run before: its own directory (``.claude``, ``.codex``)
    exists, as it does wherever it is logged in; an agent without one is not asked."""
    for d in dirs:
        (home / d).mkdir(parents=True, exist_ok=True)
    return str(home)


def test_the_documented_order():
    assert AUTO_ORDER == ("anthropic", "openai", "claude-code", "codex")


def test_keys_come_first_anthropic_before_openai(tmp_path):
    fake_cli(tmp_path / "bin", "claude", logged_in=True)
    path, home = str(tmp_path / "bin"), ran_here(tmp_path / "h", ".claude")
    assert (
        detect_backend({"PATH": path, "ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"})
        == "anthropic"
    )
    assert detect_backend({"PATH": path, "OPENAI_API_KEY": "o"}) == "openai"
    assert (
        detect_backend({"PATH": path, "HOME": home, "ANTHROPIC_API_KEY": "  "}) == "claude-code"
    )  # blank is unset


def test_looking_for_a_backend_imports_no_sdk_it_does_not_choose(tmp_path):
    """Which backend a command would use is asked by many a command that never calls a model:
    the SDKs (seconds to import on a cold start) are imported only for the backend chosen."""
    fake_cli(tmp_path / "bin", "claude", logged_in=True)
    probe = (
        "import sys; from skillopt_sleep.backends.registry import detect_backend; "
        "import json; env = json.loads(sys.argv[1]); name = detect_backend(env); "
        "print(name, sorted(m for m in ('anthropic', 'openai') if m in sys.modules))"
    )

    def chosen(**env: str) -> str:
        env = {"PATH": str(tmp_path / "bin"), "HOME": ran_here(tmp_path / "h", ".claude"), **env}
        run = subprocess.run(
            [sys.executable, "-c", probe, json.dumps(env)], capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        return run.stdout.strip()

    assert chosen() == "claude-code []"
    assert chosen(OPENAI_API_KEY="o") == "openai []"  # chosen by its key; built later


def test_a_logged_in_cli_is_found_and_a_logged_out_one_skipped(tmp_path):
    bin_dir = tmp_path / "bin"
    fake_cli(bin_dir, "claude", logged_in=False)
    fake_cli(bin_dir, "codex", logged_in=True)
    home = ran_here(tmp_path / "h", ".claude", ".codex")
    assert detect_backend({"PATH": str(bin_dir), "HOME": home}) == "codex"


def test_nothing_usable_stops_with_the_ways_to_configure_one(tmp_path):
    bin_dir = tmp_path / "bin"
    fake_cli(bin_dir, "claude", logged_in=False)
    with pytest.raises(BackendUnavailable) as info:
        detect_backend({"PATH": str(bin_dir), "HOME": str(tmp_path)})
    line = info.value.one_line()
    assert line.startswith(
        "no model backend is configured or usable (set ANTHROPIC_API_KEY or OPENAI_API_KEY"
    )
    assert "log in to `claude` or `codex`" in line and "--backend simulated" in line


def test_a_named_backend_is_used_as_named_and_a_bare_base_url_means_openai(tmp_path):
    env = {"PATH": str(tmp_path)}
    assert resolve_name(RoleSettings(backend="codex"), env) == "codex"
    assert resolve_name(RoleSettings(base_url="http://127.0.0.1:11434/v1"), env) == "openai"
    backend = create_backend(
        RoleSettings(base_url="http://127.0.0.1:11434/v1", model="llama3.1"), env
    )
    assert (backend.name, backend.model) == ("openai", "llama3.1")


def test_an_unknown_name_lists_the_choices():
    with pytest.raises(ConfigError) as info:
        create_backend(RoleSettings(backend="antropic"), {})
    assert "did you mean anthropic?" in info.value.one_line()
    assert "claude-code, codex" in info.value.one_line()
