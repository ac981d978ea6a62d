"""The real ``codex`` and ``claude`` binaries: a night that cannot log in fails in seconds, and a
night ended by SIGTERM or SIGINT mid-replay leaves no process, no temporary directory and no
copy of a credential behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.agents import claude_env, codex_home, which_claude, which_codex
from tests.signalled import end_with, interruptible

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

SECRET = "sk-test-CREDENTIAL-SENTINEL-4711"


def project_with_tasks(root: Path, home: Path) -> Path:
    project = root / "project"
    write_sample_project(project)
    store = Store.open(resolve_paths(str(home)).ensure().db)
    store.upsert_tasks(sample_tasks(project), datetime(2026, 11, 20, tzinfo=timezone.utc))
    return project


def needs(which, name: str) -> None:
    if which() is None:
        pytest.skip(f"{name} is not installed (see REAL-CLIS: npm i -g ...)")


def test_a_night_with_codex_not_logged_in_fails_in_seconds_with_the_fix(cli, tmp_path):
    needs(which_codex, "codex")
    user = tmp_path / "user"
    (user / ".codex").mkdir(parents=True)  # installed, never logged in
    project = project_with_tasks(tmp_path, Path(os.environ["SKILLOPT_SLEEP_HOME"]))
    env = {"HOME": str(user), "CODEX_HOME": str(user / ".codex")}
    started = time.monotonic()
    r = cli("run", "--backend", "codex", "--project", str(project), env=env)
    took = time.monotonic() - started
    assert r.code == 6 and took < 20, (r.code, took)
    assert r.err == (
        "skillopt-sleep: error: codex is not logged in (run `codex login` (or set the key the "
        "configured provider needs))\n"
    )
    assert not list(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).nights_dir.glob("*"))


def test_a_night_with_claude_not_logged_in_fails_in_seconds_with_the_fix(cli, tmp_path):
    needs(which_claude, "claude")
    with ModelServer() as srv:  # a reachable server: only the missing login can stop the night
        env = claude_env(tmp_path / "user", srv.url)
        del env["ANTHROPIC_API_KEY"]
        project = project_with_tasks(tmp_path, Path(os.environ["SKILLOPT_SLEEP_HOME"]))
        started = time.monotonic()
        r = cli("run", "--backend", "claude-code", "--project", str(project), env=env)
        took = time.monotonic() - started
        assert srv.model_requests() == []
    assert r.code == 6 and took < 30, (r.code, took)
    assert r.err == (
        "skillopt-sleep: error: claude is not logged in (run `claude` once and log in, or set "
        "ANTHROPIC_API_KEY)\n"
    )


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes that mention ``text`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            env = (entry / "environ").read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if text in cmd or text in env:
            found.append(f"{entry.name}: {cmd[:200]}")
    return found


def files_holding(root: Path, secret: str) -> list[Path]:
    out = []
    for path in root.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink() and secret.encode() in path.read_bytes():
                out.append(path)
        except OSError:
            continue
    return out


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_night_ended_by_a_signal_mid_replay_leaves_nothing_behind(tmp_path, subprocess_env, sig):
    needs(which_codex, "codex")
    home = tmp_path / "home"
    project = project_with_tasks(tmp_path, home)
    tmp = tmp_path / "tmp"  # the night's temporary directories land here, to be counted
    tmp.mkdir()
    with ModelServer([Text("never sent")], delay=120) as srv:  # a replay that hangs until killed
        env = codex_home(tmp_path / "user", srv.url, base=subprocess_env)
        (tmp_path / "user" / ".codex" / "auth.json").write_text(
            json.dumps({"auth_mode": "apikey", "OPENAI_API_KEY": SECRET})
        )
        os.chmod(tmp_path / "user" / ".codex" / "auth.json", 0o600)
        env.update(SKILLOPT_SLEEP_HOME=str(home), TMPDIR=str(tmp), PATH=subprocess_env["PATH"])
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "skillopt_sleep",
                "run",
                "--backend",
                "codex",
                "--project",
                str(project),
                "-q",
            ],
            **interruptible(env),
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 90
            while not srv.model_requests() and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.2)
            assert srv.model_requests(), "no replay reached the server"
            assert processes_mentioning(str(tmp)), "no codex child was running"
            during = sorted(p.name for p in tmp.iterdir())
            assert any(n.startswith("skillopt-codex-") for n in during)
            _, err = end_with(proc, sig, timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 128 + sig, err
    assert err.strip().splitlines()[-1] == (
        "skillopt-sleep: error: interrupted"
        if sig == signal.SIGINT
        else "skillopt-sleep: error: terminated by SIGTERM; nothing was left running"
    )
    time.sleep(0.5)
    assert processes_mentioning(str(tmp)) == []  # no codex exec, nor any child of it
    assert sorted(tmp.iterdir()) == []  # no private home, no replay directory
    assert files_holding(tmp, SECRET) == [] and files_holding(home, SECRET) == []
    nights = resolve_paths(str(home)).nights_dir
    assert not list(nights.rglob("reflection.json")) and not list(nights.glob("*"))


def test_codex_reads_the_users_login_through_a_link_and_no_copy_is_made(tmp_path):
    """With the built-in OpenAI provider codex must read ``auth.json``: it reaches it through the
    private home's link (the key arrives at the server), and the home is gone once closed."""
    import asyncio

    from skillopt_sleep.backends.base import Message, Request
    from skillopt_sleep.backends.codex_cli import CodexBackend
    from skillopt_sleep.errors import BackendError
    from skillopt_sleep.settings import RoleSettings

    needs(which_codex, "codex")
    user = tmp_path / "user" / ".codex"
    user.mkdir(parents=True)
    (user / "auth.json").write_text(json.dumps({"auth_mode": "apikey", "OPENAI_API_KEY": SECRET}))
    with ModelServer([Text("hi")]) as srv:
        (user / "config.toml").write_text(f'model = "gpt-5.5"\nopenai_base_url = "{srv.v1}"\n')
        env = {"PATH": os.environ["PATH"], "HOME": str(user.parent), "CODEX_HOME": str(user)}
        backend = CodexBackend.from_settings(RoleSettings(backend="codex"), env)
        private = backend.home.path
        assert (private / "auth.json").is_symlink() and files_holding(private, SECRET) == []
        try:  # the built-in provider's transport is not one the loopback server speaks: only the key matters
            asyncio.run(
                backend.complete(Request("target", "sys", (Message("user", "hi"),), max_tokens=20))
            )
        except BackendError:
            pass
        backend.close()
        keys = {r.headers.get("authorization") for r in srv.requests}
    assert f"Bearer {SECRET}" in keys
    assert not private.exists()
