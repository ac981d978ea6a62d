"""Where skillopt-sleep keeps its files: platformdirs, all moved by one home directory."""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from .errors import StoreNotWritable

APP = "skillopt-sleep"
HOME_ENV = "SKILLOPT_SLEEP_HOME"


@dataclass(frozen=True)
class Paths:
    """Every directory and file the tool writes. Build it with :func:`resolve_paths`."""

    config_dir: Path
    data_dir: Path
    state_dir: Path
    log_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def env_file(self) -> Path:
        """0600 file of secrets the scheduled job reads (never a crontab line)."""
        return self.config_dir / "secrets.env"

    @property
    def db(self) -> Path:
        return self.data_dir / "skillopt-sleep.db"

    @property
    def nights_dir(self) -> Path:
        return self.data_dir / "nights"

    @property
    def backups_dir(self) -> Path:
        return self.data_dir / "backups"

    @property
    def journals_dir(self) -> Path:
        """The adopt and rollback journals under way, one a project (review/journal.py)."""
        return self.backups_dir / "journals"

    @property
    def legacy_journal(self) -> Path:
        """The one journal of every project, as written before journals were per project."""
        return self.backups_dir / "journal.json"

    def journal_file(self, project: str) -> Path:
        """Where ``project``'s journal lives while its adopt or rollback runs."""
        key = hashlib.sha256(project.encode("utf-8")).hexdigest()[:16]
        return self.journals_dir / f"{key}.json"

    def has_journals(self) -> bool:
        """Whether an adopt or rollback, of any project, is under way or was cut short: a look
        at one folder, with the standard library only (every command asks, `nudge` too)."""
        try:
            return self.legacy_journal.exists() or any(self.journals_dir.glob("*.json"))
        except OSError:
            return False

    @property
    def lock_file(self) -> Path:
        return self.state_dir / "night.lock"

    def night_dir(self, night_id: str) -> Path:
        return self.nights_dir / night_id

    def check_usable(self) -> Paths:
        """Raise when a directory could never be made (a file stands in its way), without
        creating anything: reading commands create nothing, yet must not read a home that
        cannot exist as an empty one."""
        for d in (self.config_dir, self.data_dir, self.state_dir, self.log_dir):
            existing = nearest(d)
            if not existing.is_dir():
                raise refused(f"cannot create {d}: {os.strerror(errno.ENOTDIR)}", existing)
        return self

    def ensure(self) -> Paths:
        """Create the directories; one that cannot be made is a :class:`StoreNotWritable`."""
        for d in (self.config_dir, self.data_dir, self.state_dir, self.log_dir):
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise refused(f"cannot create {d}: {exc.strerror or exc}", nearest(d)) from exc
        return self


def resolve_paths(home: str | None) -> Paths:
    """Paths under ``home`` (``SKILLOPT_SLEEP_HOME``) if given, else the platform's user dirs."""
    if home:
        root = Path(home).expanduser().resolve()
        return Paths(root / "config", root / "data", root / "state", root / "logs")
    return Paths(
        Path(platformdirs.user_config_dir(APP)),
        Path(platformdirs.user_data_dir(APP)),
        Path(platformdirs.user_state_dir(APP)),
        Path(platformdirs.user_log_dir(APP)),
    )


def nearest(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def write_hint(where: Path, agent: str | None = None) -> str:
    """What to do when a command must write under ``where`` and may not. Never "move it
    aside": that would lose the task log."""
    reads = "reading commands (status, review, tasks list, doctor) work without it"
    if agent:
        return (
            f"{agent} runs commands in a sandbox that may not write to {where}; approve "
            f"running this command outside the sandbox; {reads}"
        )
    return (
        f"the permissions of {where} (or a sandbox) forbid writing there; give your user "
        f"write access to it, run the command outside the sandbox, or point {HOME_ENV} at a "
        f"directory you can write; {reads}"
    )


def refused(message: str, where: Path) -> StoreNotWritable:
    """The error of a command that must write under ``where`` and may not."""
    return StoreNotWritable(message, where=str(where), hint=write_hint(where))


def not_writable(path: Path, reason: str) -> StoreNotWritable:
    """The error of a command that must write the store and may not."""
    where = path if path.is_dir() else path.parent
    return refused(f"cannot write the store {path}: {reason}", where)


def sandboxing_agent(env: Mapping[str, str]) -> str | None:
    """The agent whose sandbox runs this command, told by the variables it sets, or None."""
    if env.get("CODEX_THREAD_ID") or env.get("CODEX_SANDBOX_NETWORK_DISABLED"):
        return "Codex"
    if env.get("CLAUDECODE"):
        return "Claude Code"
    return None


def in_sandbox(exc: StoreNotWritable, env: Mapping[str, str]) -> StoreNotWritable:
    """``exc`` with a hint naming the agent's sandbox when one runs this command."""
    agent = sandboxing_agent(env)
    if agent is None:
        return exc
    return StoreNotWritable(exc.message, where=exc.where, hint=write_hint(Path(exc.where), agent))
