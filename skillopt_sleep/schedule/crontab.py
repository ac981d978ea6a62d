"""crontab: one marked block in the user's crontab; every other byte of it is left alone.

The block sits between a begin and an end comment naming the instance, so a second install
replaces it in place and ``unschedule`` removes exactly it. (A table whose last line has no
newline gets one before the block: ``crontab`` refuses to install a table without it.)
"""

from __future__ import annotations

import shlex
from datetime import datetime
from pathlib import PurePath

from ..errors import ScheduleError
from .jobspec import JobSpec
from .plan import MANAGED_BY, Host, Method, Plan
from .runner import checked

NO_DAEMON = (
    "no cron daemon seems to be running on this machine, so the job would never start: "
    "start cron, or run `skillopt-sleep schedule run` under a process supervisor"
)


def begin_marker(name: str) -> str:
    return f"# >>> {name} nightly >>> {MANAGED_BY}"


def end_marker(name: str) -> str:
    return f"# <<< {name} nightly <<<"


def cron_command(job: JobSpec) -> str:
    """The job as one ``sh`` command line, ``%`` escaped (cron turns a bare ``%`` into a newline)."""
    assigns = [f"{k}={shlex.quote(v)}" for k, v in job.env]
    words = [shlex.quote(a) for a in job.argv]
    # The redirection needs its directory: without it sh would not start the job at all.
    logdir = shlex.quote(str(PurePath(job.output_log).parent))
    line = (
        f"mkdir -p {logdir} && "
        + " ".join([*assigns, *words])
        + f" >>{shlex.quote(job.output_log)} 2>&1"
    )
    return line.replace("%", "\\%")


def render_block(job: JobSpec, cron: str) -> str:
    return f"{begin_marker(job.name)}\n{cron} {cron_command(job)}\n{end_marker(job.name)}\n"


def _span(lines: list[str], name: str) -> tuple[int, int] | None:
    begin = begin_marker(name)
    start = next((i for i, line in enumerate(lines) if line.startswith(begin)), None)
    if start is None:
        return None
    end = next(
        (i for i in range(start, len(lines)) if lines[i].rstrip("\r\n") == end_marker(name)), None
    )
    if end is None:
        raise ScheduleError(
            f"your crontab has the start of the {name} block but not its end",
            hint="edit it with `crontab -e` and remove the block by hand",
        )
    return start, end


def remove_block(text: str, name: str) -> tuple[str, bool]:
    """``text`` without the instance's block (byte for byte otherwise), and whether it had one."""
    lines = text.splitlines(keepends=True)
    span = _span(lines, name)
    if span is None:
        return text, False
    start, end = span
    return "".join(lines[:start]) + "".join(lines[end + 1 :]), True


def add_block(text: str, block: str, name: str) -> str:
    """``text`` with the block replacing an earlier one in place, or appended at the end."""
    lines = text.splitlines(keepends=True)
    span = _span(lines, name)
    if span is not None:
        start, end = span
        return "".join(lines[:start]) + block + "".join(lines[end + 1 :])
    if text and not text.endswith("\n"):
        text += "\n"
    return text + block


class CrontabInstaller:
    """Installs the nightly job as a block in the user's crontab (``crontab -l`` / ``crontab -``)."""

    method: Method = "crontab"

    def __init__(self, host: Host) -> None:
        self.host = host

    def unavailable(self) -> str | None:
        if self.host.platform == "win32":
            return "crontab does not exist on Windows"
        if not self.host.runner.which("crontab"):
            return "the `crontab` program is not installed"
        return None

    def plan(self, job: JobSpec, cron: str, now: datetime) -> Plan:
        warnings: tuple[str, ...] = ()
        if self._daemon_running() is False:
            warnings = (NO_DAEMON,)
        return Plan(
            "crontab",
            job.name,
            cron,
            crontab_block=render_block(job, cron),
            commands=(("crontab", "-"),),
            warnings=warnings,
        )

    def install(self, plan: Plan) -> None:
        assert plan.crontab_block is not None
        current = self.read()
        self._write(add_block(current, plan.crontab_block, plan.name))

    def uninstall(self, name: str) -> list[str]:
        current = self.read()
        rest, found = remove_block(current, name)
        if not found:
            return []
        if rest:
            self._write(rest)
        else:
            checked(self.host.runner, ["crontab", "-r"])
        return [f"the {name} block of your crontab"]

    def present(self, name: str) -> bool:
        return remove_block(self.read(), name)[1]

    def read(self) -> str:
        """The user's crontab, "" when there is none."""
        result = self.host.runner.run(["crontab", "-l"])
        if result.code == 0:
            return result.out
        if "no crontab" in (result.err + result.out).lower():
            return ""
        said = (result.err or result.out).strip() or f"exit code {result.code}"
        raise ScheduleError(
            f"`crontab -l` failed: {said}", hint="fix cron, or choose another --method"
        )

    def _write(self, text: str) -> None:
        checked(self.host.runner, ["crontab", "-"], input=text)

    def _daemon_running(self) -> bool | None:
        """Whether a cron daemon runs (Linux: by /proc); None when it cannot be told."""
        proc = self.host.proc_dir
        if self.host.platform != "linux" or not proc.is_dir():
            return None
        names = {"cron", "crond", "cronie", "fcron", "dcron"}
        for comm in proc.glob("[0-9]*/comm"):
            try:
                if comm.read_text().strip() in names:
                    return True
            except OSError:
                continue
        return False
