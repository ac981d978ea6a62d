"""What a user sees from `schedule`, `schedule status`, `unschedule` and `doctor`."""

from __future__ import annotations

import os
from datetime import datetime, timezone

from skillopt_sleep.schedule.state import LAST_RUN_KEY, LastRun, ProjectResult, save


def test_an_invalid_cron_names_the_fix(cli, project):
    r = cli("schedule", "--at", "17 3 * *", "--project", str(project), "--backend", "simulated")
    assert r.code == 2
    assert r.err == (
        "skillopt-sleep: error: invalid cron expression '17 3 * *' (five fields: minute hour "
        "day-of-month month day-of-week, e.g. '17 3 * * *')\n"
    )


def test_at_and_time_exclude_each_other(cli, project):
    r = cli("schedule", "--at", "17 3 * * *", "--time", "03:17", "--project", str(project))
    assert r.code == 2 and "not allowed with argument" in r.err and r.err.count("\n") == 1


def test_a_missing_project_is_refused(cli, tmp_path):
    r = cli("schedule", "--project", str(tmp_path / "nope"), "--backend", "simulated", "--print")
    assert r.code == 2
    assert r.err == (
        f"skillopt-sleep: error: no such project directory: {tmp_path / 'nope'} "
        "(pass an existing --project DIR)\n"
    )


def test_no_usable_backend_is_an_error_not_a_silent_default(cli, fake_cron, project):
    bindir = fake_cron.env["PATH"].split(os.pathsep)[0]
    r = cli(
        "schedule",
        "--method",
        "crontab",
        "--project",
        str(project),
        env={**fake_cron.env, "PATH": bindir},
    )
    assert r.code == 6 and "no model backend is configured or usable" in r.err
    assert fake_cron.read() is None


def test_the_cron_and_projects_come_from_the_config_file(cli, fake_cron, project, sandbox_home):
    cfg = sandbox_home / "sleep-home" / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'[schedule]\ncron = "43 2 * * 1-5"\nprojects = ["{project}"]\n')
    r = cli(
        "schedule",
        "--method",
        "crontab",
        "--backend",
        "simulated",
        "--print",
        "--json",
        env=fake_cron.env,
    )
    payload = r.json()
    assert payload["cron"] == "43 2 * * 1-5" and payload["projects"] == [str(project)]
    assert payload["description"].startswith("cron '43 2 * * 1-5' (")


def test_nothing_scheduled(cli):
    r = cli("schedule", "status")
    assert r.out == (
        "no night is scheduled: run `skillopt-sleep schedule` (or `skillopt-sleep schedule run` "
        "for the built-in loop)\nlast run: none yet\n"
    )
    assert cli("unschedule").out == "nothing was scheduled\n"
    assert cli("unschedule", "--json").json() == {"removed": [], "loop_pid": None}


def test_the_loop_refuses_to_double_an_installed_schedule(cli, fake_cron, project):
    assert (
        cli(
            "schedule",
            "--method",
            "crontab",
            "--project",
            str(project),
            "--backend",
            "simulated",
            env=fake_cron.env,
        ).code
        == 0
    )
    r = cli("schedule", "run", "--project", str(project), env=fake_cron.env)
    assert r.code == 2 and "a night is already scheduled with crontab" in r.err


def test_doctor_reports_the_schedule_and_the_last_night(cli, fake_cron, project, store):
    r = cli("doctor", "--json", env=fake_cron.env)
    checks = {c["name"]: c for c in r.json()["checks"]}
    assert (
        checks["schedule"]["status"] == "warn"
        and checks["schedule"]["detail"] == "no night is scheduled"
    )
    assert (
        cli(
            "schedule",
            "--method",
            "crontab",
            "--project",
            str(project),
            "--backend",
            "simulated",
            env=fake_cron.env,
        ).code
        == 0
    )
    save(
        store,
        LAST_RUN_KEY,
        LastRun(
            started_at=datetime(2026, 5, 2, 3, 17, tzinfo=timezone.utc),
            trigger="scheduled",
            status="failed",
            message="target backend: key rejected",
            log_file="/logs/night-1.log",
            projects=[ProjectResult(project=str(project), status="failed", message="key rejected")],
        ),
    )
    r = cli("doctor", env=fake_cron.env)
    lines = r.out.splitlines()
    sched = next(line for line in lines if "schedule:" in line)
    assert (
        sched.startswith("ok    schedule: crontab, every day at 03:17 (") and "; next run " in sched
    )
    last = next(i for i, line in enumerate(lines) if "last night:" in line)
    assert (
        lines[last]
        == "FAIL  last night: 2026-05-02T03:17+00:00 (scheduled): failed, target backend: key rejected"
    )
    assert (
        lines[last + 1]
        == "      fix: see `skillopt-sleep schedule status` and the log /logs/night-1.log"
    )
    assert r.code == 1
