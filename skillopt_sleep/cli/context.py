"""What every command handler gets: the environment snapshot, paths, store, settings, output.

The store, the settings and the adoption journal are imported when a command first asks for
them, not with this module: every command imports it, and `log` (run at each session end) needs
none of them, nor pydantic's models, to spool its payload.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..clock import Clock, SystemClock
from ..errors import SleepError, UsageError
from ..paths import HOME_ENV, Paths, resolve_paths
from .terminal import printable

if TYPE_CHECKING:
    from ..settings import LoadedSettings
    from ..store import Store


@dataclass
class Ctx:
    env: Mapping[str, str]
    cwd: Path
    stdin: TextIO
    out: TextIO
    err: TextIO
    json: bool = False
    quiet: bool = False
    clock: Clock = field(default_factory=SystemClock)
    repairs_said: bool = field(default=False, init=False, repr=False)

    @cached_property
    def paths(self) -> Paths:
        return resolve_paths(self.env.get(HOME_ENV)).ensure()

    @cached_property
    def store(self) -> Store:
        from ..store import Store

        return Store.open(self.paths.db)

    @cached_property
    def read_paths(self) -> Paths:
        """The paths, creating nothing: for commands that only read."""
        return resolve_paths(self.env.get(HOME_ENV)).check_usable()

    @cached_property
    def read_store(self) -> Store:
        """The store opened read-only: reading commands work inside a read-only sandbox."""
        from ..store import Store

        return Store.open_readonly(self.read_paths.db)

    def project(self, given: str | None) -> Path:
        """The project a command is about: ``--project`` or the current directory, absolute."""
        path = Path(given).expanduser() if given else self.cwd
        if not path.is_absolute():
            path = self.cwd / path
        return path.resolve()

    def existing_project(self, given: str | None) -> Path:
        """The project a command stores or reports for: a directory that exists (a typo must not
        pass as a project with no tasks, or store tasks under a path no night will ever run)."""
        project = self.project(given)
        if not project.is_dir():
            raise UsageError(
                f"no project directory {project}",
                hint="check the --project path, or run from inside the project",
            )
        return project

    def settings(
        self, project: Path | None, flags: Mapping[str, Any] | None = None
    ) -> LoadedSettings:
        from ..harvest.agents import names
        from ..settings import load_settings, settings_layers

        layers = settings_layers(
            config_file=self.read_paths.config_file,
            project=project,
            env=self.env,
            flags=flags or {},
            cwd=self.cwd,
        )
        return load_settings(layers, agents=names())

    @cached_property
    def repaired(self) -> tuple[str | None, list[str]]:
        """An adoption or rollback a kill, a power cut or a full disk cut short, finished or
        undone before the command looks at anything (:func:`repair_each`): what was done, and
        what cannot finish yet. Without a journal on disk this is one look at a folder."""
        if not resolve_paths(self.env.get(HOME_ENV)).has_journals():
            return None, []
        return repair_each(self)

    def finish_interrupted(self) -> None:
        """:attr:`repaired`, said in one line on stderr (once, whoever asks first): every
        command but the two hooks runs it before its own work (cli.main)."""
        if self.repairs_said:
            return
        self.repairs_said = True
        done, failed = self.repaired
        if done:
            self.say(f"note: {done}")
        for line in failed:
            self.say(f"warning: {line}")

    @property
    def interactive(self) -> bool:
        return (
            not self.quiet and not self.json and bool(getattr(self.err, "isatty", lambda: False)())
        )

    def emit(self, payload: Any, text: str, *, escaped: bool = False) -> None:
        """Print ``payload`` as JSON under ``--json``, else ``text`` with hidden characters
        shown escaped (``escaped``: the caller already did, and added its own colours)."""
        if self.json:
            self.out.write(to_json(payload) + "\n")
        else:
            text = text if escaped else printable(text)
            self.out.write(text if text.endswith("\n") else text + "\n")

    def say(self, text: str) -> None:
        """Progress or advice on stderr; silent under --quiet and --json."""
        if not self.quiet and not self.json:
            self.err.write(printable(text) + "\n")


def to_json(payload: Any) -> str:
    from pydantic import BaseModel

    def default(obj: Any) -> Any:
        if isinstance(obj, BaseModel):
            return obj.model_dump(mode="json")
        if isinstance(obj, Path):
            return str(obj)
        if hasattr(obj, "isoformat"):
            return obj.isoformat()
        raise TypeError(f"not JSON serialisable: {type(obj).__name__}")

    if isinstance(payload, BaseModel):
        payload = payload.model_dump(mode="json")
    return json.dumps(payload, indent=2, sort_keys=True, default=default)


def repair_each(ctx: Ctx) -> tuple[str | None, list[str]]:
    """Finish or undo each adoption or rollback a crash interrupted, of any project: what was
    repaired (or None), and one line for each that cannot finish yet (its night, its project,
    why, what to do). Only a journal left on disk needs a write: where the store may not be
    written (a read-only sandbox) the repair waits for the next command that can write."""
    from ..review.backup import recover
    from ..review.journal import journals

    done: list[str] = []
    failed: list[str] = []
    try:
        pending = journals(ctx.read_paths)
    except SleepError as exc:  # a journal torn or unreadable: said, and the command still runs
        return None, [exc.one_line()]
    for project in dict.fromkeys(j.project for j in pending):
        try:
            if (message := recover(ctx.store, ctx.paths, ctx.clock, project=project)) is not None:
                done.append(message)
        except SleepError as exc:  # a full disk, a backup gone: the command still runs
            failed.append(exc.one_line())
    return "; ".join(done) or None, failed
