"""What an installer would do (a ``Plan``), what it needs from the machine (a ``Host``), and the
``Installer`` protocol every OS scheduler module implements; writing the files a plan lists, and
removing only files that carry our mark."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol

from ..errors import ScheduleError
from ..store.files import atomic_write_bytes
from .jobspec import JobSpec
from .runner import Runner

Method = Literal["crontab", "systemd", "launchd", "schtasks"]
METHODS: tuple[Method, ...] = ("crontab", "systemd", "launchd", "schtasks")
MANAGED_BY = "Installed by `skillopt-sleep schedule`; remove with `skillopt-sleep unschedule`."


@dataclass(frozen=True)
class Host:
    """The machine an installer works on: programs run through ``runner``; ``home`` and
    ``env`` locate the user's unit/agent directories; ``platform`` is ``sys.platform``."""

    runner: Runner
    env: Mapping[str, str]
    home: Path
    state_dir: Path
    platform: str
    uid: int = 0
    proc_dir: Path = Path("/proc")


@dataclass(frozen=True)
class PlannedFile:
    path: str
    content: str
    encoding: str = "utf-8"


@dataclass(frozen=True)
class Plan:
    """Everything an install would change: files it writes, crontab lines it adds, commands it
    runs (in order), and warnings the user should read before relying on it."""

    method: Method
    name: str
    cron: str
    files: tuple[PlannedFile, ...] = ()
    crontab_block: str | None = None
    commands: tuple[tuple[str, ...], ...] = ()
    warnings: tuple[str, ...] = field(default=())

    def as_text(self) -> str:
        parts: list[str] = []
        if self.crontab_block is not None:
            parts.append(
                "lines added to your crontab (the rest of it stays as it is):\n"
                + self.crontab_block.rstrip("\n")
            )
        for f in self.files:
            parts.append(f"file {f.path}:\n{f.content.rstrip()}")
        if self.commands:
            parts.append("commands:\n" + "\n".join("  " + " ".join(c) for c in self.commands))
        parts += [f"warning: {w}" for w in self.warnings]
        return "\n\n".join(parts)

    def as_json(self) -> dict[str, object]:
        return {
            "method": self.method,
            "name": self.name,
            "cron": self.cron,
            "files": [{"path": f.path, "content": f.content} for f in self.files],
            "crontab_lines": None
            if self.crontab_block is None
            else self.crontab_block.splitlines(),
            "commands": [list(c) for c in self.commands],
            "warnings": list(self.warnings),
        }


class Installer(Protocol):
    """One OS scheduler.

    ``unavailable`` returns None when the scheduler can be used here, else why not. ``plan``
    renders without touching anything. ``install`` applies a plan, replacing an earlier install
    of the same name. ``uninstall`` removes exactly what ``install`` added (nothing else of the
    user's) and says what it removed. ``present`` says whether an install is in place.
    """

    method: Method

    def unavailable(self) -> str | None: ...

    def plan(self, job: JobSpec, cron: str, now: datetime) -> Plan: ...

    def install(self, plan: Plan) -> None: ...

    def uninstall(self, name: str) -> list[str]: ...

    def present(self, name: str) -> bool: ...


def write_planned(files: Iterable[PlannedFile]) -> None:
    for f in files:
        atomic_write_bytes(Path(f.path), f.content.encode(f.encoding), mode=0o644)


def remove_managed(path: Path, mark: str = MANAGED_BY) -> bool:
    """Delete ``path`` if it carries ``mark``; a same-named file of the user's is left alone."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise ScheduleError(f"cannot read {path}: {exc.strerror}") from exc
    texts = [data.decode(enc, errors="ignore") for enc in ("utf-8", "utf-16")]
    if not any(mark in t for t in texts):
        return False
    try:
        path.unlink()
    except OSError as exc:
        raise ScheduleError(
            f"cannot remove {path}: {exc.strerror}", hint="remove it by hand"
        ) from exc
    return True
