"""A command that must write and may not (an agent's read-only sandbox, a lock it cannot open)
says so in one line naming the sandbox, never as an internal error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store
from skillopt_sleep.testing.agents import which_codex

REPO = Path(__file__).resolve().parent.parent
CODEX = {"CODEX_THREAD_ID": "th_1"}
CLAUDE = {"CLAUDECODE": "1"}


def _hint(agent: str, where: Path) -> str:
    return f"({agent} runs commands in a sandbox that may not write to {where}; approve running this command"


def test_harvest_that_cannot_take_its_lock_names_the_sandbox(cli, sandbox_home):
    paths = resolve_paths(str(sandbox_home / "sleep-home")).ensure()
    (
        paths.state_dir / "harvest.lock"
    ).mkdir()  # opening it for writing fails, as on a read-only disk
    r = cli("harvest", env=CODEX)
    assert r.code == 5, r.err
    error = r.err.splitlines()[-1]  # after "first harvest: looking back 7 days"
    assert error.startswith(
        f"skillopt-sleep: error: cannot open the lock file {paths.state_dir / 'harvest.lock'}: "
    )
    assert _hint("Codex", paths.state_dir) in error and "internal error" not in r.err


def test_run_that_cannot_take_the_night_lock_names_the_sandbox(cli, sandbox_home, tmp_path):
    paths = resolve_paths(str(sandbox_home / "sleep-home")).ensure()
    paths.lock_file.mkdir()
    assert cli("tasks", "add", "--intent", "Say hi").code == 0
    r = cli("run", "--backend", "simulated", env=CLAUDE)
    assert r.code == 5, r.err
    assert _hint("Claude Code", paths.lock_file.parent) in r.err
    assert "check the directory's permissions" not in r.err


def test_adopt_that_cannot_take_its_lock_names_the_sandbox(cli, tmp_path):
    demo = tmp_path / "demo"
    assert cli("demo", "--dir", str(demo), "--quiet").code == 0
    paths = resolve_paths(str(demo / "home"))
    (paths.backups_dir / "adopt.lock").mkdir(parents=True)
    r = cli("adopt", cwd=demo / "project", env={"SKILLOPT_SLEEP_HOME": str(demo / "home"), **CODEX})
    assert r.code == 5, r.err
    assert _hint("Codex", paths.backups_dir) in r.err


def test_a_refused_write_of_a_live_file_names_the_sandbox():
    from skillopt_sleep.paths import in_sandbox
    from skillopt_sleep.store.files import write_error

    exc = write_error(PermissionError(13, "Permission denied"), Path("/p/CLAUDE.md"))
    line = in_sandbox(exc, CODEX).one_line()
    assert line.startswith(
        "cannot write /p/CLAUDE.md: Permission denied (Codex runs commands in a sandbox"
    )


@pytest.fixture
def codex_sandbox() -> Iterator[tuple[str, Path]]:
    """The real ``codex sandbox`` (read-only by default) and a home it can run in: Codex will not
    put its helpers under /tmp, so the home is made under /var/tmp and removed after."""
    codex = which_codex()
    if codex is None:
        pytest.skip("codex is not installed (npm i -g @openai/codex)")
    home = Path(tempfile.mkdtemp(prefix="skillopt-sleep-sandbox-", dir="/var/tmp"))
    try:
        probe = subprocess.run(
            [codex, "sandbox", "--", "true"],
            env={**os.environ, "HOME": str(home)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if probe.returncode != 0:
            pytest.skip(f"codex's sandbox does not run here: {probe.stderr.strip()[-200:]}")
        yield codex, home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.realbin
@pytest.mark.parametrize("argv", [["harvest"], ["run", "--backend", "simulated"]])
def test_inside_codexs_read_only_sandbox_a_writing_command_names_it(codex_sandbox, argv):
    codex, home = codex_sandbox
    sleep_home, project = home / "sleep-home", home / "project"
    project.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "SKILLOPT_SLEEP_HOME": str(sleep_home),
        "PYTHONPATH": str(REPO),
    }
    env.pop("CODEX_HOME", None)
    subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "tasks", "add", "--intent", "Say hi"],
        env=env,
        cwd=project,
        check=True,
        capture_output=True,
        timeout=60,
    )
    writer = Store.open(resolve_paths(str(sleep_home)).db)  # an open writer: its WAL files exist
    try:
        r = subprocess.run(
            [codex, "sandbox", "--", sys.executable, "-m", "skillopt_sleep", *argv],
            env=env,
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        writer.close()
    err = [line for line in r.stderr.splitlines() if line.startswith("skillopt-sleep: error: ")]
    assert r.returncode == 5, r.stderr
    assert len(err) == 1 and "Codex runs commands in a sandbox that may not write to " in err[0], (
        r.stderr
    )
