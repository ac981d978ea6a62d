"""What ``schedule status`` and ``doctor`` report: is a night scheduled, how, when next, how
the last one went, and which failure notices the user has not seen yet."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from ..errors import ScheduleError
from ..lock import pid_alive
from ..store import Notice, Store
from .install import installer
from .plan import Host
from .state import (
    NOTICE_KIND,
    Installation,
    LastRun,
    LoopRecord,
    load_installation,
    load_last_run,
    load_loop,
)
from .timing import describe, next_runs


@dataclass(frozen=True)
class Overview:
    """The schedule as a user should see it. ``present`` is None when it could not be checked."""

    installation: Installation | None
    loop: LoopRecord | None
    present: bool | None
    problem: str
    cron: str | None
    description: str
    next_runs: list[datetime]
    last_run: LastRun | None
    notices: list[Notice] = field(default_factory=list)

    @property
    def method(self) -> str | None:
        if self.installation is not None:
            return self.installation.method
        return "loop" if self.loop is not None else None

    def as_json(self) -> dict[str, object]:
        return {
            "scheduled": self.method is not None,
            "method": self.method,
            "present": self.present,
            "problem": self.problem or None,
            "cron": self.cron,
            "description": self.description,
            "projects": self.installation.projects
            if self.installation
            else (self.loop.projects if self.loop else []),
            "next_runs": [t.isoformat() for t in self.next_runs],
            "installation": self.installation.model_dump(mode="json")
            if self.installation
            else None,
            "loop": self.loop.model_dump(mode="json") if self.loop else None,
            "last_run": self.last_run.model_dump(mode="json") if self.last_run else None,
            "notices": [n.__dict__ for n in self.notices],
        }


def overview(store: Store, host: Host, now: datetime, tz: tzinfo) -> Overview:
    inst = load_installation(store)
    loop = load_loop(store)
    if loop is not None and not pid_alive(loop.pid):
        loop = None
    present: bool | None = None
    problem = ""
    if inst is not None:
        try:
            present = installer(inst.method, host).present(inst.name)
        except ScheduleError as exc:
            problem = f"cannot check the {inst.method} schedule: {exc.one_line()}"
        if present is False:
            problem = (
                f"the {inst.method} schedule recorded on {inst.installed_at:%Y-%m-%d} is gone "
                "(removed outside skillopt-sleep?): run `skillopt-sleep schedule` again"
            )
    cron = inst.cron if inst else (loop.cron if loop else None)
    runs = next_runs(cron, now, tz, 3) if cron and present is not False else []
    notices = [n for n in store.notices(unseen_only=True) if n.kind == NOTICE_KIND]
    return Overview(
        inst,
        loop,
        present,
        problem,
        cron,
        describe(cron, tz) if cron else "",
        runs,
        load_last_run(store),
        notices,
    )
