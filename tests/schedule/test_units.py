"""systemd units, the launchd plist and the Task Scheduler XML: what they contain, that the tools
accept them, and that install/uninstall touch exactly their own files."""

from __future__ import annotations

import plistlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.errors import ScheduleError
from skillopt_sleep.schedule.install import Request, apply, prepare, remove
from skillopt_sleep.schedule.jobspec import build_job
from skillopt_sleep.schedule.runner import RunResult
from skillopt_sleep.schedule.state import load_installation

NOW = datetime(2026, 5, 9, 10, 0, tzinfo=timezone.utc)
NS = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}


def _job(paths, project, name="skillopt-sleep", env=None):
    job, _ = build_job(
        name=name,
        projects=[project],
        flags=["--backend", "simulated"],
        env=env or {"HOME": "/home/tester"},
        paths=paths,
        secrets=[],
        which=lambda _n: None,
        python=sys.executable,
        root=Path("/src/with space"),
    )
    return job


def _prepare(host, paths, project, method, cron="17 3 * * *"):
    request = Request([project], cron, method, ["--backend", "simulated"], [])
    return prepare(
        request,
        name="skillopt-sleep",
        env={"HOME": str(host.home)},
        paths=paths,
        host=host,
        now=NOW,
        tz=timezone.utc,
        python=sys.executable,
        root=None,
    )


# -- systemd ---------------------------------------------------------------------------------


