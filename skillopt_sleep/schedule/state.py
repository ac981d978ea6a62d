"""What is scheduled and how the last scheduled night went, kept in the store's meta table."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..store import Store

INSTALLED_KEY = "schedule.installed"
LAST_RUN_KEY = "schedule.last_run"
LOOP_KEY = "schedule.loop"
RUNS_KEY = "schedule.runs"
KEEP_RUNS = 60  # scheduled runs remembered, for ``status`` to tell which nights were missed
NOTICE_KIND = "schedule"

RunStatus = Literal["ok", "failed", "skipped", "interrupted"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Installation(_Record):
    """What ``schedule`` installed, so ``status`` can show it and ``unschedule`` remove exactly it."""

    method: Literal["crontab", "systemd", "launchd", "schtasks"]
    name: str
    cron: str
    timezone: str
    projects: list[str]
    installed_at: datetime
    argv: list[str]
    env_keys: list[str]
    files: list[str] = Field(default_factory=list)
    secrets_written: list[str] = Field(default_factory=list)
    env_file_created: bool = False


class ProjectResult(_Record):
    """How one project's night went."""

    project: str
    status: RunStatus
    decision: str | None = None
    night_id: str | None = None
    message: str = ""


class LastRun(_Record):
    """The most recent scheduled (or looped) run."""

    started_at: datetime
    finished_at: datetime | None = None
    trigger: Literal["scheduled", "loop", "once"]
    status: RunStatus
    message: str = ""
    projects: list[ProjectResult] = Field(default_factory=list)
    log_file: str | None = None


class LoopRecord(_Record):
    """A running built-in loop, for ``schedule status``."""

    pid: int
    cron: str
    timezone: str
    projects: list[str]
    started_at: datetime


def _load(store: Store, key: str, model: type[BaseModel]) -> BaseModel | None:
    raw = store.get_meta(key)
    if not raw:
        return None
    try:
        return model.model_validate_json(raw)
    except ValidationError:
        return None  # written by another version: treat as absent rather than fail status


def load_installation(store: Store) -> Installation | None:
    return _load(store, INSTALLED_KEY, Installation)  # type: ignore[return-value]


def load_last_run(store: Store) -> LastRun | None:
    return _load(store, LAST_RUN_KEY, LastRun)  # type: ignore[return-value]


def load_loop(store: Store) -> LoopRecord | None:
    return _load(store, LOOP_KEY, LoopRecord)  # type: ignore[return-value]


def save(store: Store, key: str, record: BaseModel | None) -> None:
    store.set_meta(key, "" if record is None else record.model_dump_json())


class _Runs(_Record):
    runs: list[LastRun] = Field(default_factory=list)


def load_runs(store: Store) -> list[LastRun]:
    """The scheduled runs remembered, oldest first."""
    found = _load(store, RUNS_KEY, _Runs)
    return list(found.runs) if isinstance(found, _Runs) else []


def save_run(store: Store, record: LastRun) -> None:
    """Record a finished run as the last one and in the remembered history."""
    save(store, LAST_RUN_KEY, record)
    save(store, RUNS_KEY, _Runs(runs=[*load_runs(store), record][-KEEP_RUNS:]))
