"""systemd: a user timer with ``Persistent=true`` (a night missed while the machine was off runs
once at the next boot) and the oneshot service it starts."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from .jobspec import JobSpec
from .plan import MANAGED_BY, Host, Method, Plan, PlannedFile, remove_managed, write_planned
from .runner import checked
from .timing import systemd_on_calendar

LINGER_WARNING = (
    "user services stop when you log out, so a night would only run while you are logged in: "
    "run `loginctl enable-linger` to keep them running"
)


def quote(arg: str, *, expand_dollar: bool = True) -> str:
    """One word for ``ExecStart=``/``Environment=``: specifiers (%) and variables ($) kept literal."""
    text = arg.replace("%", "%%")
    if expand_dollar:
        text = text.replace("$", "$$")
    if any(c in text for c in " \t\"'\\;") or not text:
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def render_service(job: JobSpec) -> str:
    env = "".join(f"Environment={quote(f'{k}={v}', expand_dollar=False)}\n" for k, v in job.env)
    return (
        f"# {MANAGED_BY}\n"
        "[Unit]\n"
        "Description=skillopt-sleep nightly run\n"
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"WorkingDirectory={job.workdir.replace('%', '%%')}\n"
        f"{env}"
        f"ExecStart={' '.join(quote(a) for a in job.argv)}\n"
        "Nice=10\n"
    )


def render_timer(job: JobSpec, cron: str) -> str:
    calendars = "".join(f"OnCalendar={c}\n" for c in systemd_on_calendar(cron))
    return (
        f"# {MANAGED_BY}\n"
        f"# cron: {cron}\n"
        "[Unit]\n"
        "Description=skillopt-sleep nightly timer\n"
        "\n"
        "[Timer]\n"
        f"{calendars}"
        "Persistent=true\n"
        f"Unit={job.name}.service\n"
        "\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )


class SystemdInstaller:
    """Installs ``<name>.service`` and ``<name>.timer`` under the user's systemd unit directory."""

    method: Method = "systemd"

    def __init__(self, host: Host) -> None:
        self.host = host

    @property
    def unit_dir(self) -> Path:
        base = self.host.env.get("XDG_CONFIG_HOME") or str(self.host.home / ".config")
        return Path(base) / "systemd" / "user"

    def unavailable(self) -> str | None:
        if self.host.platform != "linux":
            return "systemd runs on Linux only"
        if not self.host.runner.which("systemctl"):
            return "`systemctl` is not installed"
        result = self.host.runner.run(["systemctl", "--user", "show-environment"])
        if result.code != 0:
            return "no systemd user manager is running for this user"
        return None

    def plan(self, job: JobSpec, cron: str, now: datetime) -> Plan:
        files = (
            PlannedFile(str(self.unit_dir / f"{job.name}.service"), render_service(job)),
            PlannedFile(str(self.unit_dir / f"{job.name}.timer"), render_timer(job, cron)),
        )
        commands = (
            ("systemctl", "--user", "daemon-reload"),
            ("systemctl", "--user", "enable", "--now", f"{job.name}.timer"),
        )
        return Plan(
            "systemd", job.name, cron, files=files, commands=commands, warnings=self._warnings()
        )

    def install(self, plan: Plan) -> None:
        write_planned(plan.files)
        for command in plan.commands:
            checked(self.host.runner, command)

    def uninstall(self, name: str) -> list[str]:
        timer = self.unit_dir / f"{name}.timer"
        service = self.unit_dir / f"{name}.service"
        if not (timer.exists() or service.exists()):
            return []
        if self.host.runner.which("systemctl"):
            # Fails harmlessly when the timer was never loaded; the files go either way.
            self.host.runner.run(["systemctl", "--user", "disable", "--now", f"{name}.timer"])
        removed = [str(p) for p in (timer, service) if remove_managed(p)]
        if self.host.runner.which("systemctl"):
            self.host.runner.run(["systemctl", "--user", "daemon-reload"])
        return removed

    def present(self, name: str) -> bool:
        return (self.unit_dir / f"{name}.timer").exists()

    def _warnings(self) -> tuple[str, ...]:
        user = self.host.env.get("USER") or self.host.env.get("LOGNAME")
        if not user or not self.host.runner.which("loginctl"):
            return ()
        result = self.host.runner.run(["loginctl", "show-user", user, "--property=Linger"])
        return (LINGER_WARNING,) if result.code == 0 and "Linger=no" in result.out else ()
