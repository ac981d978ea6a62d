"""Windows Task Scheduler: a task defined by XML, with ``StartWhenAvailable`` so a night missed
while the PC was off runs once when it can.

Task XML cannot set environment variables, so the job's environment travels as ``--env K=V``
arguments of ``run-job``, and a source checkout is put on ``sys.path`` by a one-line bootstrap.
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

from ..errors import ScheduleError
from .jobspec import JobSpec
from .plan import MANAGED_BY, Host, Method, Plan, PlannedFile, remove_managed, write_planned
from .runner import checked
from .timing import expand

NS = "http://schemas.microsoft.com/windows/2004/02/mit/task"
DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
MAX_TRIGGERS = 48  # Task Scheduler's limit per task


def command_args(job: JobSpec) -> list[str]:
    """``python`` arguments for the task: the job's own, with its environment as ``--env``."""
    args = list(job.args)
    env = job.env_dict
    root = env.pop("PYTHONPATH", None)
    if root is not None:
        boot = f"import sys; sys.path.insert(0, {root!r}); from skillopt_sleep.cli import entry; entry()"
        args = ["-c", boot, *args[2:]]  # drop "-m skillopt_sleep"
    for key, value in sorted(env.items()):
        args += ["--env", f"{key}={value}"]
    return args


def _sub(parent: ET.Element, tag: str, text: str | None = None) -> ET.Element:
    el = ET.SubElement(parent, f"{{{NS}}}{tag}")
    if text is not None:
        el.text = text
    return el


def _schedule(trigger: ET.Element, days: list[int], weekdays: list[int], months: list[int]) -> None:
    if weekdays:
        by = _sub(trigger, "ScheduleByWeek")
        _sub(by, "WeeksInterval", "1")
        dow = _sub(by, "DaysOfWeek")
        for d in weekdays:
            _sub(dow, DAYS[d])
    elif days or months:
        by = _sub(trigger, "ScheduleByMonth")
        dom = _sub(by, "DaysOfMonth")
        for d in days or range(1, 32):
            _sub(dom, "Day", str(d))
        mon = _sub(by, "Months")
        for m in months or range(1, 13):
            _sub(mon, MONTHS[m - 1])
    else:
        _sub(_sub(trigger, "ScheduleByDay"), "DaysInterval", "1")


def render_xml(job: JobSpec, cron: str, now: datetime) -> str:
    minute, hour, dom, month, dow = expand(cron)
    variants: list[tuple[list[int], list[int]]] = (
        [(dom, []), ([], dow)] if dom and dow else [(dom, dow)]
    )
    times = [(h, m) for h in (hour or range(24)) for m in (minute or range(60))]
    if len(times) * len(variants) > MAX_TRIGGERS:
        raise ScheduleError(
            f"cron '{cron}' needs more than {MAX_TRIGGERS} Task Scheduler triggers",
            hint="choose a simpler --at, e.g. once a day",
        )
    ET.register_namespace("", NS)
    task = ET.Element(f"{{{NS}}}Task", {"version": "1.2"})
    info = _sub(task, "RegistrationInfo")
    _sub(info, "Description", f"skillopt-sleep nightly run (cron {cron}). {MANAGED_BY}")
    _sub(info, "URI", f"\\{job.name}")
    triggers = _sub(task, "Triggers")
    for h, m in times:
        for days, weekdays in variants:
            trigger = _sub(triggers, "CalendarTrigger")
            _sub(trigger, "StartBoundary", now.strftime("%Y-%m-%d") + f"T{h:02d}:{m:02d}:00")
            _sub(trigger, "Enabled", "true")
            _schedule(trigger, days, weekdays, month)
    principal = _sub(_sub(task, "Principals"), "Principal", None)
    principal.set("id", "Author")
    _sub(principal, "LogonType", "InteractiveToken")
    _sub(principal, "RunLevel", "LeastPrivilege")
    settings = _sub(task, "Settings")
    for tag, text in (
        ("MultipleInstancesPolicy", "IgnoreNew"),
        ("DisallowStartIfOnBatteries", "false"),
        ("StopIfGoingOnBatteries", "false"),
        ("StartWhenAvailable", "true"),
        ("ExecutionTimeLimit", "PT8H"),
        ("Enabled", "true"),
    ):
        _sub(settings, tag, text)
    actions = _sub(task, "Actions", None)
    actions.set("Context", "Author")
    exe = _sub(actions, "Exec")
    _sub(exe, "Command", job.python)
    _sub(exe, "Arguments", subprocess.list2cmdline(command_args(job)))
    _sub(exe, "WorkingDirectory", job.workdir)
    ET.indent(task)
    body = ET.tostring(task, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-16"?>\n' + body + "\n"


class SchtasksInstaller:
    """Registers the task ``\\<name>`` from an XML file kept in the state directory."""

    method: Method = "schtasks"

    def __init__(self, host: Host) -> None:
        self.host = host

    def xml_path(self, name: str) -> Path:
        return self.host.state_dir / f"{name}-task.xml"

    def unavailable(self) -> str | None:
        if self.host.platform != "win32":
            return "Task Scheduler runs on Windows only"
        if not self.host.runner.which("schtasks"):
            return "`schtasks` is not on PATH"
        return None

    def plan(self, job: JobSpec, cron: str, now: datetime) -> Plan:
        path = self.xml_path(job.name)
        xml = render_xml(job, cron, now)
        return Plan(
            "schtasks",
            job.name,
            cron,
            files=(PlannedFile(str(path), xml, "utf-16"),),
            commands=(("schtasks", "/Create", "/TN", job.name, "/XML", str(path), "/F"),),
        )

    def install(self, plan: Plan) -> None:
        write_planned(plan.files)
        checked(self.host.runner, plan.commands[0])

    def uninstall(self, name: str) -> list[str]:
        removed = []
        if self.host.runner.which("schtasks") and self.present(name):
            checked(self.host.runner, ["schtasks", "/Delete", "/TN", name, "/F"])
            removed.append(f"the scheduled task {name}")
        if remove_managed(self.xml_path(name)):
            removed.append(str(self.xml_path(name)))
        return removed

    def present(self, name: str) -> bool:
        if not self.host.runner.which("schtasks"):
            return False
        return self.host.runner.run(["schtasks", "/Query", "/TN", name]).code == 0
