"""`install.sh --uninstall` removes the nightly job that runs the engine it removes, though the
installation did not schedule it (the user ran `skillopt-sleep schedule` later): through the
engine's own `unschedule`, before the engine goes, and says so in one line; a job that runs
another engine is left alone. A fake `crontab` on PATH, never the real one."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

from skillopt_sleep.setup.layout import layout_for
from skillopt_sleep.setup.main import main as setup_main

LINE = "schedule: removed the nightly job (crontab) that ran the engine removed here"


def _installed_engine(env: dict[str, str]) -> Path:
    """The engine as the installer's private environment holds it (its command and its Python,
    here this test run's interpreter behind two small scripts), and the manifest that says so."""
    lay = layout_for(env)
    bin_dir = lay.engine_venv / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    command = bin_dir / "skillopt-sleep"
    command.write_text('#!/bin/sh\nexec "$(dirname "$0")/python" -m skillopt_sleep "$@"\n')
    for exe in (python, command):
        exe.chmod(0o755)
    lay.engine_record.parent.mkdir(parents=True, exist_ok=True)
    lay.engine_record.write_text(f"{command}\n")
    lay.manifest.parent.mkdir(parents=True, exist_ok=True)
    lay.manifest.write_text(
        f"package\tvenv\t{sys.executable}\nfile\t{lay.engine_record}\t\n", encoding="utf-8"
    )
    return command


def _schedule(cli, project: Path, env: dict[str, str]) -> None:
    r = cli(
        "schedule", "--method", "crontab", "--project", str(project), "--backend", "simulated",
        env=env,
    )  # fmt: skip
    assert r.code == 0, r.err


def _uninstall(env: dict[str, str]) -> tuple[int, str]:
    out = io.StringIO()
    code = setup_main(["--uninstall"], env=env, out=out)
    return code, out.getvalue()


def test_uninstall_removes_the_job_that_runs_the_engine_it_removes(
    cli, fake_cron, project, sandbox_home
):
    env = {**os.environ, **fake_cron.env}
    engine = _installed_engine(env)
    _schedule(
        cli, project, {**fake_cron.env, "SKILLOPT_SLEEP_PYTHON": str(engine.parent / "python")}
    )
    assert f"{engine.parent / 'python'} -m skillopt_sleep schedule run-job" in fake_cron.read()
    code, out = _uninstall(env)
    assert code == 0, out
    assert LINE in out.splitlines()
    assert out.index(f"+ {engine} unschedule") < out.index(f"+ rm -r {engine.parent.parent}")
    assert "run-job" not in (fake_cron.read() or "")
    assert not engine.exists()


def test_a_job_that_runs_another_engine_is_left_alone(cli, fake_cron, project, sandbox_home):
    env = {**os.environ, **fake_cron.env}
    engine = _installed_engine(env)
    _schedule(cli, project, fake_cron.env)  # this test run's interpreter, not the engine's
    code, out = _uninstall(env)
    assert code == 0, out
    assert "unschedule" not in out and "nightly job" not in out
    assert f"{sys.executable} -m skillopt_sleep schedule run-job" in fake_cron.read()
    assert not engine.exists()
