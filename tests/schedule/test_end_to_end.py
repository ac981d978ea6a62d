"""Scheduled nights through the real `run` and the simulated backend."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.store import Store


@pytest.fixture
def sample_project(tmp_path: Path, paths) -> Path:
    """The bundled sample project, its tasks logged in the test's store."""
    project = tmp_path / "beta app"
    project.mkdir()
    write_sample_project(project)
    store = Store.open(paths.db)
    store.upsert_tasks(sample_tasks(project), datetime(2026, 5, 1, tzinfo=timezone.utc))
    store.close()
    return project


def test_schedule_run_once_runs_a_real_night(cli, sample_project):
    r = cli("schedule", "run", "--once", "--project", str(sample_project), "--backend", "simulated")
    assert r.code == 0, r.out + r.err
    assert r.out.splitlines()[:2] == ["once run: ok", f"  {sample_project}: ok, accept"]
    last = cli("schedule", "status", "--json").json()["last_run"]
    assert last["status"] == "ok" and last["projects"][0]["decision"] == "accept"
    nights = cli("status", "--project", str(sample_project), "--json").json()["nights"]
    assert [n["night_id"] for n in nights] == [last["projects"][0]["night_id"]]
    log = Path(last["log_file"]).read_text()
    assert "backends answered their auth check" in log
    # the night's line in the log tells how its edits fared, edit by edit
    assert re.search(
        r"night \S+: accept, edits [1-9]\d* accepted, \d+ refused, \d+ inconclusive", log
    ), log


def test_a_project_without_tasks_is_a_quiet_ok(cli, project):
    r = cli("schedule", "run", "--once", "--project", str(project), "--backend", "simulated")
    assert r.code == 0, r.out + r.err
    assert r.out.splitlines()[1] == f"  {project}: ok (no tasks)"
    assert (
        cli("schedule", "status", "--json").json()["last_run"]["projects"][0]["message"]
        == "no tasks"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="cron runs sh")
def test_the_crontab_line_runs_a_real_night_under_crons_bare_environment(
    cli, fake_cron, sample_project, sandbox_home
):
    r = cli(
        "schedule",
        "--method",
        "crontab",
        "--project",
        str(sample_project),
        "--backend",
        "simulated",
        env=fake_cron.env,
    )
    assert r.code == 0, r.err
    line = next(x for x in fake_cron.read().splitlines() if "run-job" in x)
    command = line.split(" ", 5)[5].replace("\\%", "%")
    bare = {
        "HOME": str(sandbox_home),
        "PATH": "/usr/bin:/bin",
        "SHELL": "/bin/sh",
        "LOGNAME": "tester",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    shutil.rmtree(sandbox_home / "sleep-home" / "logs")  # cleaned up since: the job still starts
    done = subprocess.run(
        ["/bin/sh", "-c", command], env=bare, cwd=str(sandbox_home), timeout=180, check=False
    )
    output = (sandbox_home / "sleep-home" / "logs" / "job-output.log").read_text()
    assert done.returncode == 0, output
    assert output.startswith("scheduled run: ok\n")
    last = cli("schedule", "status", "--json").json()["last_run"]
    assert last["trigger"] == "scheduled" and last["projects"][0]["decision"] == "accept"


def test_status_shows_a_failed_scheduled_night_until_it_is_seen(cli, project):
    assert cli("schedule", "run-job", "--project", str(project), "--backend", "antropic").code == 6
    first = cli("status", "--project", str(project))
    (line,) = [x for x in first.out.splitlines() if x.startswith("! ")]
    assert (
        f"schedule: scheduled night for {project} did not start: target backend: unknown backend"
        in line
    )
    assert not [
        x for x in cli("status", "--project", str(project)).out.splitlines() if x.startswith("! ")
    ]


def test_a_rejected_key_on_a_real_sdk_backend_spends_nothing(cli, sample_project):
    pytest.importorskip(
        "skillopt_sleep.backends.anthropic_api", reason="the anthropic backend is not built yet"
    )
    from skillopt_sleep.testing import Error, ModelServer

    with ModelServer(responder=lambda call: Error(401)) as srv:
        r = cli(
            "schedule",
            "run-job",
            "--project",
            str(sample_project),
            "--backend",
            "anthropic",
            "--model",
            "claude-test",
            "--base-url",
            srv.url,
            env={"ANTHROPIC_API_KEY": "sk-ant-api03-" + "k" * 30},
        )
        calls = srv.model_requests()
    assert r.code == 6, r.out + r.err
    assert len(calls) <= 1 and all(c.status == 401 for c in calls)  # the probe, nothing else
    (notice,) = cli("schedule", "status", "--json").json()["notices"]
    assert notice["message"].startswith(
        f"scheduled night for {sample_project} did not start: target backend"
    )
    assert cli("status", "--project", str(sample_project), "--json").json()["nights"] == []