def _verify(unit_dir: Path) -> subprocess.CompletedProcess:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze not installed (Debian/Ubuntu: apt-get install systemd)")
    units = sorted(str(p) for p in unit_dir.iterdir())
    return subprocess.run(
        [tool, "verify", *units], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize("cron", ["17 3 * * *", "0 3,4 1,15 * mon-fri", "*/30 2 * 1,7 sun"])
def test_systemd_units_pass_systemd_analyze_verify(fake_host, tmp_path, paths, project, cron):
    host, _ = fake_host(tmp_path, "linux")
    plan = _prepare(host, paths, project, "systemd", cron).plan
    unit_dir = tmp_path / "units"
    unit_dir.mkdir()
    for f in plan.files:
        (unit_dir / Path(f.path).name).write_text(f.content)
    done = _verify(unit_dir)
    assert done.returncode == 0, done.stderr
    ours = [
        line for line in done.stderr.splitlines() if str(unit_dir) in line or "skillopt" in line
    ]
    assert ours == [], done.stderr


def test_systemd_timer_catches_up_and_service_runs_the_job(fake_host, tmp_path, paths, project):
    host, _ = fake_host(tmp_path, "linux")
    service, timer = (f.content for f in _prepare(host, paths, project, "systemd").plan.files)
    assert "\nOnCalendar=*-*-* 03:17:00\nPersistent=true\nUnit=skillopt-sleep.service\n" in timer
    assert "WantedBy=timers.target" in timer
    assert "\nType=oneshot\n" in service
    exec_line = next(line for line in service.splitlines() if line.startswith("ExecStart="))
    assert exec_line.startswith(
        f"ExecStart={sys.executable} -m skillopt_sleep schedule run-job --project "
    )


def test_systemd_quoting_keeps_spaces_percent_and_dollar_literal(paths, tmp_path):
    odd = tmp_path / "100% $HOME dir"
    odd.mkdir()
    from skillopt_sleep.schedule.systemd import render_service

    service = render_service(_job(paths, odd))
    assert f'"{str(odd).replace("%", "%%").replace("$", "$$")}"' in service
    assert 'Environment="PYTHONPATH=/src/with space"' in service


def test_systemd_install_and_uninstall_touch_only_their_own_units(
    fake_host, tmp_path, paths, project, store
):
    host, runner = fake_host(tmp_path, "linux")
    unit_dir = host.home / ".config" / "systemd" / "user"
    unit_dir.mkdir(parents=True)
    (unit_dir / "mine.service").write_text("[Service]\nExecStart=/bin/true\n")
    prepared = _prepare(host, paths, project, "systemd")
    apply(prepared, store=store, paths=paths, host=host, now=NOW, tz=timezone.utc)
    assert sorted(p.name for p in unit_dir.iterdir()) == [
        "mine.service",
        "skillopt-sleep.service",
        "skillopt-sleep.timer",
    ]
    assert ["systemctl", "--user", "enable", "--now", "skillopt-sleep.timer"] in runner.calls
    assert load_installation(store).method == "systemd"
    runner.calls.clear()
    removed = remove(store=store, paths=paths, host=host, name="skillopt-sleep")
    assert sorted(Path(r).name for r in removed) == [
        "skillopt-sleep.service",
        "skillopt-sleep.timer",
    ]
    assert [p.name for p in unit_dir.iterdir()] == ["mine.service"]
    assert ["systemctl", "--user", "disable", "--now", "skillopt-sleep.timer"] in runner.calls
    assert load_installation(store) is None


def test_a_same_named_unit_of_the_users_is_not_removed(fake_host, tmp_path, paths, store):
    host, _ = fake_host(tmp_path, "linux")
    unit_dir = host.home / ".config" / "systemd" / "user"
    unit_dir.mkdir(parents=True)
    (unit_dir / "skillopt-sleep.timer").write_text("[Timer]\nOnCalendar=daily\n")  # not ours
    assert remove(store=store, paths=paths, host=host, name="skillopt-sleep") == []
    assert (unit_dir / "skillopt-sleep.timer").exists()


def test_systemd_is_unavailable_without_a_user_manager(fake_host, tmp_path):
    host, _ = fake_host(
        tmp_path, "linux", {"systemctl": lambda a, i: RunResult(1, "", "Failed to connect to bus")}
    )
    from skillopt_sleep.schedule.systemd import SystemdInstaller

    assert (
        SystemdInstaller(host).unavailable() == "no systemd user manager is running for this user"
    )


def test_systemd_warns_when_nights_stop_at_logout(fake_host, tmp_path, paths, project):
    from skillopt_sleep.schedule.runner import ok

    host, _ = fake_host(
        tmp_path, "linux", {"systemctl": ok, "loginctl": lambda a, i: RunResult(0, "Linger=no\n")}
    )
    plan = _prepare(host, paths, project, "systemd").plan
    assert any("loginctl enable-linger" in w for w in plan.warnings)


# -- switching method --------------------------------------------------------------------------


def test_switching_method_removes_the_old_schedule(fake_host, tmp_path, paths, project, store):
    host, _ = fake_host(tmp_path, "linux")
    apply(
        _prepare(host, paths, project, "systemd"),
        store=store,
        paths=paths,
        host=host,
        now=NOW,
        tz=timezone.utc,
    )
    mac, _ = fake_host(tmp_path, "darwin")  # same home; a host where launchd works
    mac = type(mac)(host.runner, mac.env, mac.home, mac.state_dir, "darwin", 501)
    apply(
        _prepare(mac, paths, project, "launchd"),
        store=store,
        paths=paths,
        host=mac,
        now=NOW,
        tz=timezone.utc,
    )
    assert not (host.home / ".config" / "systemd" / "user" / "skillopt-sleep.timer").exists()
    assert (mac.home / "Library" / "LaunchAgents" / "com.skillopt-sleep.nightly.plist").exists()
    assert load_installation(store).method == "launchd"


# -- launchd -----------------------------------------------------------------------------------


def test_launchd_plist_parses_and_has_the_right_keys(fake_host, tmp_path, paths, project):
    host, _ = fake_host(tmp_path, "darwin")
    (f,) = _prepare(host, paths, project, "launchd").plan.files
    plist = plistlib.loads(f.content.encode("utf-8"))
    assert plist["Label"] == "com.skillopt-sleep.nightly"
    assert plist["ProgramArguments"][:5] == [
        sys.executable,
        "-m",
        "skillopt_sleep",
        "schedule",
        "run-job",
    ]
    assert plist["StartCalendarInterval"] == {"Minute": 17, "Hour": 3}
    assert plist["EnvironmentVariables"]["PATH"].startswith(str(Path(sys.executable).parent))
    assert plist["StandardOutPath"].endswith("job-output.log") and plist["RunAtLoad"] is False
    assert f.path == str(
        host.home / "Library" / "LaunchAgents" / "com.skillopt-sleep.nightly.plist"
    )


def test_launchd_calendar_keeps_crons_day_or_weekday_meaning(fake_host, tmp_path, paths, project):
    host, _ = fake_host(tmp_path, "darwin")
    (f,) = _prepare(host, paths, project, "launchd", "30 4 1 * 1,5").plan.files
    intervals = plistlib.loads(f.content.encode())["StartCalendarInterval"]
    assert intervals == [
        {"Minute": 30, "Hour": 4, "Day": 1},
        {"Minute": 30, "Hour": 4, "Weekday": 1},
        {"Minute": 30, "Hour": 4, "Weekday": 5},
    ]


def test_launchd_install_bootstraps_and_uninstall_boots_out(
    fake_host, tmp_path, paths, project, store
):
    host, runner = fake_host(tmp_path, "darwin")
    apply(
        _prepare(host, paths, project, "launchd"),
        store=store,
        paths=paths,
        host=host,
        now=NOW,
        tz=timezone.utc,
    )
    plist = host.home / "Library" / "LaunchAgents" / "com.skillopt-sleep.nightly.plist"
    assert runner.calls[-1] == ["launchctl", "bootstrap", "gui/501", str(plist)]
    remove(store=store, paths=paths, host=host, name="skillopt-sleep")
    assert runner.calls[-1] == ["launchctl", "bootout", "gui/501/com.skillopt-sleep.nightly"]
    assert not plist.exists()


# -- Task Scheduler ----------------------------------------------------------------------------


def _task(xml_text: str) -> ET.Element:
    assert xml_text.startswith('<?xml version="1.0" encoding="UTF-16"?>')
    return ET.fromstring(xml_text.encode("utf-16"))


def test_task_xml_is_well_formed_with_a_daily_trigger_that_catches_up(
    fake_host, tmp_path, paths, project
):
    host, _ = fake_host(tmp_path, "win32")
    (f,) = _prepare(host, paths, project, "schtasks").plan.files
    assert f.encoding == "utf-16"
    task = _task(f.content)
    (trigger,) = task.findall("t:Triggers/t:CalendarTrigger", NS)
    assert trigger.find("t:StartBoundary", NS).text == "2026-05-09T03:17:00"
    assert trigger.find("t:ScheduleByDay/t:DaysInterval", NS).text == "1"
    assert task.find("t:Settings/t:StartWhenAvailable", NS).text == "true"
    assert task.find("t:Settings/t:MultipleInstancesPolicy", NS).text == "IgnoreNew"
    assert task.find("t:Actions/t:Exec/t:Command", NS).text == sys.executable
    args = task.find("t:Actions/t:Exec/t:Arguments", NS).text
    assert (
        args.startswith("-m skillopt_sleep schedule run-job --project ") and "--env PATH=" in args
    )


def test_task_xml_weekly_and_monthly_triggers(fake_host, tmp_path, paths, project):
    host, _ = fake_host(tmp_path, "win32")
    (f,) = _prepare(host, paths, project, "schtasks", "5 1 15 * sat").plan.files
    triggers = _task(f.content).findall("t:Triggers/t:CalendarTrigger", NS)
    assert len(triggers) == 2
    assert [d.text for d in triggers[0].findall("t:ScheduleByMonth/t:DaysOfMonth/t:Day", NS)] == [
        "15"
    ]
    assert len(triggers[0].findall("t:ScheduleByMonth/t:Months/*", NS)) == 12
    assert [d.tag.split("}")[1] for d in triggers[1].find("t:ScheduleByWeek/t:DaysOfWeek", NS)] == [
        "Saturday"
    ]


def test_task_from_a_source_checkout_bootstraps_its_path(paths, project):
    from skillopt_sleep.schedule.schtasks import command_args

    args = command_args(_job(paths, project))
    assert args[0] == "-c" and "sys.path.insert(0, '/src/with space')" in args[1]
    assert args[2:4] == ["schedule", "run-job"]


def test_task_with_too_many_times_is_refused(fake_host, tmp_path, paths, project):
    host, _ = fake_host(tmp_path, "win32")
    with pytest.raises(ScheduleError) as info:
        _prepare(host, paths, project, "schtasks", "*/5 * * * *")
    assert (
        "Task Scheduler triggers" in info.value.one_line()
        and "simpler --at" in info.value.one_line()
    )


def test_schtasks_install_and_uninstall(fake_host, tmp_path, paths, project, store):
    host, runner = fake_host(tmp_path, "win32")
    apply(
        _prepare(host, paths, project, "schtasks"),
        store=store,
        paths=paths,
        host=host,
        now=NOW,
        tz=timezone.utc,
    )
    xml_path = host.state_dir / "skillopt-sleep-task.xml"
    assert runner.calls[-1] == [
        "schtasks",
        "/Create",
        "/TN",
        "skillopt-sleep",
        "/XML",
        str(xml_path),
        "/F",
    ]
    assert xml_path.read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")  # UTF-16 with its BOM
    remove(store=store, paths=paths, host=host, name="skillopt-sleep")
    assert ["schtasks", "/Delete", "/TN", "skillopt-sleep", "/F"] in runner.calls
    assert not xml_path.exists()
