"""launchd (macOS): a user agent with ``StartCalendarInterval``. A night that falls while the Mac
sleeps runs once when it wakes (launchd coalesces missed intervals into one)."""

from __future__ import annotations

import plistlib
from datetime import datetime
from pathlib import Path

from .jobspec import JobSpec
from .plan import MANAGED_BY, Host, Method, Plan, PlannedFile, remove_managed, write_planned
from .runner import checked
from .timing import launchd_intervals


def label(name: str) -> str:
    return f"com.{name}.nightly"


def render_plist(job: JobSpec, cron: str) -> str:
    intervals = launchd_intervals(cron)
    data = {
        "Label": label(job.name),
        "ProgramArguments": job.argv,
        "EnvironmentVariables": job.env_dict,
        "WorkingDirectory": job.workdir,
        "StartCalendarInterval": intervals[0] if len(intervals) == 1 else intervals,
        "StandardOutPath": job.output_log,
        "StandardErrorPath": job.output_log,
        "RunAtLoad": False,
        "ProcessType": "Background",
    }
    text = plistlib.dumps(data, sort_keys=False).decode("utf-8")
    # A comment, not a key: launchd knows nothing of a "Comment" key.
    head, sep, rest = text.partition("<plist ")
    return f"{head}<!-- {MANAGED_BY} -->\n{sep}{rest}"


class LaunchdInstaller:
    """Installs ``~/Library/LaunchAgents/com.<name>.nightly.plist`` and bootstraps it."""

    method: Method = "launchd"

    def __init__(self, host: Host) -> None:
        self.host = host

    def plist_path(self, name: str) -> Path:
        return self.host.home / "Library" / "LaunchAgents" / f"{label(name)}.plist"

    def unavailable(self) -> str | None:
        if self.host.platform != "darwin":
            return "launchd runs on macOS only"
        if not self.host.runner.which("launchctl"):
            return "`launchctl` is not on PATH"
        return None

    def plan(self, job: JobSpec, cron: str, now: datetime) -> Plan:
        path = self.plist_path(job.name)
        domain = f"gui/{self.host.uid}"
        commands = (
            ("launchctl", "bootout", f"{domain}/{label(job.name)}"),
            ("launchctl", "bootstrap", domain, str(path)),
        )
        return Plan(
            "launchd",
            job.name,
            cron,
            files=(PlannedFile(str(path), render_plist(job, cron)),),
            commands=commands,
        )

    def install(self, plan: Plan) -> None:
        # An earlier version of the agent must be unloaded first; that fails when there is none.
        self.host.runner.run(plan.commands[0])
        write_planned(plan.files)
        checked(self.host.runner, plan.commands[1])

    def uninstall(self, name: str) -> list[str]:
        path = self.plist_path(name)
        if not path.exists():
            return []
        if self.host.runner.which("launchctl"):
            self.host.runner.run(["launchctl", "bootout", f"gui/{self.host.uid}/{label(name)}"])
        return [str(path)] if remove_managed(path) else []

    def present(self, name: str) -> bool:
        return self.plist_path(name).exists()
